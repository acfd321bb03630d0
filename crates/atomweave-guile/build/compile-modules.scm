;;; Compiles atomweave's Scheme modules to Guile bytecode while the crate
;;; builds (build.rs runs it), so that a process loads them in milliseconds
;;; instead of compiling them at every start.
;;;
;;; guile --no-auto-compile -s compile-modules.scm SCHEME-DIR OUT-DIR NAME...
;;; compiles each SCHEME-DIR/NAME.scm, in order, to OUT-DIR/NAME.go.
;;;
;;; What it is not: a way to run the modules. The extension they load does
;;; not exist yet while the crate builds, so its load is skipped: its
;;; primitives are compiled as what they are at run time anyway, top-level
;;; variables of (opencog) looked up on first use. A module that uses
;;; (opencog) compiles against (opencog)'s public interface as compiling
;;; (opencog) left it, with its own macros and exports, where any other name
;;; the module's other imports do not bind is a variable: the extension's
;;; primitives are all procedures, and a variable is looked up by name at
;;; run time, in whichever import binds it then.

(use-modules (system base compile))

(let ((load-extension* load-extension))
  (module-set! (resolve-module '(guile)) 'load-extension
    (lambda (lib init)
      (unless (string=? lib "libatomweave_guile")
        (load-extension* lib init)))))

(define (every-name-a-variable! module)
  (set-module-binder! (module-public-interface module)
    (lambda (interface name define?)
      ;; The module being compiled is current while the compiler looks.
      (and (not (or-map (lambda (other) (and (not (eq? other interface)) (module-variable other name)))
                        (module-uses (current-module))))
           (let ((v (make-undefined-variable)))
             (module-add! interface name v)
             v)))))

(define scheme-dir (cadr (command-line)))
(define out-dir (caddr (command-line)))

(for-each
  (lambda (name)
    (compile-file (string-append scheme-dir "/" name ".scm")
                  #:output-file (string-append out-dir "/" name ".go")
                  #:warning-level 0)
    (when (string=? name "opencog")
      (every-name-a-variable! (resolve-module '(opencog) #f))))
  (cdddr (command-line)))

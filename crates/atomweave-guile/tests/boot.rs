//! Guile's start in a process that embeds it (`boot`): the modules load
//! from the bytecode the build compiled and do what their sources say; a
//! Guile that cannot run that bytecode compiles the source instead, saying
//! so; modules load by the names upstream's older releases gave them, each
//! saying so once.
//!
//! One test, in order: it looks at what the process's start left.

use atomweave::AtomSpace;
use atomweave_guile::{boot, eval, with_guile};

/// What evaluating `expr` prints on the error port.
fn stderr_of(expr: &str) -> String {
    eval(&format!("(display (call-with-output-string (lambda (port) (with-error-to-port port (lambda () {expr}))))) (if #f #f)")).unwrap()
}

#[test]
fn modules_load_from_bytecode_and_by_old_names() {
    let space = AtomSpace::new();
    boot(space.clone());
    with_guile(|| {
        // Nothing was compiled at start.
        assert_eq!(eval("%atomweave-compiling?").unwrap(), "#f\n");
        // The compiled (opencog) calls the extension's primitives.
        assert_eq!(eval("(cog-name (Concept \"boot\"))").unwrap(), "\"boot\"\n");
        assert_eq!(eval("(length (cog-get-atoms 'Concept))").unwrap(), "1\n");
        // Its public names were compiled against Guile's core, not the
        // extension: the extension must not define a name the core binds.
        let shadowed = eval(
            "(let ((core (resolve-module '(guile))) (names '())) \
               (module-for-each (lambda (name var) (when (module-variable core name) (set! names (cons name names)))) \
                                (module-public-interface (resolve-module '(opencog)))) \
               names)",
        )
        .unwrap();
        assert_eq!(shadowed, "()\n", "(opencog) exports names Guile's core binds");

        // Bytecode this Guile cannot run: the source is compiled, once said.
        let fallback = "(%atomweave-load-module ((@ (rnrs bytevectors) make-bytevector) 64 0) \"(define-module (atomweave boot-test)) (define-public (twice x) (* 2 x))\")";
        let err = stderr_of(fallback);
        assert!(err.contains("cannot run the Scheme modules compiled when atomweave was built"), "{err}");
        assert_eq!(eval("((@ (atomweave boot-test) twice) 21)").unwrap(), "42\n");
        assert_eq!(eval("%atomweave-compiling?").unwrap(), "#t\n");
        let err = stderr_of(fallback);
        assert_eq!(err, "", "said once");

        // An old name: loads what replaced it, says so once.
        let err = stderr_of("(resolve-interface '(opencog query))");
        assert!(err.contains("(opencog query) is an old name") && err.contains("(opencog exec)"), "{err}");
        let err = stderr_of("(resolve-interface '(opencog query))");
        assert_eq!(err, "", "said once");
        eval("(use-modules (opencog query))").unwrap();
        eval("(Inheritance (Concept \"cat\") (Concept \"animal\"))").unwrap();
        let query = "(Get (Inheritance (Variable \"$x\") (Concept \"animal\")))";
        assert_eq!(eval(&format!("(cog-bind {query})")).unwrap(), "(Set\n  (Concept \"cat\"))\n");
        assert_eq!(eval(&format!("(equal? (cog-satisfying-set {query}) (cog-execute! {query}))")).unwrap(), "#t\n");
        for (old, new) in [("(opencog persist-pgsql)", "(opencog persist-sql)"), ("(opencog attention-bank)", "(opencog attention)")] {
            let err = stderr_of(&format!("(resolve-interface '{old})"));
            assert!(err.contains(&format!("{old} is an old name")) && err.contains(new), "{err}");
        }
        // Upstream's modules whose calls are in (opencog) load quietly.
        for module in ["(opencog randgen)", "(opencog uuid)", "(opencog extension)"] {
            let err = stderr_of(&format!("(resolve-interface '{module})"));
            assert_eq!(err, "", "{module}");
        }
        assert_eq!(eval("(procedure? (@ (opencog randgen) cog-randgen-randint))").unwrap(), "#t\n");
    });
}

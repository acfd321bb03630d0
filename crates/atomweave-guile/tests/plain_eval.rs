//! Plain calls from Rust (`run`, `eval_atom`) are compiled and run without
//! the shell (`plain_eval.rs`), and do exactly what the shell does with the
//! same text: the same values, the same errors, side effects once, new
//! definitions seen at once, values kept from the collector while the call
//! runs.
//!
//! One test, in order: it redefines procedures of the user module.

use atomweave::AtomSpace;
use atomweave_guile::{boot, eval, eval_atom, plain_eval_runs, run, with_guile};

/// What `eval_atom` answers: the space and atom of the result, if an atom.
type Answer = Result<Option<(u32, atomweave::Handle)>, String>;

/// `eval_atom` of `text`, checked to have run as a plain call, beside the
/// shell's answer (`begin` is a macro, so the shell evaluates that text).
fn both(text: &str) -> (Answer, Answer) {
    let before = plain_eval_runs();
    let plain = eval_atom(text);
    assert_eq!(plain_eval_runs(), before + 1, "not plain: {text}");
    let shell = eval_atom(&format!("(begin {text})"));
    assert_eq!(plain_eval_runs(), before + 1, "plain: (begin {text})");
    (plain, shell)
}

#[test]
fn plain_calls_run_as_the_shell_runs_them() {
    let space = AtomSpace::new();
    boot(space.clone());
    with_guile(|| {
        let a = eval_atom("(Concept \"a\")").unwrap().unwrap().1;
        let b = eval_atom("(Concept \"b\")").unwrap().unwrap().1;
        for text in [
            format!("(cog-new-link 'InheritanceLink (cog-atom {}) (cog-atom {}))", a.to_u32(), b.to_u32()),
            "(ListLink (Concept \"x\") (Predicate \"p\") (Number 1.5 -2e3 7))".into(),
            "; a comment\n(Concept \"quote \\\" and \\\\ backslash\") (Concept \"last\")".into(),
            "(cog-set-tv! (Concept \"a\") (stv 0.5 0.25))".into(),
            "(cog-node 'ConceptNode \"never made\")".into(),
            "(cog-outgoing-atom (List (Concept \"x\") (Concept \"y\")) 1)".into(),
            "#t".into(),
            "(cog-new-link 'ListLink 42)".into(),
            "(car 5)".into(),
            "(cog-atom (+ 1 2305843009213693952))".into(),
            "(values (Concept \"v1\") (Concept \"v2\"))".into(),
            "(List (values (Concept \"v3\") (Concept \"v4\")))".into(),
            "(values)".into(),
        ] {
            let (plain, shell) = both(&text);
            assert_eq!(plain, shell, "{text}");
        }
        let (plain, shell) = both("(List (values))");
        assert!(plain.is_err() && shell.is_err(), "{plain:?} {shell:?}");
        let (plain, _) = both("(cog-new-link 'ListLink 42)");
        assert!(plain.unwrap_err().contains("cog-new-link"));
        assert_eq!(space.get_tv(a).unwrap().mean(), 0.5);

        // Not plain: unbound heads, macros, quoted lists, literals in head
        // place, deep nesting; the shell runs them (or reports them).
        let deep = format!("(length (list {}1{}))", "(cons 1 ".repeat(80), ")".repeat(80));
        for text in ["(no-such-procedure 1)", "(if #t (Concept \"i\") #f)", "(cog-prt-atomspace '(a b))", "(42 1)", deep.as_str(), "", "12345678901234567890"] {
            let before = plain_eval_runs();
            let _ = run(text);
            assert_eq!(plain_eval_runs(), before, "ran as a plain call: {text}");
        }
        assert!(run("(no-such-procedure 1)").unwrap_err().contains("no-such-procedure"));

        // Side effects once; a procedure defined later is found at once.
        run("(define n 0) (define (bump!) (set! n (1+ n)) n)").unwrap();
        run("(bump!)").unwrap();
        assert_eq!(eval("n").unwrap(), "1\n");

        // Values made by the program stay alive across a collection in the
        // middle of it.
        run("(define (collected x) (gc) x)").unwrap();
        for _ in 0..50 {
            run("(cog-set-value! (Concept \"g\") (Predicate \"k\") (StringValue \"abc\" (collected \"mid\") \"def\"))").unwrap();
            run("(cog-set-value! (Concept \"g\") (Predicate \"f\") (FloatValue 1.5 (collected 7.25) 2.5))").unwrap();
        }
        assert_eq!(eval("(cog-value (Concept \"g\") (Predicate \"k\"))").unwrap(), "(StringValue \"abc\" \"mid\" \"def\")\n");
        assert_eq!(eval("(cog-value (Concept \"g\") (Predicate \"f\"))").unwrap(), "(FloatValue 1.5 7.25 2.5)\n");

        // A form that shadows an imported procedure: the forms after it see
        // the new one.
        let before = plain_eval_runs();
        let got = eval_atom("(eval-string \"(define (cog-outgoing-atom l i) (Concept \\\"shadowed\\\"))\") (cog-outgoing-atom (List (Concept \"p\")) 0)");
        assert_eq!(plain_eval_runs(), before + 1);
        assert_eq!(got.unwrap().map(|x| x.1), space.get_node(atomweave::types::CONCEPT_NODE, "shadowed"));

        // Shadowing an imported procedure takes effect on the next call.
        let h = format!("(cog-atom {})", a.to_u32());
        assert_eq!(eval_atom(&h).unwrap().unwrap().1, a);
        run("(define (cog-atom n) (Concept \"shadow\"))").unwrap();
        let got = eval_atom(&h).unwrap().map(|x| x.1);
        assert!(got.is_some());
        assert_eq!(got, space.get_node(atomweave::types::CONCEPT_NODE, "shadow"));

        // Plain calls run with (guile-user) current, as the shell's do: with
        // another module current, the shell takes them (and makes it current).
        run("(define shell-module (resolve-module '(atomweave shell)))").unwrap();
        let before = plain_eval_runs();
        run("(set-current-module shell-module)").unwrap();
        assert_eq!(plain_eval_runs(), before + 1);
        let before = plain_eval_runs();
        assert_eq!(eval_atom("(Concept \"still user\")").unwrap().map(|x| x.1), space.get_node(atomweave::types::CONCEPT_NODE, "still user"));
        assert_eq!(plain_eval_runs(), before);
    });
}

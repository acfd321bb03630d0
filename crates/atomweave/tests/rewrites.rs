//! BindLink and QueryLink rewrites over many groundings: those that only
//! build links are built in batches (past a batch's size here), and must
//! make exactly the atoms a grounding-by-grounding build makes.

use atomweave::query::{execute, Executed};
use atomweave::sexpr::load_str;
use atomweave::types::*;
use atomweave::{AtomSpace, Handle, Value};

/// More groundings than one batch of the rewrite builder holds.
const N: usize = 5000;

fn one(space: &AtomSpace, text: &str) -> Handle {
    *load_str(&mut &*space, text).unwrap().last().unwrap()
}

fn concept(space: &AtomSpace, name: &str) -> Handle {
    space.add_node(CONCEPT_NODE, name).unwrap()
}

fn set_members(space: &AtomSpace, r: Executed) -> Vec<Handle> {
    let Executed::Atom(set) = r else { panic!("a BindLink gives a SetLink, not {r:?}") };
    assert_eq!(space.get_type(set), Some(SET_LINK));
    space.outgoing(set).unwrap().to_vec()
}

#[test]
fn nested_and_repeated_terms_build_each_groundings_atoms() {
    let space = AtomSpace::new();
    let h = concept(&space, "h");
    let xs: Vec<Handle> = (0..N).map(|i| concept(&space, &format!("x{i}"))).collect();
    for &x in &xs {
        space.add_link(INHERITANCE_LINK, &[x, h]).unwrap();
    }
    let q = one(
        &space,
        r#"(Bind (Variable "$x") (Inheritance (Variable "$x") (Concept "h"))
             (Evaluation (Predicate "p")
               (List (Variable "$x") (Inheritance (Variable "$x") (Concept "k")) (Inheritance (Variable "$x") (Concept "k"))
                     (Set (Concept "z") (Variable "$x")))))"#,
    );
    let before = space.num_links();
    let got = set_members(&space, execute(&space, q).unwrap());
    let (p, k, z) = (space.get_node(PREDICATE_NODE, "p").unwrap(), concept(&space, "k"), concept(&space, "z"));
    let mut want: Vec<Handle> = xs
        .iter()
        .map(|&x| {
            let inh = space.get_link(INHERITANCE_LINK, &[x, k]).expect("the inner link built");
            // Unordered: the members in any order name the same link.
            let set = space.get_link(SET_LINK, &[x, z]).expect("the unordered link built");
            let list = space.get_link(LIST_LINK, &[x, inh, inh, set]).expect("the list built");
            space.get_link(EVALUATION_LINK, &[p, list]).expect("the evaluation built")
        })
        .collect();
    let mut sorted = got.clone();
    sorted.sort_unstable();
    want.sort_unstable();
    assert_eq!(sorted, want);
    // Four links a grounding and the result's SetLink; nothing else.
    assert_eq!(space.num_links(), before + 4 * N + 1);
}

#[test]
fn a_querys_several_rewrites_pair_up_by_grounding() {
    let space = AtomSpace::new();
    for i in 0..N {
        one(&space, &format!(r#"(Evaluation (Predicate "edge") (List (Concept "a{i}") (Concept "b{i}")))"#));
    }
    let q = one(
        &space,
        r#"(Query (VariableList (Variable "$a") (Variable "$b"))
             (Evaluation (Predicate "edge") (List (Variable "$a") (Variable "$b")))
             (Inheritance (Variable "$a") (Concept "source"))
             (Inheritance (Variable "$b") (Concept "target")))"#,
    );
    let Executed::Value(Value::Queue(items)) = execute(&space, q).unwrap() else { panic!("a QueryLink gives a QueueValue") };
    let items = items.snapshot();
    assert_eq!(items.len(), N);
    let (source, target) = (concept(&space, "source"), concept(&space, "target"));
    for item in items {
        let Value::Link(pair) = item else { panic!("two rewrites: a LinkValue a grounding, not {item:?}") };
        let [Value::Atom(l), Value::Atom(r)] = &pair[..] else { panic!("two atoms a grounding: {pair:?}") };
        let [a, s] = space.outgoing(*l).unwrap()[..] else { panic!("an InheritanceLink of two") };
        let [b, t] = space.outgoing(*r).unwrap()[..] else { panic!("an InheritanceLink of two") };
        assert_eq!((s, t), (source, target));
        let (an, bn) = (space.name(a).unwrap().to_string(), space.name(b).unwrap().to_string());
        assert_eq!(an[1..], bn[1..], "a grounding's two rewrites hold its own $a and $b");
    }
}

#[test]
fn a_state_in_a_rewrite_is_set_one_grounding_after_another() {
    let space = AtomSpace::new();
    for i in 0..N {
        one(&space, &format!(r#"(Member (Concept "v{i:05}") (Concept "values"))"#));
    }
    let q = one(
        &space,
        r#"(Query (Variable "$v") (Member (Variable "$v") (Concept "values"))
             (List (State (Anchor "current") (Variable "$v"))))"#,
    );
    execute(&space, q).unwrap();
    // Each grounding's state replaced the one before: one is left, the
    // last grounding's (beside the query's own, of the variable).
    let anchor = space.get_node(ANCHOR_NODE, "current").unwrap();
    let grounded = |l: Handle| space.get_type(l) == Some(STATE_LINK) && space.get_type(space.outgoing(l).unwrap()[1]) == Some(CONCEPT_NODE);
    let states: Vec<Handle> = space.incoming(anchor).unwrap().iter().copied().filter(|&l| grounded(l)).collect();
    assert_eq!(states.len(), 1);
    // Groundings go in the order of their atoms' handles.
    let last = (0..N).map(|i| concept(&space, &format!("v{i:05}"))).max().unwrap();
    assert_eq!(space.outgoing(states[0]).unwrap()[1], last);
}

#[test]
fn a_glob_in_a_rewrite_splices_its_run() {
    let space = AtomSpace::new();
    for i in 0..N {
        // A glob grounds one member at least.
        let run: String = (0..1 + i % 4).map(|j| format!(r#" (Concept "m{i}-{j}")"#)).collect();
        one(&space, &format!(r#"(List (Concept "start") (Number {i}){run})"#));
    }
    let q = one(
        &space,
        r#"(Bind (VariableList (Variable "$n") (Glob "$g"))
             (List (Concept "start") (Variable "$n") (Glob "$g"))
             (Evaluation (Predicate "rest") (List (Glob "$g") (Variable "$n"))))"#,
    );
    let got = set_members(&space, execute(&space, q).unwrap());
    assert_eq!(got.len(), N);
    let rest = space.get_node(PREDICATE_NODE, "rest").unwrap();
    for i in (0..N).step_by(7) {
        let mut members: Vec<Handle> = (0..1 + i % 4).map(|j| concept(&space, &format!("m{i}-{j}"))).collect();
        members.push(space.get_node(NUMBER_NODE, &i.to_string()).unwrap());
        let list = space.get_link(LIST_LINK, &members).unwrap_or_else(|| panic!("grounding {i}: its run spliced"));
        let eval = space.get_link(EVALUATION_LINK, &[rest, list]).unwrap();
        assert!(got.contains(&eval), "grounding {i} among the results");
    }
}

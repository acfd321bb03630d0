//! Property test of the pattern matcher: on random small spaces, a GetLink
//! of a random conjunctive pattern (1-4 clauses over InheritanceLink,
//! ListLink, EvaluationLink, MemberLink and SimilarityLink, with constants,
//! shared or disconnected variables, nested links holding variables and
//! optional `(TypeNode "ConceptNode")` restrictions) must return exactly the
//! groundings a brute-force matcher finds: every assignment of the variables
//! to the atoms that existed before the query was added, kept when every
//! clause, substituted, is a link of the space. Each case runs under each
//! search strategy (the matcher's choice, backtracking, the join forced).

use std::collections::{HashMap, HashSet};

use atomweave::query::{execute, with_strategy, Executed, Strategy as Search};
use atomweave::types::*;
use atomweave::{AtomSpace, Handle, Type};
use proptest::prelude::*;

const LINK_TYPES: [Type; 5] = [INHERITANCE_LINK, LIST_LINK, EVALUATION_LINK, MEMBER_LINK, SIMILARITY_LINK];
const MAX_VARS: usize = 4;

// ----- what proptest generates: indices, resolved against the space -----

/// An atom to use: a link (of those made so far) or, mostly, a ConceptNode.
#[derive(Clone, Debug)]
struct Pick {
    link: bool,
    idx: usize,
}

fn pick() -> impl Strategy<Value = Pick> {
    (0u8..4, any::<usize>()).prop_map(|(k, idx)| Pick { link: k == 0, idx })
}

#[derive(Clone, Debug)]
struct LinkSpec {
    ty: usize,
    arity: usize,
    members: [Pick; 3],
    pred: usize,
}

#[derive(Clone, Debug)]
struct SpaceSpec {
    nodes: usize,
    preds: usize,
    links: Vec<LinkSpec>,
}

fn space_spec() -> impl Strategy<Value = SpaceSpec> {
    let link = (0..LINK_TYPES.len(), 1usize..=3, prop::array::uniform3(pick()), any::<usize>()).prop_map(|(ty, arity, members, pred)| LinkSpec {
        ty,
        arity,
        members,
        pred,
    });
    (3usize..=8, 1usize..=2, prop::collection::vec(link, 0..=25)).prop_map(|(nodes, preds, links)| SpaceSpec { nodes, preds, links })
}

/// One leaf of a nested pattern link: a variable or a constant.
#[derive(Clone, Debug)]
struct LeafSpec {
    var: Option<u8>,
    pick: Pick,
}

fn leaf() -> impl Strategy<Value = LeafSpec> {
    (prop::option::weighted(0.5, 0u8..MAX_VARS as u8), pick()).prop_map(|(var, pick)| LeafSpec { var, pick })
}

/// A member of a clause: kind 0-3 a variable, 4-8 a constant, 9 a nested
/// link with a variable inside (derived clauses: 4-5 also nest when the
/// member is a link).
#[derive(Clone, Debug)]
struct MemberSpec {
    kind: u8,
    var: u8,
    pick: Pick,
    nested_ty: usize,
    nested_arity: usize,
    inner: [LeafSpec; 3],
}

fn member() -> impl Strategy<Value = MemberSpec> {
    (0u8..10, 0u8..MAX_VARS as u8, pick(), 0..LINK_TYPES.len(), 1usize..=2, prop::array::uniform3(leaf()))
        .prop_map(|(kind, var, pick, nested_ty, nested_arity, inner)| MemberSpec { kind, var, pick, nested_ty, nested_arity, inner })
}

/// A clause: derived from a link of the space (some members turned into
/// variables), which makes matches likely, or made up.
#[derive(Clone, Debug)]
struct ClauseSpec {
    derive: Option<usize>,
    ty: usize,
    arity: usize,
    members: [MemberSpec; 3],
}

fn clause() -> impl Strategy<Value = ClauseSpec> {
    (prop::option::weighted(0.8, any::<usize>()), 0..LINK_TYPES.len(), 1usize..=3, prop::array::uniform3(member()))
        .prop_map(|(derive, ty, arity, members)| ClauseSpec { derive, ty, arity, members })
}

#[derive(Clone, Debug)]
struct PatternSpec {
    clauses: Vec<ClauseSpec>,
    typed: Option<u8>,
}

fn pattern_spec() -> impl Strategy<Value = PatternSpec> {
    (prop::collection::vec(clause(), 1..=4), prop::option::weighted(0.3, 1u8..16)).prop_map(|(clauses, typed)| PatternSpec { clauses, typed })
}

// ----- the space -----

struct Space {
    space: AtomSpace,
    concepts: Vec<Handle>,
    preds: Vec<Handle>,
    /// Every link added, with its type and outgoing set as given.
    links: Vec<(Type, Vec<Handle>)>,
}

impl Space {
    fn resolve(&self, p: &Pick) -> Handle {
        if p.link && !self.links.is_empty() {
            let (t, out) = &self.links[p.idx % self.links.len()];
            self.space.get_link(*t, out).unwrap()
        } else {
            self.concepts[p.idx % self.concepts.len()]
        }
    }
}

fn build_space(spec: &SpaceSpec) -> Space {
    let space = AtomSpace::new();
    let concepts = (0..spec.nodes).map(|i| space.add_node(CONCEPT_NODE, &format!("c{i}")).unwrap()).collect();
    let preds = (0..spec.preds).map(|i| space.add_node(PREDICATE_NODE, &format!("p{i}")).unwrap()).collect();
    let mut s = Space { space, concepts, preds, links: Vec::new() };
    for l in &spec.links {
        let t = LINK_TYPES[l.ty];
        let out: Vec<Handle> = if t == EVALUATION_LINK {
            let n = (l.arity - 1).max(1);
            std::iter::once(s.preds[l.pred % s.preds.len()]).chain(l.members[..n].iter().map(|p| s.resolve(p))).collect()
        } else {
            l.members[..l.arity].iter().map(|p| s.resolve(p)).collect()
        };
        s.space.add_link(t, &out).unwrap();
        s.links.push((t, out));
    }
    s
}

// ----- the pattern -----

#[derive(Clone, Debug)]
enum Pat {
    Const(Handle),
    /// A variable by its index ($v0..$v3).
    Var(usize),
    Link(Type, Vec<Pat>),
}

impl Pat {
    fn vars(&self, out: &mut Vec<usize>) {
        match self {
            Pat::Const(_) => {}
            Pat::Var(v) => out.push(*v),
            Pat::Link(_, m) => m.iter().for_each(|p| p.vars(out)),
        }
    }
    fn has_var(&self) -> bool {
        let mut v = Vec::new();
        self.vars(&mut v);
        !v.is_empty()
    }
}

/// The variable that replaces the atom `h` of a derived clause: for an even
/// `v`, the same variable wherever `h` is replaced (so that clauses derived
/// from links that share an atom join on it); else `$v{v}`.
fn var_for(map: &mut HashMap<Handle, usize>, h: Handle, v: u8) -> Pat {
    if v % 2 == 1 {
        return Pat::Var(v as usize);
    }
    let n = map.len();
    Pat::Var(*map.entry(h).or_insert(n % MAX_VARS))
}

/// A nested link with at least one variable: the members of `base` (or
/// made-up constants) with some replaced by variables.
fn nested(s: &Space, map: &mut HashMap<Handle, usize>, t: Type, base: Option<&[Handle]>, arity: usize, inner: &[LeafSpec; 3]) -> Pat {
    let mut m: Vec<Pat> = match base {
        Some(out) => out.iter().zip(inner.iter().cycle()).map(|(&h, l)| l.var.map_or(Pat::Const(h), |v| var_for(map, h, v))).collect(),
        None if t == EVALUATION_LINK => std::iter::once(Pat::Const(s.preds[inner[0].pick.idx % s.preds.len()]))
            .chain(inner[1..=arity].iter().map(|l| l.var.map_or(Pat::Const(s.resolve(&l.pick)), |v| Pat::Var(v as usize))))
            .collect(),
        None => inner[..arity].iter().map(|l| l.var.map_or(Pat::Const(s.resolve(&l.pick)), |v| Pat::Var(v as usize))).collect(),
    };
    if !m.iter().any(Pat::has_var) {
        let i = m.len() - 1;
        m[i] = Pat::Var(inner[0].var.unwrap_or(inner[1].pick.idx as u8 % MAX_VARS as u8) as usize);
    }
    Pat::Link(t, m)
}

fn build_clause(s: &Space, map: &mut HashMap<Handle, usize>, c: &ClauseSpec) -> Pat {
    let mut members: Vec<Pat>;
    let t;
    match c.derive.filter(|_| !s.links.is_empty()) {
        Some(k) => {
            let (lt, out) = &s.links[k % s.links.len()];
            t = *lt;
            members = out
                .iter()
                .zip(&c.members)
                .map(|(&h, m)| {
                    let inner_out = s.space.outgoing(h).filter(|o| !o.is_empty());
                    match m.kind {
                        0..=3 => var_for(map, h, m.var),
                        4..=5 | 9 if inner_out.is_some() => {
                            let it = s.space.get_type(h).unwrap();
                            nested(s, map, it, inner_out, 0, &m.inner)
                        }
                        _ => Pat::Const(h),
                    }
                })
                .collect();
        }
        None => {
            t = LINK_TYPES[c.ty];
            let mut member = |m: &MemberSpec| match m.kind {
                0..=3 => Pat::Var(m.var as usize),
                4..=8 => Pat::Const(s.resolve(&m.pick)),
                _ => nested(s, map, LINK_TYPES[m.nested_ty], None, m.nested_arity, &m.inner),
            };
            members = if t == EVALUATION_LINK {
                let n = (c.arity - 1).max(1);
                let first = &c.members[0];
                let head = if first.kind < 3 { Pat::Var(first.var as usize) } else { Pat::Const(s.preds[first.pick.idx % s.preds.len()]) };
                std::iter::once(head).chain(c.members[1..=n].iter().map(&mut member)).collect()
            } else {
                c.members[..c.arity].iter().map(&mut member).collect()
            };
        }
    }
    if !members.iter().any(Pat::has_var) {
        let i = members.len() - 1;
        members[i] = Pat::Var(c.members[i].var as usize);
    }
    Pat::Link(t, members)
}

// ----- brute force -----

/// The atom the pattern becomes under the assignment, if it is in the space.
fn ground(space: &AtomSpace, p: &Pat, asg: &[Option<Handle>]) -> Option<Handle> {
    match p {
        Pat::Const(h) => Some(*h),
        Pat::Var(v) => Some(asg[*v].expect("variable assigned")),
        Pat::Link(t, m) => {
            let out = m.iter().map(|x| ground(space, x, asg)).collect::<Option<Vec<_>>>()?;
            space.get_link(*t, &out)
        }
    }
}

/// Every assignment of `vars` (in order) to candidates, kept when every
/// clause grounds to a link of the space; clauses are checked as soon as
/// their last variable is assigned.
fn brute_force(space: &AtomSpace, clauses: &[Pat], vars: &[usize], candidates: &[Vec<Handle>]) -> HashSet<Vec<Handle>> {
    // The clauses to check after assigning vars[i].
    let due: Vec<Vec<&Pat>> = (0..vars.len())
        .map(|i| {
            clauses
                .iter()
                .filter(|c| {
                    let mut v = Vec::new();
                    c.vars(&mut v);
                    v.iter().map(|x| vars.iter().position(|y| y == x).unwrap()).max() == Some(i)
                })
                .collect()
        })
        .collect();
    let mut asg = vec![None; MAX_VARS];
    let mut out = HashSet::new();
    fn rec(
        i: usize,
        space: &AtomSpace,
        vars: &[usize],
        candidates: &[Vec<Handle>],
        due: &[Vec<&Pat>],
        asg: &mut Vec<Option<Handle>>,
        out: &mut HashSet<Vec<Handle>>,
    ) {
        if i == vars.len() {
            out.insert(vars.iter().map(|&v| asg[v].unwrap()).collect());
            return;
        }
        for &h in &candidates[i] {
            asg[vars[i]] = Some(h);
            if due[i].iter().all(|c| ground(space, c, asg).is_some()) {
                rec(i + 1, space, vars, candidates, due, asg, out);
            }
        }
        asg[vars[i]] = None;
    }
    rec(0, space, vars, candidates, &due, &mut asg, &mut out);
    out
}

// ----- printing, for failure messages -----

fn show(space: &AtomSpace, h: Handle) -> String {
    let t = space.get_type(h).unwrap();
    match space.name(h) {
        Some(n) => format!("({} \"{}\")", t.name(), n),
        None => {
            let m: Vec<String> = space.outgoing(h).unwrap().iter().map(|&x| show(space, x)).collect();
            format!("({} {})", t.name(), m.join(" "))
        }
    }
}

fn show_tuples(space: &AtomSpace, set: &HashSet<Vec<Handle>>) -> String {
    let mut v: Vec<String> = set.iter().map(|t| format!("[{}]", t.iter().map(|&h| show(space, h)).collect::<Vec<_>>().join(", "))).collect();
    v.sort();
    v.join("\n  ")
}

// ----- the test -----

fn add_pat(space: &AtomSpace, p: &Pat, var_nodes: &[Handle]) -> Handle {
    match p {
        Pat::Const(h) => *h,
        Pat::Var(v) => var_nodes[*v],
        Pat::Link(t, m) => {
            let out: Vec<Handle> = m.iter().map(|x| add_pat(space, x, var_nodes)).collect();
            space.add_link(*t, &out).unwrap()
        }
    }
}

fn check(sspec: &SpaceSpec, pspec: &PatternSpec, strategy: Search) -> Result<(), TestCaseError> {
    let s = build_space(sspec);
    let space = &s.space;
    let mut map = HashMap::new();
    let clauses: Vec<Pat> = pspec.clauses.iter().map(|c| build_clause(&s, &mut map, c)).collect();
    let mut vars = Vec::new();
    clauses.iter().for_each(|c| c.vars(&mut vars));
    vars.sort_unstable();
    vars.dedup();
    let typed = |v: usize| pspec.typed.is_some_and(|m| m & (1 << v) != 0);

    // Brute force, over the atoms that exist before the query is added.
    let before: Vec<Handle> = space.handles_by_type(ATOM, true).collect();
    let candidates: Vec<Vec<Handle>> =
        vars.iter().map(|&v| before.iter().copied().filter(|&h| !typed(v) || space.get_type(h) == Some(CONCEPT_NODE)).collect()).collect();
    let expected = brute_force(space, &clauses, &vars, &candidates);

    // The query.
    let var_nodes: Vec<Handle> = (0..MAX_VARS).map(|i| space.add_node(VARIABLE_NODE, &format!("$v{i}")).unwrap()).collect();
    let type_node = space.add_node(TYPE_NODE, "ConceptNode").unwrap();
    let decls: Vec<Handle> =
        vars.iter().map(|&v| if typed(v) { space.add_link(TYPED_VARIABLE_LINK, &[var_nodes[v], type_node]).unwrap() } else { var_nodes[v] }).collect();
    let vardecl = space.add_link(VARIABLE_LIST, &decls).unwrap();
    let clause_atoms: Vec<Handle> = clauses.iter().map(|c| add_pat(space, c, &var_nodes)).collect();
    let body = if clause_atoms.len() == 1 { clause_atoms[0] } else { space.add_link(AND_LINK, &clause_atoms).unwrap() };
    let get = space.add_link(GET_LINK, &[vardecl, body]).unwrap();
    let query_text = show(space, get);

    let context = || {
        let mut atoms: Vec<String> = before.iter().filter(|&&h| space.is_link(h)).map(|&h| show(space, h)).collect();
        atoms.sort();
        format!("strategy: {strategy:?}\nspace links:\n  {}\nquery:\n  {}\nexpected:\n  {}", atoms.join("\n  "), query_text, show_tuples(space, &expected))
    };

    let result = match with_strategy(strategy, || execute(space, get)) {
        Ok(Executed::Atom(h)) => h,
        Ok(Executed::Value(v)) => return Err(TestCaseError::fail(format!("GetLink gave a value {v:?}\n{}", context()))),
        Err(e) => return Err(TestCaseError::fail(format!("GetLink failed: {e}\n{}", context()))),
    };
    prop_assert_eq!(space.get_type(result), Some(SET_LINK), "result is not a SetLink\n{}", context());
    let members = space.outgoing(result).unwrap().to_vec();
    let mut got = HashSet::new();
    for &m in &members {
        let tuple = if vars.len() == 1 {
            vec![m]
        } else {
            prop_assert_eq!(space.get_type(m), Some(LIST_LINK), "member {} is not a ListLink\n{}", show(space, m), context());
            space.outgoing(m).unwrap().to_vec()
        };
        prop_assert_eq!(tuple.len(), vars.len(), "member {} has the wrong arity\n{}", show(space, m), context());
        got.insert(tuple);
    }
    prop_assert_eq!(got.len(), members.len(), "the SetLink holds a grounding twice\n{}", context());
    prop_assert!(
        got == expected,
        "groundings differ\n{}\ngot:\n  {}\nmissing:\n  {}\nextra:\n  {}",
        context(),
        show_tuples(space, &got),
        show_tuples(space, &expected.difference(&got).cloned().collect()),
        show_tuples(space, &got.difference(&expected).cloned().collect()),
    );
    Ok(())
}

/// 256 cases; PROPTEST_CASES=n runs more (40,000 take about 10 s in release).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|x| x.parse().ok()).unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn get_link_matches_brute_force(sspec in space_spec(), pspec in pattern_spec()) {
        // Each search on a space of its own: a GetLink adds its results.
        for strategy in [Search::Auto, Search::Backtrack, Search::Join] {
            check(&sspec, &pspec, strategy)?;
        }
    }
}

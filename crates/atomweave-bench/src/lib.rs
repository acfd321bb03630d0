//! The random space of upstream's `atomspace_bm`, reproducible from a seed:
//! what every layer of `atomweave bench` measures on (the CLI's Rust layers,
//! and the Python layer through the `atomweave` package). It is benchmark
//! data, not a general generator (`atomweave generate` writes random
//! Atomese files).
//!
//! Nodes are named "node N"; in each batch of 5,000 atoms the type is the
//! default (ConceptNode, InheritanceLink) or, with probability 0.4, one other
//! type drawn for the whole batch. Link arity is Poisson with mean 2, a zero
//! bumped to one, and members are drawn uniformly from the atoms made so far.

use atomweave::{types, AtomSink, Handle, Type};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Atoms per type decision, as upstream.
const BATCH: usize = 5000;
/// Chance that a batch uses a type other than the default.
const OTHER_TYPE: f64 = 0.4;

/// Draws Poisson(mean) by multiplying uniforms (Knuth); fine for small means.
pub fn poisson(rng: &mut impl Rng, mean: f64) -> usize {
    let limit = (-mean).exp();
    let mut k = 0;
    let mut p = rng.gen::<f64>();
    while p > limit {
        k += 1;
        p *= rng.gen::<f64>();
    }
    k
}

/// Node or link types the random space draws from: every one below Node
/// (or Link), as upstream draws from the whole class table.
fn atom_types(node: bool) -> Vec<Type> {
    let root = if node { types::NODE } else { types::LINK };
    Type::all().into_iter().filter(|t| t.is_a(root) && *t != root).collect()
}

/// Grows a space with random atoms, as upstream's benchmark builds it.
pub struct RandomSpace {
    rng: Xoshiro256PlusPlus,
    link_fraction: f64,
    node_types: Vec<Type>,
    link_types: Vec<Type>,
    /// Every atom made so far, for drawing link members.
    pub atoms: Vec<Handle>,
    nodes_made: u64,
    batch_left: usize,
    batch_node_type: Type,
    batch_link_type: Type,
}

impl RandomSpace {
    pub fn new(seed: u64, link_fraction: f64) -> Self {
        RandomSpace {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            link_fraction,
            node_types: atom_types(true),
            link_types: atom_types(false),
            atoms: Vec::new(),
            nodes_made: 0,
            batch_left: 0,
            batch_node_type: types::CONCEPT_NODE,
            batch_link_type: types::INHERITANCE_LINK,
        }
    }

    fn next_batch(&mut self) {
        self.batch_left = BATCH;
        self.batch_node_type = if self.rng.gen_bool(OTHER_TYPE) { self.node_types[self.rng.gen_range(0..self.node_types.len())] } else { types::CONCEPT_NODE };
        self.batch_link_type =
            if self.rng.gen_bool(OTHER_TYPE) { self.link_types[self.rng.gen_range(0..self.link_types.len())] } else { types::INHERITANCE_LINK };
    }

    /// Adds `n` atoms: nodes first, then links, in the configured proportion.
    /// `progress` hears the count made so far, every 4096 atoms and at the end.
    pub fn grow(&mut self, sink: &mut impl AtomSink, n: usize, mut progress: impl FnMut(u64)) -> atomweave::Result<()> {
        let links = ((n as f64) * self.link_fraction).round() as usize;
        let nodes = n - links;
        for i in 0..n {
            if self.batch_left == 0 {
                self.next_batch();
            }
            self.batch_left -= 1;
            let h = if i < nodes || self.atoms.is_empty() {
                self.nodes_made += 1;
                sink.add_node(self.batch_node_type, &format!("node {}", self.nodes_made))?
            } else {
                let arity = poisson(&mut self.rng, 2.0).max(1);
                let mut out: Vec<Handle> = Vec::with_capacity(arity);
                while out.len() < arity && !self.atoms.is_empty() {
                    let j = self.rng.gen_range(0..self.atoms.len());
                    // Atoms a benchmark removed meanwhile drop out of the draw.
                    if sink.contains(self.atoms[j]) {
                        out.push(self.atoms[j]);
                    } else {
                        self.atoms.swap_remove(j);
                    }
                }
                if out.is_empty() {
                    self.nodes_made += 1;
                    sink.add_node(self.batch_node_type, &format!("node {}", self.nodes_made))?
                } else {
                    sink.add_link(self.batch_link_type, &out)?
                }
            };
            self.atoms.push(h);
            if i % 4096 == 0 {
                progress(i as u64);
            }
        }
        progress(n as u64);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomweave::{AtomRead, AtomTable};

    #[test]
    fn poisson_has_the_right_mean() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 100_000;
        let mean = (0..n).map(|_| poisson(&mut rng, 2.0)).sum::<usize>() as f64 / n as f64;
        assert!((mean - 2.0).abs() < 0.03, "{mean}");
    }

    #[test]
    fn the_same_seed_builds_the_same_space() {
        let build = |seed| {
            let mut t = AtomTable::new();
            let mut rs = RandomSpace::new(seed, 0.2);
            rs.grow(&mut t, 20_000, |_| {}).unwrap();
            let mut shape: Vec<(String, usize)> = t.all_atoms().map(|h| (t.get_type(h).unwrap().name().to_string(), t.arity(h).unwrap())).collect();
            shape.sort();
            (t.size(), t.num_links(), shape)
        };
        let (size, links, shape) = build(7);
        assert_eq!((size, links, shape.clone()), build(7));
        // 20% links, less the random duplicates that merged into one atom.
        assert!((3800..=4000).contains(&links), "{links}");
        assert_eq!(size, 16_000 + links);
        assert_ne!(shape, build(8).2);
        let concepts = shape.iter().filter(|(t, _)| t == "ConceptNode").count();
        // Each batch of 5,000 keeps the default type with probability 0.6.
        assert!(concepts > 0 && concepts < 16_000, "{concepts}");
    }
}

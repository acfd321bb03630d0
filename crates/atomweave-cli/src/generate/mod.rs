//! `atomweave generate`: reproducible Atomese files to load and measure,
//! in two shapes: `random` (every printed form real files use) and `pairs`
//! (word-pair counts, as the language-learning pipelines store them, at
//! any size). The same size and seed give the same bytes.

pub mod pairs;
mod random;

use std::path::Path;

/// What the generated file holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Shape {
    /// Nodes and nested links of several types, with truth values,
    /// values, comments and both printed forms.
    Random,
    /// Word-pair counts: EvaluationLinks of Zipf-distributed word pairs
    /// with count truth values, their marginals, and mutual information
    /// as FloatValues on a tenth of the pairs.
    Pairs,
}

pub fn run(shape: Shape, atoms: u64, seed: u64, output: Option<&Path>) -> Result<(), String> {
    let mut out = super::output(output)?;
    match shape {
        Shape::Random => random::write(atoms, seed, &mut out),
        Shape::Pairs => pairs::write(atoms, seed, &mut out).map_err(|e| format!("writing: {e}")),
    }
}

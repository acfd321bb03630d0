//! `atomweave generate`: reproducible Atomese files to load and measure,
//! in three shapes: `random` (every printed form real files use), `pairs`
//! (word-pair counts, as the language-learning pipelines store them, at
//! any size) and `genomics` (the data files of upstream's genomics
//! benchmark, a directory of them). The same size and seed give the same
//! bytes.

pub mod genomics;
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
    /// Upstream's genomics benchmark's data files (`-o` names their
    /// directory): genes, proteins and pathways, their interactions,
    /// expressions and memberships, in its abbreviations.
    Genomics,
}

pub fn run(shape: Shape, atoms: u64, seed: u64, output: Option<&Path>) -> Result<(), String> {
    match shape {
        Shape::Random => random::write(atoms, seed, &mut super::output(output)?),
        Shape::Pairs => pairs::write(atoms, seed, &mut super::output(output)?).map_err(|e| format!("writing: {e}")),
        Shape::Genomics => genomics::run(atoms, seed, output.ok_or("--shape genomics writes several files: name their directory with -o DIR")?),
    }
}

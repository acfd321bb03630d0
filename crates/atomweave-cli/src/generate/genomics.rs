//! `generate --shape genomics`: a graph of the shape of upstream's genomics
//! benchmark (opencog/benchmark, `query-loop/`), written as that
//! benchmark's data files, so that its `bio-loop.scm` runs on them with
//! no change.
//!
//! The benchmark's public snapshot lacks its two largest files (BioGRID's
//! interactions, Entrez's ids); this draws a graph of the size and shape
//! its README and dataset notes describe instead: at full size about
//! 250 K vertices (genes, proteins, small molecules, reaction pathways and
//! id tags) and 1.2 M edges, most of them gene-gene interactions with
//! heavy-tailed degrees. Each file holds what the benchmark's file of that
//! name holds, in its abbreviations (`load-data.scm` defines them):
//!
//! ```text
//! biogrid-full.scm     (e i (l (g "G00017")(g "G00342")))       interactions
//!                      (e d (l (g "G00017")(c "PMID:3120")))    PubMed tags
//! entrez.scm           (e z (l (g "G00017")(c "entrez:17")))
//! uniprot.scm          (e x (l (g "G00017")(m "Uniprot:P00017")))  expression
//!                      (e b (l (m "Uniprot:P00017")(c "Bio:17")))  BioGRID ids
//! reactome-*.scm       (s (g "G00017")(c "R-HSA-1000017"))      pathway members
//! gene-list.scm        (define gene-list (list "G00017" ...))   681 genes
//! ```
//!
//! [`Graph`] also counts what the benchmark's queries find, directly
//! (adjacency sets, no pattern matching), for `query-bench --suite genomics`
//! to check the matcher's answers against. The same scale and seed give the
//! same bytes.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// How many genes the benchmark's gene list names.
pub const GENE_LIST: usize = 681;

/// The pathways `bio-loop.scm`'s short pentagon run names: the generator
/// gives these names to pathways of a range of sizes, so that the run
/// finds what it asks for.
pub const SHORT_PATHWAYS: [&str; 12] = [
    "R-HSA-6799198",
    "R-HSA-72163",
    "R-HSA-352230",
    "R-HSA-611105",
    "R-HSA-389661",
    "R-HSA-77289",
    "R-HSA-4641258",
    "R-HSA-5663220",
    "R-HSA-201681",
    "R-HSA-4086400",
    "R-HSA-5099900",
    "R-HSA-4608870",
];

/// The graph, on dense ids per kind of vertex.
pub struct Graph {
    pub genes: u32,
    pub proteins: u32,
    chebi: u32,
    pub pathways: u32,
    /// Gene-gene interactions as drawn, repeats kept (BioGRID lists an
    /// interaction once per study); never a gene with itself.
    pub interactions: Vec<(u32, u32)>,
    /// Gene to PubMed id.
    pubmed: Vec<(u32, u32)>,
    /// Gene to the protein it expresses.
    pub expresses: Vec<(u32, u32)>,
    /// Members of pathways: genes, proteins, small molecules; repeats
    /// kept, as Reactome's files repeat lines.
    gene_paths: Vec<(u32, u32)>,
    pub protein_paths: Vec<(u32, u32)>,
    chebi_paths: Vec<(u32, u32)>,
    /// The genes of `gene-list.scm`.
    pub gene_list: Vec<u32>,
}

/// Rank-weighted draws: rank `r` drawn with weight `(r + offset)^-alpha`.
struct Ranked {
    cumulative: Vec<f64>,
}

impl Ranked {
    fn new(n: u32, offset: f64, alpha: f64) -> Ranked {
        let mut sum = 0.0;
        let cumulative = (0..n)
            .map(|r| {
                sum += (f64::from(r) + offset).powf(-alpha);
                sum
            })
            .collect();
        Ranked { cumulative }
    }

    fn draw(&self, rng: &mut impl Rng) -> u32 {
        let x = rng.gen::<f64>() * self.cumulative.last().copied().unwrap_or(0.0);
        self.cumulative.partition_point(|&c| c <= x).min(self.cumulative.len() - 1) as u32
    }
}

impl Graph {
    /// The graph at `scale` (1.0: the benchmark's full size), drawn from `seed`.
    pub fn new(scale: f64, seed: u64) -> Graph {
        let n = |full: f64| ((full * scale).round() as u32).max(1);
        let (genes, proteins, chebi, pathways) =
            (n(45_000.0).max(GENE_LIST as u32 * 4), n(24_000.0), n(2_100.0), n(2_000.0).max(4 + SHORT_PATHWAYS.len() as u32));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // Interactions: both ends drawn by rank (a Chung-Lu graph), so a
        // gene's degree falls with its rank, from about 800 to a few. The
        // weights give the listed genes about the triangles the dataset
        // notes count (277 K in all, 59 the median, 10.6 K the most).
        let by_gene = Ranked::new(genes, 180.0, 1.0);
        let mut interactions = Vec::with_capacity(n(850_000.0) as usize);
        while interactions.len() < n(850_000.0) as usize {
            let (a, b) = (by_gene.draw(&mut rng), by_gene.draw(&mut rng));
            if a != b {
                interactions.push((a, b));
            }
        }
        let by_paper = Ranked::new(n(100_000.0), 10.0, 0.8);
        let pubmed = (0..n(150_000.0)).map(|_| (by_gene.draw(&mut rng), by_paper.draw(&mut rng))).collect();
        // Expression: most of the first genes express the protein of their
        // own number, a few a second one.
        let mut expresses = Vec::new();
        for g in 0..proteins.min(genes) {
            if rng.gen_ratio(7, 10) {
                expresses.push((g, g));
                if rng.gen_ratio(1, 20) {
                    expresses.push((g, rng.gen_range(0..proteins)));
                }
            }
        }
        // Pathways: sizes heavy-tailed by rank; members drawn by their own rank.
        let by_pathway = Ranked::new(pathways, 5.0, 0.9);
        let mut members = |count: f64, of: &Ranked| -> Vec<(u32, u32)> { (0..n(count)).map(|_| (of.draw(&mut rng), by_pathway.draw(&mut rng))).collect() };
        let gene_paths = members(64_000.0, &Ranked::new(genes, 100.0, 0.7));
        let protein_paths = members(65_700.0, &Ranked::new(proteins, 100.0, 0.7));
        let chebi_paths = members(13_300.0, &Ranked::new(chebi, 10.0, 0.8));
        // The gene list: genes of interest are well studied, so drawn
        // among the better connected (the first 15%).
        let mut gene_list = Vec::with_capacity(GENE_LIST);
        let mut chosen = HashSet::new();
        let pool = (genes * 15 / 100).max(GENE_LIST as u32 * 2);
        while gene_list.len() < GENE_LIST {
            let g = rng.gen_range(0..pool);
            if chosen.insert(g) {
                gene_list.push(g);
            }
        }
        Graph { genes, proteins, chebi, pathways, interactions, pubmed, expresses, gene_paths, protein_paths, chebi_paths, gene_list }
    }

    pub fn gene_name(g: u32) -> String {
        format!("G{g:05}")
    }

    pub fn protein_name(p: u32) -> String {
        format!("Uniprot:P{p:05}")
    }

    /// The pathway of rank `p`: the short run's names go to every
    /// `(pathways - 4) / 12`-th rank from the fifth, so their sizes range
    /// from large to small; the others are numbered (from 1,000,000: above
    /// Reactome's numbers, so never one of the short run's).
    pub fn pathway_name(&self, p: u32) -> String {
        let step = ((self.pathways - 4) / SHORT_PATHWAYS.len() as u32).max(1);
        match p.checked_sub(4) {
            Some(q) if q % step == 0 && ((q / step) as usize) < SHORT_PATHWAYS.len() => SHORT_PATHWAYS[(q / step) as usize].to_string(),
            _ => format!("R-HSA-{}", 1_000_000 + p),
        }
    }

    /// Atoms the files hold (each distinct node and link once).
    pub fn atoms(&self) -> u64 {
        let distinct = |v: &[(u32, u32)]| v.iter().collect::<HashSet<_>>().len() as u64;
        let papers = self.pubmed.iter().map(|&(_, p)| p).collect::<HashSet<_>>().len() as u64;
        // Two atoms an EvaluationLink edge (it and its ListLink), one a
        // MemberLink; the predicates' five nodes.
        let edges = 2 * (distinct(&self.interactions) + distinct(&self.pubmed) + u64::from(self.genes) + 3 * self.expresses.len() as u64);
        let members = distinct(&self.gene_paths) + distinct(&self.protein_paths) + distinct(&self.chebi_paths);
        let ids = u64::from(self.genes) + 2 * self.expresses.len() as u64;
        5 + u64::from(self.genes + self.proteins + self.chebi + self.pathways) + papers + ids + edges + members
    }

    /// Writes the benchmark's data files into `dir`.
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let file =
            |name: &str| -> io::Result<io::BufWriter<std::fs::File>> { Ok(io::BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join(name))?)) };
        let g = Graph::gene_name;
        let mut out = file("biogrid-full.scm")?;
        for &(a, b) in &self.interactions {
            writeln!(out, "(e i (l (g \"{}\")(g \"{}\")))", g(a), g(b))?;
        }
        for &(a, p) in &self.pubmed {
            writeln!(out, "(e d (l (g \"{}\")(c \"PMID:{p}\")))", g(a))?;
        }
        out.flush()?;
        let mut out = file("entrez.scm")?;
        for a in 0..self.genes {
            writeln!(out, "(e z (l (g \"{}\")(c \"entrez:{a}\")))", g(a))?;
        }
        out.flush()?;
        // BioGRID ids: the protein's and its gene's, one number each.
        let mut out = file("uniprot.scm")?;
        for (k, &(a, p)) in self.expresses.iter().enumerate() {
            let protein = Graph::protein_name(p);
            writeln!(out, "(e x (l (g \"{}\")(m \"{protein}\")))", g(a))?;
            writeln!(out, "(e b (l (m \"{protein}\")(c \"Bio:{}\")))", 2 * k)?;
            writeln!(out, "(e b (l (g \"{}\")(c \"Bio:{}\")))", g(a), 2 * k + 1)?;
        }
        out.flush()?;
        let members = |name: &str, edges: &[(u32, u32)], member: &dyn Fn(u32) -> String| -> io::Result<()> {
            let mut out = file(name)?;
            for &(m, p) in edges {
                writeln!(out, "(s {}(c \"{}\"))", member(m), self.pathway_name(p))?;
            }
            out.flush()
        };
        members("reactome-chebi.scm", &self.chebi_paths, &|m| format!("(m \"ChEBI:{m}\")"))?;
        members("reactome-ncbi.scm", &self.gene_paths, &|m| format!("(g \"{}\")", g(m)))?;
        members("reactome-uniprot.scm", &self.protein_paths, &|m| format!("(m \"{}\")", Graph::protein_name(m)))?;
        let mut out = file("gene-list.scm")?;
        writeln!(out, ";; The {} genes whose triangles the benchmark finds.", self.gene_list.len())?;
        write!(out, "(define gene-list (list")?;
        for (k, &a) in self.gene_list.iter().enumerate() {
            write!(out, "{}\"{}\"", if k % 8 == 0 { "\n  " } else { " " }, g(a))?;
        }
        writeln!(out, "))")?;
        out.flush()
    }

    /// The triangle query's answer for each gene of the list: the distinct
    /// pairs (a, b) of genes with edges gene-a, a-b and gene-b, over
    /// [`Self::adjacency`].
    pub fn triangles(&self, out: &[HashSet<u32>]) -> Vec<u64> {
        self.gene_list
            .iter()
            .map(|&gene| {
                let near = &out[gene as usize];
                near.iter().map(|&a| out[a as usize].iter().filter(|b| near.contains(b)).count() as u64).sum()
            })
            .collect()
    }

    /// Each gene's distinct interaction partners (as the edge is written:
    /// from the first to the second).
    pub fn adjacency(&self) -> Vec<HashSet<u32>> {
        let mut out = vec![HashSet::new(); self.genes as usize];
        for &(a, b) in &self.interactions {
            out[a as usize].insert(b);
        }
        out
    }

    /// The pentagon query's answer for pathway `p`, over [`Self::adjacency`]: the distinct
    /// (g1, g2, p1, p2) with p1 and p2 proteins of the pathway, g1
    /// expressing p1, g2 expressing p2 and g1 interacting with g2.
    pub fn pentagons(&self, out: &[HashSet<u32>], p: u32) -> u64 {
        let proteins: HashSet<u32> = self.protein_paths.iter().filter(|&&(_, q)| q == p).map(|&(m, _)| m).collect();
        let expressed: HashSet<(u32, u32)> = self.expresses.iter().copied().filter(|(_, m)| proteins.contains(m)).collect();
        let genes: Vec<u32> = expressed.iter().map(|&(g, _)| g).collect();
        // Each (g1, p1) pairs with every (g2, p2) whose gene g1 interacts with.
        expressed.iter().map(|&(g1, _)| genes.iter().filter(|g2| out[g1 as usize].contains(g2)).count() as u64).sum()
    }

    /// The pathways the genes of the list are members of (the long
    /// pentagon run's), in rank order.
    pub fn gene_list_pathways(&self) -> Vec<u32> {
        let listed: HashSet<u32> = self.gene_list.iter().copied().collect();
        let mut paths: Vec<u32> = self.gene_paths.iter().filter(|(g, _)| listed.contains(g)).map(|&(_, p)| p).collect::<HashSet<_>>().into_iter().collect();
        paths.sort_unstable();
        paths
    }

    /// The rank of the pathway named `name`.
    pub fn pathway_of(&self, name: &str) -> Option<u32> {
        (0..self.pathways).find(|&p| self.pathway_name(p) == name)
    }
}

/// Atoms at the benchmark's full size (about: [`Graph::atoms`] counts).
pub const FULL_ATOMS: u64 = 2_500_000;

/// `generate --shape genomics -n ATOMS -o DIR`: the graph scaled to about
/// `atoms` atoms ([`FULL_ATOMS`] the full size, `query-bench --suite
/// genomics`'s graph; a tenth of it, `--scale 10`'s).
pub fn run(atoms: u64, seed: u64, dir: &Path) -> Result<(), String> {
    let graph = Graph::new(atoms as f64 / FULL_ATOMS as f64, seed);
    graph.write(dir).map_err(|e| format!("writing {}: {e}", dir.display()))?;
    eprintln!(
        "genomics: {} atoms in {} ({} genes, {} interaction lines, {} pathways)",
        graph.atoms(),
        dir.display(),
        graph.genes,
        graph.interactions.len(),
        graph.pathways
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_runs_pathways_are_all_named_once() {
        for scale in [0.003, 0.006, 0.007, 0.012, 0.024, 0.1, 1.0] {
            let graph = Graph::new(scale, 1);
            for name in SHORT_PATHWAYS {
                assert_eq!((0..graph.pathways).filter(|&p| graph.pathway_name(p) == name).count(), 1, "{name} at scale {scale}");
            }
        }
    }

    #[test]
    fn direct_counts_match_a_brute_force_on_a_small_graph() {
        let graph = Graph::new(0.005, 3);
        let edges: HashSet<(u32, u32)> = graph.interactions.iter().copied().collect();
        let gene = graph.gene_list[0];
        let mut brute = 0;
        for a in 0..graph.genes {
            for b in 0..graph.genes {
                brute += u64::from(edges.contains(&(gene, a)) && edges.contains(&(a, b)) && edges.contains(&(gene, b)));
            }
        }
        assert_eq!(graph.triangles(&graph.adjacency())[0], brute);
        let p = 0;
        let members: HashSet<u32> = graph.protein_paths.iter().filter(|&&(_, q)| q == p).map(|&(m, _)| m).collect();
        let mut brute = 0;
        for &(g1, p1) in &graph.expresses.iter().copied().collect::<HashSet<_>>() {
            for &(g2, p2) in &graph.expresses.iter().copied().collect::<HashSet<_>>() {
                brute += u64::from(members.contains(&p1) && members.contains(&p2) && edges.contains(&(g1, g2)));
            }
        }
        assert_eq!(graph.pentagons(&graph.adjacency(), p), brute);
        assert!(brute > 0, "the largest pathway has pentagons");
    }

    #[test]
    fn the_same_seed_gives_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        Graph::new(0.002, 7).write(&a).unwrap();
        Graph::new(0.002, 7).write(&b).unwrap();
        for f in ["biogrid-full.scm", "entrez.scm", "uniprot.scm", "reactome-ncbi.scm", "gene-list.scm"] {
            assert_eq!(std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap(), "{f}");
        }
    }
}

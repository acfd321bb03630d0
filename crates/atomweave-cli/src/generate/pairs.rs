//! `generate --shape pairs`: word-pair counts as the language-learning
//! pipelines store them, at any size:
//!
//! ```text
//! (EvaluationLink (ctv 1 0 COUNT) (PredicateNode "ANY") (ListLink (WordNode A) (WordNode B)))
//! (EvaluationLink (ctv 1 0 COUNT) (PredicateNode "ANY") (ListLink (AnyNode "left-wall") (WordNode B)))
//! ```
//!
//! The pairs first, then each word's marginals (the counts of `(*, B)` and
//! `(A, *)`); a tenth of the pairs carry their mutual information under
//! `(PredicateNode "*-Mutual Info Key-*")` as `(FloatValue MI FMI)`.
//!
//! Words are ranked and drawn from a Zipf distribution over a vocabulary
//! that grows with the size asked for (as a corpus's does); a word's
//! number of partners follows its rank too. Written as generated, in two
//! passes over the same draws (the first sums the marginals the mutual
//! information needs), so memory is the vocabulary's, not the file's.

use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Zipf};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Writes about `n` atoms of word pairs, the same for the same `n` and `seed`.
pub fn write(n: u64, seed: u64, out: &mut dyn Write) -> io::Result<()> {
    let plan = Plan::new(n);
    let mut sums = Sums { left: vec![0; plan.vocabulary], right: vec![0; plan.vocabulary], total: 0, pairs: 0, informed: 0 };
    plan.each_pair(seed, |pair| {
        sums.add(pair);
        Ok(())
    })?;
    writeln!(out, ";; Word pairs: {} atoms, {} words, {} pairs, seed {seed}", sums.atoms(), sums.words(), sums.pairs)?;
    // Each line is made in a String and written whole.
    let mut line = String::new();
    let mut put = |line: &mut String| {
        let written = out.write_all(line.as_bytes());
        line.clear();
        written
    };
    plan.each_pair(seed, |pair| {
        pair_line(&mut line, &pair, &sums);
        put(&mut line)
    })?;
    for (w, (&left, &right)) in sums.left.iter().zip(&sums.right).enumerate() {
        // A word's count as the left of a pair is that of (A, *).
        if left > 0 {
            marginal_line(&mut line, left, Member::Word(w), Member::Any("right-wall"));
            put(&mut line)?;
        }
        if right > 0 {
            marginal_line(&mut line, right, Member::Any("left-wall"), Member::Word(w));
            put(&mut line)?;
        }
    }
    out.flush()
}

/// One pair as drawn: the words' ranks, its count, whether it carries its
/// mutual information.
struct Pair {
    left: usize,
    right: usize,
    count: u64,
    informed: bool,
}

/// The vocabulary and how many partners each word has.
struct Plan {
    vocabulary: usize,
    /// Partners of the word of each rank (before draws that fall short).
    partners: Vec<u32>,
}

impl Plan {
    fn new(n: u64) -> Plan {
        // Heaps' law: a corpus's vocabulary grows as a power of its size.
        let vocabulary = ((4.0 * (n as f64).powf(0.6)) as u64).min(n / 10).max(2) as usize;
        // Four nodes, the words, two marginals (two atoms each) per word.
        let pairs = n.saturating_sub(4 + 5 * vocabulary as u64) / 2;
        // At most an eighth of the vocabulary, so distinct partners are
        // found by drawing in a few tries each.
        let cap = (vocabulary / 8).max(1) as f64;
        let degrees = |scale: f64| (0..vocabulary).map(move |r| (scale / (r + 1) as f64).round().min(cap));
        // The scale whose degrees sum to the pairs asked for.
        let (mut low, mut high) = (0.0, pairs as f64 * 2.0 + 1.0);
        for _ in 0..64 {
            let mid = (low + high) / 2.0;
            if degrees(mid).sum::<f64>() < pairs as f64 {
                low = mid;
            } else {
                high = mid;
            }
        }
        Plan { vocabulary, partners: degrees(high).map(|d| d as u32).collect() }
    }

    /// Calls `f` on every pair, in the same order with the same draws for
    /// the same seed. Partners are drawn by rank from a Zipf distribution;
    /// what a word's draws fall short of passes to the next word.
    fn each_pair(&self, seed: u64, mut f: impl FnMut(Pair) -> io::Result<()>) -> io::Result<()> {
        let zipf = Zipf::new(self.vocabulary as u64, 1.0).expect("a vocabulary of two or more words");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // The left word each right word last paired with, plus one.
        let mut taken = vec![0u32; self.vocabulary];
        let mut short = 0u64;
        for (left, &degree) in self.partners.iter().enumerate() {
            let want = (u64::from(degree) + short).min(self.vocabulary as u64);
            let (mut found, mut tries) = (0, 0);
            while found < want && tries < 16 * want {
                tries += 1;
                let right = zipf.sample(&mut rng) as usize - 1;
                if taken[right] == left as u32 + 1 {
                    continue;
                }
                taken[right] = left as u32 + 1;
                found += 1;
                // Pareto-tailed counts: mostly small, a few large.
                let count = (1.0 / (1.0 - rng.gen::<f64>()).powf(0.8)) as u64;
                f(Pair { left, right, count, informed: rng.gen_ratio(1, 10) })?;
            }
            short = want - found;
        }
        Ok(())
    }
}

/// What the first pass sums: the marginals, the total count, and counts.
struct Sums {
    left: Vec<u64>,
    right: Vec<u64>,
    total: u64,
    pairs: u64,
    informed: u64,
}

impl Sums {
    fn add(&mut self, p: Pair) {
        self.left[p.left] += p.count;
        self.right[p.right] += p.count;
        self.total += p.count;
        self.pairs += 1;
        self.informed += u64::from(p.informed);
    }

    fn words(&self) -> u64 {
        self.left.iter().zip(&self.right).filter(|(&l, &r)| l > 0 || r > 0).count() as u64
    }

    /// Atoms the file makes: the words, `ANY`, the walls, the key, two a pair,
    /// two a marginal.
    fn atoms(&self) -> u64 {
        if self.pairs == 0 {
            return 0;
        }
        let marginals = self.left.iter().chain(&self.right).filter(|&&c| c > 0).count() as u64;
        self.words() + 3 + u64::from(self.informed > 0) + 2 * self.pairs + 2 * marginals
    }
}

/// A member of a pair's ListLink.
#[derive(Copy, Clone)]
enum Member {
    /// A word by rank, named with syllables (rank 0 is "ba"), one name for
    /// each rank.
    Word(usize),
    /// An `AnyNode`: a wall of the marginals.
    Any(&'static str),
}

impl Member {
    /// Pushes the member's text: pushed, not formatted, which made the
    /// whole file a third slower.
    fn push(self, buf: &mut String) {
        match self {
            Member::Any(wall) => {
                buf.push_str("(AnyNode \"");
                buf.push_str(wall);
            }
            Member::Word(rank) => {
                buf.push_str("(WordNode \"");
                push_word(rank, buf);
            }
        }
        buf.push_str("\")");
    }
}

/// The name of the word of rank `rank` (rank 0 is "ba").
pub fn word(rank: usize) -> String {
    let mut name = String::new();
    push_word(rank, &mut name);
    name
}

fn push_word(mut rank: usize, buf: &mut String) {
    const CONSONANTS: &[u8] = b"bdfghklmnprstvz";
    const VOWELS: &[u8] = b"aeiou";
    const SYLLABLES: usize = CONSONANTS.len() * VOWELS.len();
    loop {
        let s = rank % SYLLABLES;
        buf.push(CONSONANTS[s / VOWELS.len()] as char);
        buf.push(VOWELS[s % VOWELS.len()] as char);
        // Bijective: names of one syllable, then of two, and so on.
        rank /= SYLLABLES;
        if rank == 0 {
            break;
        }
        rank -= 1;
    }
}

/// A pair's line: its count, its mutual information if it carries it.
fn pair_line(out: &mut String, p: &Pair, sums: &Sums) {
    use std::fmt::Write as _;
    if p.informed {
        // log2 of how much likelier the pair is than its words apart; the
        // fraction of the pair's own information that is.
        let joint = p.count as f64 / sums.total as f64;
        let apart = sums.left[p.left] as f64 / sums.total as f64 * (sums.right[p.right] as f64 / sums.total as f64);
        let mi = (joint / apart).log2();
        let _ = write!(
            out,
            "(EvaluationLink (alist (cons (PredicateNode \"*-TruthValueKey-*\") (CountTruthValue 1 0 {})) \
             (cons (PredicateNode \"*-Mutual Info Key-*\") (FloatValue {mi} {}))) (PredicateNode \"ANY\") (ListLink ",
            p.count,
            mi / -joint.log2()
        );
    } else {
        let _ = write!(out, "(EvaluationLink (ctv 1 0 {}) (PredicateNode \"ANY\") (ListLink ", p.count);
    }
    list_end(out, Member::Word(p.left), Member::Word(p.right));
}

/// A marginal's line: the count of (A, *) or (*, B).
fn marginal_line(out: &mut String, count: u64, left: Member, right: Member) {
    use std::fmt::Write as _;
    let _ = write!(out, "(EvaluationLink (ctv 1 0 {count}) (PredicateNode \"ANY\") (ListLink ");
    list_end(out, left, right);
}

/// The ListLink's two members and the closing parentheses.
fn list_end(out: &mut String, left: Member, right: Member) {
    left.push(out);
    out.push(' ');
    right.push(out);
    out.push_str("))\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn text(n: u64, seed: u64) -> String {
        let mut out = Vec::new();
        write(n, seed, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The two members' names of a line's ListLink, and its count.
    fn parse(line: &str) -> (String, String, u64) {
        let count = line.split("1 0 ").nth(1).unwrap().split(')').next().unwrap().parse().unwrap();
        let members: Vec<&str> = line.rsplit("(ListLink ").next().unwrap().split('"').collect();
        (members[1].to_owned(), members[3].to_owned(), count)
    }

    #[test]
    fn pairs_are_reproducible_distinct_and_their_marginals_add_up() {
        let t = text(30_000, 7);
        assert_eq!(t, text(30_000, 7));
        assert_ne!(t, text(30_000, 8));
        let (mut pairs, mut informed) = (HashMap::new(), 0);
        let (mut left, mut right) = (HashMap::<String, u64>::new(), HashMap::<String, u64>::new());
        for line in t.lines().skip(1) {
            let (a, b, count) = parse(line);
            if b == "right-wall" {
                assert!(left.insert(a, count).is_none(), "one marginal a word");
            } else if a == "left-wall" {
                assert!(right.insert(b, count).is_none(), "one marginal a word");
            } else {
                informed += usize::from(line.contains("*-Mutual Info Key-*"));
                assert!(pairs.insert((a, b), count).is_none(), "a pair once: {line}");
            }
        }
        let mut sums = (HashMap::<&str, u64>::new(), HashMap::<&str, u64>::new());
        for ((a, b), c) in &pairs {
            *sums.0.entry(a).or_default() += c;
            *sums.1.entry(b).or_default() += c;
        }
        assert_eq!(sums.0.len(), left.len());
        assert!(left.iter().all(|(w, c)| sums.0[w.as_str()] == *c));
        assert!(right.iter().all(|(w, c)| sums.1[w.as_str()] == *c));
        // About a tenth carry their mutual information.
        assert!((pairs.len() / 14..pairs.len() / 7).contains(&informed), "{informed} of {}", pairs.len());
        // Zipf: the commonest word pairs far more than the median one.
        let mut counts: Vec<u64> = left.values().copied().collect();
        counts.sort_unstable();
        assert!(counts[counts.len() - 1] > 50 * counts[counts.len() / 2], "{counts:?}");
    }

    #[test]
    fn the_header_counts_the_atoms_made() {
        let t = text(5_000, 1);
        let header: u64 = t.lines().next().unwrap().split(": ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        use atomweave::AtomRead as _;
        let mut table = atomweave::AtomTable::new();
        atomweave::sexpr::load_str(&mut table, &t).unwrap();
        assert_eq!(table.size() as u64, header);
    }
}

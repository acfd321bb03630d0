//! `generate --shape random`: a random, reproducible Atomese file in the
//! style of real data files: both printed forms, both type-name forms,
//! comments, nested links, truth values and other values. The table is
//! built in memory first (links pick earlier atoms as members).

use std::io::Write;

use atomweave::sexpr::{write_atom, Form};
use atomweave::{types, AtomRead, AtomTable, Handle, TruthValue, Value};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub fn write(atoms: u64, seed: u64, out: &mut dyn Write) -> Result<(), String> {
    let table = random_table(atoms, seed).map_err(|e| e.to_string())?;
    let mut buf = String::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37);
    let io = |e: std::io::Error| format!("writing: {e}");
    writeln!(out, ";; Random Atomese: {} atoms, seed {seed}", table.size()).map_err(io)?;
    let roots: Vec<Handle> = table.all_atoms().filter(|&h| table.incoming_size(h) == Some(0)).collect();
    for h in roots {
        buf.clear();
        if rng.gen_bool(0.01) {
            buf.push_str("; a comment line\n");
        }
        write_atom(&table, h, if rng.gen_bool(0.5) { Form::Repl } else { Form::Wire }, &mut buf).map_err(|e| e.to_string())?;
        buf.push('\n');
        out.write_all(buf.as_bytes()).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// A random table of about `n` atoms: a third nodes, the rest links whose
/// members are earlier atoms, so links nest.
fn random_table(n: u64, seed: u64) -> atomweave::Result<AtomTable> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut t = AtomTable::new();
    let node_types = [types::CONCEPT_NODE, types::PREDICATE_NODE, types::WORD_NODE, types::SCHEMA_NODE];
    let link_types = [types::LIST_LINK, types::INHERITANCE_LINK, types::EVALUATION_LINK, types::SET_LINK, types::MEMBER_LINK, types::SIMILARITY_LINK];
    let weight = t.add_node(types::PREDICATE_NODE, "weight")?;
    let label = t.add_node(types::PREDICATE_NODE, "label")?;
    let mut nodes_made: Vec<Handle> = vec![weight, label];
    let nodes = (n / 3).max(2);
    for i in 0..nodes {
        let ty = node_types[rng.gen_range(0..node_types.len())];
        let name = match rng.gen_range(0..100) {
            0 => format!("odd \"quoted\" \\ name {i}"),
            1 => format!("ünïcödé {i} ✓"),
            _ => format!("n{i}"),
        };
        nodes_made.push(t.add_node(ty, &name)?);
    }
    let mut links_made: Vec<Handle> = Vec::new();
    while (t.size() as u64) < n {
        let ty = link_types[rng.gen_range(0..link_types.len())];
        let arity = rng.gen_range(1..=3);
        // Mostly nodes as members, so links nest a few levels, as in real data.
        let out: Vec<Handle> = (0..arity)
            .map(|_| {
                if links_made.is_empty() || rng.gen_bool(0.75) {
                    nodes_made[rng.gen_range(0..nodes_made.len())]
                } else {
                    links_made[rng.gen_range(0..links_made.len())]
                }
            })
            .collect();
        links_made.push(t.add_link(ty, &out)?);
    }
    for &h in nodes_made.iter().chain(&links_made) {
        match rng.gen_range(0..100) {
            0..=29 => t.set_tv(h, TruthValue::simple(rng.gen(), rng.gen()))?,
            30..=34 => t.set_tv(h, TruthValue::count(rng.gen(), rng.gen(), f64::from(rng.gen_range(0..1000u32))))?,
            _ => {}
        }
        match rng.gen_range(0..100) {
            0..=4 => t.set_value(h, weight, Value::float(vec![rng.gen::<f64>() * 100.0, -1.5]))?,
            5..=6 => t.set_value(h, label, Value::string(["a label", "x"]))?,
            _ => {}
        }
    }
    Ok(t)
}

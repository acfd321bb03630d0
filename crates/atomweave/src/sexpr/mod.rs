//! Atomese s-expressions: the streaming [parser](parse), the [loader](mod@load)
//! that turns expressions into atoms, and the [writer](mod@write) of the REPL and
//! wire forms.

mod data_reader;
mod literals;
pub mod load;
pub mod parse;
mod recorder;
mod utf8;
pub mod write;

pub use crate::read::AtomSource;
pub use crate::value::{AV_KEY, TV_KEY};
pub use load::{check, eval, eval_value, is_tv_key_expr, load, load_from, load_str, lookup, value_key_atoms, LoadError, LoadOptions, LoadStats};
pub use parse::{parse_str, Expr, ParseError, Parser, Place, Pos};
pub use utf8::{refuse_invalid_utf8, scan_utf8, BadUtf8, InvalidUtf8};
pub use write::{
    atom_prefix, atom_to_string, dump, dump_space, fmt_f64, write_atom, write_str_literal, write_structure, write_structure_upto, write_tv, write_value,
    write_value_upto, Form, Select, TooLarge, MAX_PRINTED,
};

//! Delimiter-separated tables (CSV, TSV) read into Values: each column
//! becomes one value on an anchor atom, as upstream's `(opencog csv-table)`
//! `load-table` does. Not a general CSV library: rows are split on commas,
//! tabs and blanks, with `"` quoting and `\` escapes.
//!
//! A column holds a BoolValue when all its cells are `0`/`1`/`T`/`F`/`t`/`f`,
//! a FloatValue when they are numbers (`0` and `1` count as numbers there),
//! and a StringValue otherwise. The first row is the header when some cell
//! of it would make a non-string column a string one; without a header the
//! columns are named `c0`, `c1`, ... Each column goes under
//! `(Predicate NAME)`, and the list of those keys, as a LinkValue, under
//! `(Predicate "*-column-keys-*")`.

use std::io::BufRead;

use crate::{types, AtomSpace, Error, Handle, Result, Value};

/// The key under which [`load_table`] lists the column keys.
pub const COLUMN_KEYS: &str = "*-column-keys-*";

/// What a cell's text looks like, from narrowest to widest.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// `0` or `1`: a boolean, or a number in a number column.
    Digit,
    /// `T`, `F`, `t` or `f`: a boolean only.
    Letter,
    Float,
    String,
}

impl Kind {
    fn of(cell: &str) -> Kind {
        match cell {
            "0" | "1" => Kind::Digit,
            "T" | "F" | "t" | "f" => Kind::Letter,
            _ if cell.starts_with(|c: char| c.is_alphabetic()) => Kind::String,
            _ if cell.parse::<f64>().is_ok() => Kind::Float,
            _ => Kind::String,
        }
    }

    /// The kind of a column holding cells of kinds `self` and `other`.
    fn join(self, other: Kind) -> Kind {
        use Kind::*;
        match (self, other) {
            (a, b) if a == b => a,
            (Digit, Letter) | (Letter, Digit) => Letter,
            (Digit, Float) | (Float, Digit) => Float,
            _ => String,
        }
    }
}

/// Reads the table in `input` into values on `anchor` in `space`, as the
/// module's documentation says, and returns the column keys in order.
/// Nothing is set when the table is malformed (rows of different widths,
/// no rows at all).
pub fn load_table(space: &AtomSpace, anchor: Handle, input: impl BufRead) -> Result<Vec<Handle>> {
    let mut rows = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| Error::InvalidValue(format!("table: line {}: {e}", n + 1)))?;
        if let Some(cells) = row(&line) {
            rows.push((n + 1, cells));
        }
    }
    let Some(((_, first), data)) = rows.split_first() else {
        return Err(Error::InvalidValue("table: no rows (every line is empty or a comment)".into()));
    };
    let width = first.len();
    if let Some((line, cells)) = data.iter().find(|(_, cells)| cells.len() != width) {
        return Err(Error::InvalidValue(format!("table: line {line} has {} columns, the first row has {width}; every row must have as many", cells.len())));
    }
    let column_kind = |cells: &mut dyn Iterator<Item = &String>| cells.map(|c| Kind::of(c)).reduce(Kind::join);
    let data_kinds: Vec<Option<Kind>> = (0..width).map(|i| column_kind(&mut data.iter().map(|(_, r)| &r[i]))).collect();
    let has_header = first.iter().zip(&data_kinds).any(|(cell, kind)| match kind {
        None => Kind::of(cell) == Kind::String,
        Some(k) => *k != Kind::String && k.join(Kind::of(cell)) == Kind::String,
    });
    let (names, body): (Vec<String>, &[(usize, Vec<String>)]) =
        if has_header { (first.clone(), data) } else { ((0..width).map(|i| format!("c{i}")).collect(), &rows[..]) };
    let mut columns = Vec::with_capacity(width);
    for i in 0..width {
        let cells = || body.iter().map(move |(_, r)| r[i].as_str());
        let kind = if has_header { data_kinds[i] } else { column_kind(&mut body.iter().map(|(_, r)| &r[i])) };
        columns.push(match kind {
            Some(Kind::Digit | Kind::Letter) => Value::Bool(cells().map(|c| matches!(c, "1" | "T" | "t")).collect()),
            // Every cell of a number column parses (its kind says so).
            Some(Kind::Float) => Value::Float(cells().map(|c| c.parse().unwrap_or(f64::NAN)).collect()),
            Some(Kind::String) | None => Value::String(cells().map(str::to_owned).collect()),
        });
    }
    let mut keys = Vec::with_capacity(width);
    for (name, column) in names.iter().zip(columns) {
        let key = space.add_node(types::PREDICATE_NODE, name)?;
        space.set_value(anchor, key, column)?;
        keys.push(key);
    }
    let list = space.add_node(types::PREDICATE_NODE, COLUMN_KEYS)?;
    space.set_value(anchor, list, Value::Link(keys.iter().map(|&k| Value::Atom(k)).collect()))?;
    Ok(keys)
}

/// A line's cells, or `None` for a comment (`#`, `;` or `!` first) or an
/// empty line. A byte-order mark is dropped.
fn row(line: &str) -> Option<Vec<String>> {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line).trim_end_matches('\r');
    if line.is_empty() || line.starts_with(['#', ';', '!']) {
        return None;
    }
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => cell.push('\n'),
                Some(e) => cell.push(e),
                None => {}
            },
            '"' => quoted = !quoted,
            ',' | '\t' | ' ' if !quoted => push_cell(&mut cells, &mut cell),
            _ => cell.push(c),
        }
    }
    push_cell(&mut cells, &mut cell);
    (!cells.is_empty()).then_some(cells)
}

/// Ends a cell: blank cells (two separators in a row) are not cells.
fn push_cell(cells: &mut Vec<String>, cell: &mut String) {
    let text = std::mem::take(cell);
    if !text.trim().is_empty() {
        cells.push(text.trim().to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> (AtomSpace, Handle, Result<Vec<Handle>>) {
        let space = AtomSpace::new();
        let anchor = space.add_node(types::CONCEPT_NODE, "table").unwrap();
        let keys = load_table(&space, anchor, text.as_bytes());
        (space, anchor, keys)
    }

    fn column(space: &AtomSpace, anchor: Handle, name: &str) -> Value {
        let key = space.get_node(types::PREDICATE_NODE, name).unwrap();
        space.get_value(anchor, key).unwrap()
    }

    #[test]
    fn columns_are_typed_and_listed_under_the_header_names() {
        let text = "# a comment\n\u{feff}b, x, y, label\n0, 1, 3.5, \"one two\"\n\n1, 0, 4, three\nT, 1, -2e3, \"a \\\"q\\\"\"\n";
        let (space, anchor, keys) = load(text);
        let keys = keys.unwrap();
        assert_eq!(keys.len(), 4);
        assert_eq!(column(&space, anchor, "b"), Value::Bool([false, true, true].into()));
        assert_eq!(column(&space, anchor, "x"), Value::Bool([true, false, true].into()));
        assert_eq!(column(&space, anchor, "y"), Value::Float([3.5, 4.0, -2000.0].into()));
        assert_eq!(column(&space, anchor, "label"), Value::String(["one two".to_owned(), "three".into(), "a \"q\"".into()].into()));
        let list = column(&space, anchor, COLUMN_KEYS);
        assert_eq!(list, Value::Link(keys.iter().map(|&k| Value::Atom(k)).collect()));
    }

    #[test]
    fn digits_in_a_number_column_are_numbers_and_letters_make_it_strings() {
        let (space, anchor, _) = load("n, m\n0, 2.5\n1.5, T\n");
        assert_eq!(column(&space, anchor, "n"), Value::Float([0.0, 1.5].into()));
        assert_eq!(column(&space, anchor, "m"), Value::String(["2.5".to_owned(), "T".into()].into()));
    }

    #[test]
    fn only_a_byte_order_mark_is_dropped_from_a_line() {
        let (space, anchor, _) = load("\u{feff}Émile, n\nx, 1\n");
        assert_eq!(column(&space, anchor, "Émile"), Value::String(["x".to_owned()].into()));
    }

    #[test]
    fn without_a_header_columns_are_numbered() {
        let (space, anchor, keys) = load("1\t2.5\n0\t3\n");
        assert_eq!(keys.unwrap().len(), 2);
        assert_eq!(column(&space, anchor, "c0"), Value::Bool([true, false].into()));
        assert_eq!(column(&space, anchor, "c1"), Value::Float([2.5, 3.0].into()));
    }

    #[test]
    fn ragged_and_empty_tables_are_refused_and_set_nothing() {
        let (space, anchor, keys) = load("a, b\n1, 2\n3\n");
        let err = keys.unwrap_err().to_string();
        assert!(err.contains("line 3 has 1 columns"), "{err}");
        assert!(space.key_values(anchor).is_empty());
        let (_, _, keys) = load("# only a comment\n\n");
        assert!(keys.unwrap_err().to_string().contains("no rows"));
    }
}

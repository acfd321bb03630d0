//! Invalid UTF-8: where a load says it was, what it reads it as, and a
//! strict load's refusal.

use std::io::BufReader;

use super::*;
use crate::sexpr::load_from;
use crate::types::CONCEPT_NODE;
use crate::{AtomRead, AtomTable};

/// Loads `input` as `options` say, reading it `capacity` bytes at a time.
fn load_with(input: &[u8], capacity: usize, options: &mut LoadOptions) -> (AtomTable, Result<u64, LoadError>) {
    let mut table = AtomTable::new();
    let loaded = load_from(&mut table, BufReader::with_capacity(capacity, input), Place::START, options, |_| {});
    (table, loaded.map(|s| s.expressions))
}

/// The places a non-strict load of `input` reports, as (line, column,
/// byte), the same however the input is cut into chunks.
fn places(input: &[u8]) -> Vec<(u32, u32, u8)> {
    let got = |capacity| {
        let options = &mut LoadOptions::default();
        load_with(input, capacity, options).1.unwrap();
        options.invalid_utf8.places.iter().map(|b| (b.pos.line, b.pos.col, b.byte)).collect::<Vec<_>>()
    };
    let whole = got(1 << 16);
    for capacity in [1, 2, 3, 5] {
        assert_eq!(got(capacity), whole, "capacity {capacity}: {input:?}");
    }
    whole
}

#[test]
fn places_count_characters_not_bytes() {
    // é (2 bytes) and € (3 bytes) before the bad byte are a column each.
    assert_eq!(places("(Concept \"é€".as_bytes().iter().chain(b"\xFF\")").copied().collect::<Vec<_>>().as_slice()), [(1, 13, 0xFF)]);
    assert_eq!(places(b"(Concept \"a\")\n(Concept \"\xC3\xA9x\xE2\x82\")"), [(2, 13, 0xE2)]);
    // In a comment, as in a string; after it, a U+FFFD is one column.
    assert_eq!(places(b"; \xFE\xFF\n(Concept \"b\") ; \xC0\n"), [(1, 3, 0xFE), (1, 4, 0xFF), (2, 17, 0xC0)]);
}

#[test]
fn a_bad_sequence_in_a_string_is_read_as_u_fffd_as_guile_reads_it() {
    // A cut-short character is one U+FFFD, each other bad byte one: as
    // `from_utf8_lossy` and Guile's ports read them.
    let input = b"(Concept \"a\xE2\x82Z\xFF\xFEY\")";
    let (table, loaded) = load_with(input, 4, &mut LoadOptions::default());
    assert_eq!(loaded, Ok(1));
    assert!(table.get_node(CONCEPT_NODE, "a\u{FFFD}Z\u{FFFD}\u{FFFD}Y").is_some());
    assert_eq!(places(input), [(1, 12, 0xE2), (1, 14, 0xFF), (1, 15, 0xFE)]);
}

#[test]
fn a_sequence_cut_short_by_the_end_of_the_input() {
    let input = b"(Concept \"a\")\n; the end \xF0\x9F\x98";
    assert_eq!(places(input), [(2, 11, 0xF0)]);
    let e = load_with(input, 2, &mut LoadOptions { strict: true, ..LoadOptions::default() }).1.unwrap_err();
    assert_eq!((e.error.line, e.error.col, e.loaded), (2, 11, 1));
    assert!(e.error.message.contains("invalid UTF-8") && e.error.message.contains("0xF0"), "{e}");
}

#[test]
fn a_strict_load_stops_at_the_first_bad_sequence() {
    let cases = [(&b"(Concept \"a\")\n(Concept \"\xC3\xA9\xFF\")\n(Concept \"c\")"[..], 12), (b"(Concept \"a\")\n ;\xC3\xA9\xFF\n(Concept \"c\")", 4)];
    for (input, col) in cases {
        let options = &mut LoadOptions { strict: true, ..LoadOptions::default() };
        let (table, loaded) = load_with(input, 1 << 16, options);
        let e = loaded.unwrap_err();
        assert_eq!((e.error.line, e.error.col), (2, col), "{e}");
        // As at a bad expression: the expressions before it are loaded.
        assert_eq!(e.loaded, 1);
        assert!(table.get_node(CONCEPT_NODE, "c").is_none());
        assert_eq!(options.invalid_utf8.count, 0);
    }
}

#[test]
fn offsets_after_a_u_fffd_are_the_input_s() {
    // A U+FFFD is longer than the byte it stands for: where the load
    // stops (where a Scheme reader goes on) is still the input's offset,
    // in the first chunk and after many (the buffer drained).
    for filler in [0, 5000] {
        let mut input = b"(Concept \"\xFF\")\n".to_vec();
        for i in 0..filler {
            input.extend_from_slice(format!("(Concept \"n{i}").as_bytes());
            input.extend_from_slice(b"\xFE\")\n");
        }
        // Just past the expression before the one that stops it.
        let stop = input.len() as u64 - 1;
        input.extend_from_slice(b"(define x 1)\n");
        let options = &mut LoadOptions::default();
        let e = load_with(&input, 1 << 12, options).1.unwrap_err();
        assert_eq!((e.at.offset, e.at.pos.line, e.loaded), (stop, filler as u32 + 1, filler as u64 + 1));
        assert_eq!(options.invalid_utf8.count, filler as u64 + 1);
        assert_eq!(options.invalid_utf8.places.len(), SHOWN.min(filler + 1));
    }
}

#[test]
fn text_read_again_is_not_reported_again() {
    // As a file that mixes Scheme and data is read: its rest scanned when
    // Scheme starts, then the data after a form loaded from its place on.
    let input = b"(Concept \"\xFF\")\n(define x 1)\n(Concept \"\xFE\")\n; \xFD\n";
    let options = &mut LoadOptions::default();
    let e = load_with(input, 1 << 16, options).1.unwrap_err();
    scan_utf8(&input[e.at.offset as usize..], e.at, options).unwrap();
    let after = input.iter().position(|&b| b == b'\n').unwrap() + 14;
    let at = Place { offset: after as u64, pos: Pos { line: 3, col: 1 } };
    load_from(&mut AtomTable::new(), &input[after..], at, options, |_| {}).unwrap();
    let got: Vec<_> = options.invalid_utf8.places.iter().map(|b| (b.offset, b.pos.line, b.pos.col)).collect();
    assert_eq!(got, [(10, 1, 11), (37, 3, 11), (43, 4, 3)]);
    assert_eq!(options.invalid_utf8.count, 3);
}

#[test]
fn scan_finds_what_the_loader_finds() {
    let input = b"(Concept \"\xC3\xA9\xFF\")\n\t; \xE2\x82\n; x\xF0\x9F\x98";
    let options = &mut LoadOptions::default();
    scan_utf8(&input[..], Place::START, options).unwrap();
    let scanned: Vec<_> = options.invalid_utf8.places.iter().map(|b| (b.pos.line, b.pos.col, b.byte)).collect();
    assert_eq!(scanned, places(input));
    assert_eq!(scanned.len(), 3);
    let e = scan_utf8(&input[..], Place::START, &mut LoadOptions { strict: true, ..LoadOptions::default() }).unwrap_err();
    assert_eq!((e.error.line, e.error.col, e.loaded), (1, 12, 0));
}

#[test]
fn a_binary_file_s_warnings_are_capped() {
    let input: Vec<u8> = std::iter::repeat_n(b"; \xFF\xFE\n".as_slice(), 20).flatten().copied().collect();
    let options = &mut LoadOptions::default();
    load_with(&input, 1 << 16, options).1.unwrap();
    let warnings = options.invalid_utf8.warnings("f.scm");
    assert_eq!(warnings.len(), SHOWN + 1);
    assert_eq!(warnings[0], "f.scm: line 1, column 3: invalid UTF-8: a bad or cut-short sequence starts with byte 0xFF, read as U+FFFD");
    assert_eq!(warnings[SHOWN], "f.scm: 30 more places of invalid UTF-8, each read as U+FFFD (40 in all)");
    options.invalid_utf8.report("f.scm");
    assert_eq!(options.invalid_utf8, InvalidUtf8::default());
}

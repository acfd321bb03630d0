//! The Atomese reader: the same text read whole and in small pieces, and
//! through the general reader alone (no fast path for plain data), gives
//! the same atoms and the same error, a failing expression adds nothing,
//! and the indexes stay consistent.
#![no_main]

use atomweave::sexpr::{self, LoadOptions, Parser, Place};
use atomweave_fuzz::{assert_same_space, with_spaces, Chunks};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| with_spaces(4, |spaces| {
    let [whole, pieces, general, before] = spaces else { unreachable!() };
    let (sizes, text) = data.split_at(data.len().min(4));

    let whole_result = sexpr::load(&mut &*whole, text, |_| {});
    let pieces_result = sexpr::load(&mut &*pieces, Chunks::new(text, sizes), |_| {});
    assert_eq!(whole_result, pieces_result, "whole and chunked reads disagree");
    assert_same_space(whole, pieces, true);
    let mut options = LoadOptions { general_reader: true, ..LoadOptions::default() };
    let general_result = sexpr::load_from(&mut &*general, Chunks::new(text, sizes), Place::START, &mut options, |_| {});
    assert_eq!(whole_result, general_result, "the fast path and the general reader disagree");
    assert_same_space(whole, general, true);

    // The expressions before a failure, evaluated alone, make exactly what
    // the failed load kept: the failing one added nothing. Invalid UTF-8
    // read as the load reads it by default: as U+FFFD.
    if let Err(e) = whole_result {
        let mut parser = Parser::new(text).read_invalid_utf8();
        for _ in 0..e.loaded {
            let expr = parser.next_expr().unwrap().unwrap();
            sexpr::eval(&mut &*before, &expr).unwrap();
        }
        assert_same_space(before, whole, true);
    }
}));

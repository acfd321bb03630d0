//! The Atomese writer: whatever the reader accepts, the wire form (with
//! values) and the REPL form (with truth values) print it so that reading
//! the print back gives the same atoms.
#![no_main]

use atomweave::sexpr::{self, dump, Form, Select};
use atomweave::AtomSpace;
use atomweave_fuzz::{assert_same_space, with_spaces};
use libfuzzer_sys::fuzz_target;

fn round_trip(space: &AtomSpace, form: Form, back: &AtomSpace) {
    let mut text = Vec::new();
    dump(&space.read().unwrap(), Select::Roots, form, &mut text, |_| {}).unwrap();
    if let Err(e) = sexpr::load(&mut &*back, text.as_slice(), |_| {}) {
        panic!("the {form:?} form does not read back: {e}\n{}", String::from_utf8_lossy(&text));
    }
}

fuzz_target!(|data: &[u8]| with_spaces(3, |spaces| {
    let [space, wire, repl] = spaces else { unreachable!() };
    // What was read before an error is enough to print.
    let _ = sexpr::load(&mut &*space, data, |_| {});
    round_trip(space, Form::Wire, wire);
    assert_same_space(space, wire, true);
    round_trip(space, Form::Repl, repl);
    assert_same_space(space, repl, false);
}));

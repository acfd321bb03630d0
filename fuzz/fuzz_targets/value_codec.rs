//! The stores' binary value codec: any bytes decode to a value or an
//! error, never a panic; what decodes encodes back to the same bytes' value.
#![no_main]

use std::sync::LazyLock;

use atomweave::types::CONCEPT_NODE;
use atomweave::{AtomSpace, Handle, Value};
use atomweave_store::codec::{decode, encode};
use atomweave_store::StoreError;
use libfuzzer_sys::fuzz_target;

// Store ids 0..8 name atoms; any other id is unknown to the store.
static ATOMS: LazyLock<(AtomSpace, Vec<Handle>)> = LazyLock::new(|| {
    let space = AtomSpace::new();
    let atoms = (0..8).map(|i| space.add_node(CONCEPT_NODE, &i.to_string()).unwrap()).collect();
    (space, atoms)
});

fuzz_target!(|data: &[u8]| {
    let atoms = &ATOMS.1;
    let mut atom_of = |id: u64| atoms.get(id as usize).copied().ok_or_else(|| StoreError::Corrupt(format!("no atom {id}")));
    let Ok(value) = decode(data, &mut atom_of) else { return };
    let mut bytes = Vec::new();
    encode(&value, &mut bytes, &mut |h| Ok(atoms.iter().position(|&a| a == h).unwrap() as u64)).unwrap();
    let again: Value = decode(&bytes, &mut atom_of).unwrap();
    assert_eq!(format!("{value:?}"), format!("{again:?}"));
});

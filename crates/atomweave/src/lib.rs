//! atomweave: a fast, compact, thread-safe AtomSpace.
//!
//! This crate is the core: the [type table](types), [atoms and handles](Handle),
//! [values](Value) and [truth values](TruthValue), the raw single-threaded
//! [`AtomTable`] and the thread-safe [`AtomSpace`] with their indexes (name,
//! type, incoming), and the Atomese [s-expression reader and writer](sexpr).
//! It knows nothing of storage backends, servers or language bindings; those
//! are other crates of the workspace.
//!
//! ```
//! use atomweave::{types, AtomSpace, TruthValue};
//! let space = AtomSpace::new();
//! let cat = space.add_node(types::CONCEPT_NODE, "cat").unwrap();
//! let animal = space.add_node(types::CONCEPT_NODE, "animal").unwrap();
//! let inh = space.add_link(types::INHERITANCE_LINK, &[cat, animal]).unwrap();
//! space.set_tv(inh, TruthValue::simple(0.9, 0.8)).unwrap();
//! assert_eq!(&*space.incoming(cat).unwrap(), &[inh]);
//! ```

mod arena;
mod batch;
mod copies;
pub mod csv;
mod dedupe;
mod error;
pub mod foreign;
mod handle;
mod lock;
mod order;
mod pages;
pub mod query;
mod read;
mod segvec;
pub mod sexpr;
mod sink;
mod space;
mod store;
mod table;
pub mod types;
mod value;
mod watch;

pub use batch::{LinkBatch, NodeBatch};
pub use copies::Copies;
pub use error::{Error, Result};
pub use handle::Handle;
pub use order::content_cmp;
pub use read::{AtomRead, AtomSource};
pub use sink::AtomSink;
pub use space::{without_read_through, AtomSpace, BackingStore, Incoming, SpaceRead, WeakSpace};
pub use table::AtomTable;
pub use types::Type;
pub use value::{QueueValue, StreamValue, TruthValue, Value, MAX_VALUE_NESTING, MAX_VALUE_SIZE};
pub use watch::{Change, Changes};

/// Asks the CPU to bring the cache line of `p` in; a no-op where unsupported.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Sizes of the structures an atom costs, for `atomweave bench -t`.
pub fn structure_sizes() -> Vec<(&'static str, usize)> {
    store::structure_sizes()
}

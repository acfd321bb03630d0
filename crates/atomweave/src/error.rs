//! The one error type of the core.

use crate::{Handle, Type};

/// Everything that can go wrong in the core.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    #[error("unknown atom type {0:?}")]
    UnknownType(String),
    #[error("invalid type name {0:?}: use ASCII letters, digits and '_'")]
    InvalidTypeName(String),
    #[error("type definition: {0}")]
    TypeDefinition(String),
    #[error("{0} is not a Node type")]
    NotANodeType(Type),
    #[error("{0} is not a Link type")]
    NotALinkType(Type),
    #[error("no atom with handle {0} in this space (extracted, or from another space)")]
    InvalidHandle(Handle),
    #[error("cannot extract {atom}: {incoming} links contain it (extract recursively to remove them too)")]
    HasIncoming { atom: Handle, incoming: usize },
    #[error("the space has handed out all 2^32 handles; copy its atoms into a new space")]
    HandlesExhausted,
    #[error("{0}")]
    InvalidValue(String),
    #[error("{0}")]
    Hierarchy(String),
    #[error("query: {0}")]
    Query(String),
    #[error("the query was stopped: it ran past its time limit, or was cancelled")]
    TimedOut,
    /// A grounded procedure (`py:f`, `scm:p`) failed, or cannot be called.
    #[error("{0}")]
    Procedure(String),
    /// The user interrupted a grounded procedure the work called (Ctrl-C
    /// in a `py:` callback): the front end raises its own interrupt again
    /// where the work began.
    #[error("interrupted in {0}")]
    Interrupted(String),
    #[error("the AtomSpace is read-only: {0}")]
    ReadOnly(String),
    /// A read-through space could not read its store (`space/read_through.rs`).
    #[error("reading through the store {0}")]
    Backing(String),
    #[error(transparent)]
    Parse(#[from] crate::sexpr::ParseError),
    #[error(transparent)]
    TooLarge(#[from] crate::sexpr::TooLarge),
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

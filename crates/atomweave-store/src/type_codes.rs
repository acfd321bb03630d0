//! A store's own type table: the code it stores for each type, kept by
//! name, so that a store survives changes to atomweave's type table (types
//! added, families registered in another order). Both database stores
//! keep one: LMDB's codes are `u16`s from 0 in its `meta` table,
//! PostgreSQL's `i16`s from 1 in `atomweave_types`.
//!
//! Invariant: a code names one type name for good, and maps to the type
//! of that name; a code the table does not hold is damage
//! ([`StoreError::Corrupt`]), and a name no type here has (a type of
//! another build, or one not registered yet) is a
//! [`StoreError::Backend`] that says to register it, never another type.

use std::cell::Cell;

use atomweave::Type;

use crate::{HashMap, Result, StoreError};

/// A store's type code: `u16` (LMDB) or `i16` (PostgreSQL).
pub(crate) trait Code: Copy + Into<i32> + std::fmt::Display {
    /// The code at `index`, if the code type can hold it.
    fn from_index(index: usize) -> Option<Self>;
}

impl Code for u16 {
    fn from_index(index: usize) -> Option<u16> {
        u16::try_from(index).ok()
    }
}

impl Code for i16 {
    fn from_index(index: usize) -> Option<i16> {
        i16::try_from(index).ok()
    }
}

/// Codes to type names and back.
pub(crate) struct TypeCodes<C> {
    /// Names by code; `None` where no type has the code.
    names: Vec<Option<String>>,
    /// The type of each name, by code, once known here.
    types: Vec<Cell<Option<Type>>>,
    /// Codes by type, for the types known here.
    codes: HashMap<Type, C>,
}

impl<C: Code> Default for TypeCodes<C> {
    fn default() -> Self {
        TypeCodes { names: Vec::new(), types: Vec::new(), codes: HashMap::default() }
    }
}

fn index(code: impl Into<i32>) -> Option<usize> {
    usize::try_from(code.into()).ok()
}

impl<C: Code> TypeCodes<C> {
    /// Forgets every code.
    pub(crate) fn clear(&mut self) {
        *self = TypeCodes::default();
    }

    /// Enters `code` as the store's code of the type named `name`. A code
    /// no index can hold (a negative one) is not entered: it stays unknown.
    pub(crate) fn insert(&mut self, code: C, name: &str) {
        let Some(i) = index(code) else { return };
        if self.names.len() <= i {
            self.names.resize(i + 1, None);
            self.types.resize(i + 1, Cell::new(None));
        }
        let t = Type::from_name(name);
        self.names[i] = Some(name.to_string());
        self.types[i].set(t);
        if let Some(t) = t {
            self.codes.insert(t, code);
        }
    }

    /// How many codes the table spans (LMDB's next code).
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table holds `code`.
    pub(crate) fn holds(&self, code: C) -> bool {
        index(code).and_then(|i| self.names.get(i)).is_some_and(Option::is_some)
    }

    /// Whether `code` names the type named `name`.
    pub(crate) fn names(&self, code: C, name: &[u8]) -> bool {
        index(code).and_then(|i| self.names.get(i)).and_then(Option::as_deref).is_some_and(|n| n.as_bytes() == name)
    }

    /// The code of `t` as the table knows it, without looking for it by name.
    pub(crate) fn known(&self, t: Type) -> Option<C> {
        self.codes.get(&t).copied()
    }

    /// The store's code for `t`, if the table has one: also for a type
    /// registered here after the table was read, found by its name.
    pub(crate) fn code(&mut self, t: Type) -> Option<C> {
        if let Some(c) = self.known(t) {
            return Some(c);
        }
        let i = self.names.iter().position(|n| n.as_deref() == Some(t.name()))?;
        let c = C::from_index(i)?;
        self.types[i].set(Some(t));
        self.codes.insert(t, c);
        Some(c)
    }

    /// The type a stored code names. A name not known here may be a type
    /// family's, registered now (and remembered).
    pub(crate) fn type_of(&self, code: C) -> Result<Type> {
        let i = index(code);
        if let Some(t) = i.and_then(|i| self.types.get(i)).and_then(Cell::get) {
            return Ok(t);
        }
        let Some((i, name)) = i.and_then(|i| Some((i, self.names.get(i)?.as_deref()?))) else {
            return Err(StoreError::Corrupt(format!("type code {code} is not in the store's type table")));
        };
        let t = atomweave::types::from_name_or_family(name)
            .ok_or_else(|| StoreError::Backend(format!("the store holds atoms of type {name}, which is not known here (register it first)")))?;
        self.types[i].set(Some(t));
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomweave::types::{CONCEPT_NODE, LIST_LINK};

    #[test]
    fn codes_name_types_and_unknown_ones_are_clear_errors() {
        let mut codes: TypeCodes<i16> = TypeCodes::default();
        codes.insert(1, "ConceptNode");
        codes.insert(3, "MartianNode");
        assert_eq!((codes.len(), codes.holds(2), codes.holds(3), codes.holds(-1)), (4, false, true, false));
        assert_eq!(codes.type_of(1).unwrap(), CONCEPT_NODE);
        assert_eq!(codes.known(CONCEPT_NODE), Some(1));
        assert!(codes.names(1, b"ConceptNode") && !codes.names(2, b"") && !codes.names(3, b"ConceptNode"));
        let err = codes.type_of(3).unwrap_err().to_string();
        assert!(err.contains("MartianNode") && err.contains("not known here"), "{err}");
        for missing in [2, 9, -4] {
            let err = codes.type_of(missing).unwrap_err();
            assert!(matches!(&err, StoreError::Corrupt(m) if m.contains(&format!("type code {missing} "))), "{err}");
        }
        // A negative code is never entered.
        codes.insert(-2, "ListLink");
        assert_eq!(codes.code(LIST_LINK), None);
        codes.clear();
        assert_eq!((codes.len(), codes.known(CONCEPT_NODE)), (0, None));
    }

    /// A type the table names but did not know when it was read (its name
    /// not registered then) is found by name once it is.
    #[test]
    fn a_type_registered_after_the_table_was_read_is_found_by_name() {
        let name = "TypeCodesTestLateNode";
        let mut codes: TypeCodes<u16> = TypeCodes::default();
        codes.insert(0, "ConceptNode");
        codes.insert(1, name);
        assert!(codes.type_of(1).is_err());
        let t = atomweave::types::register_type(name, &[atomweave::types::NODE], None).unwrap();
        assert_eq!(codes.known(t), None, "not known until looked for");
        assert_eq!(codes.code(t), Some(1));
        assert_eq!(codes.type_of(1).unwrap(), t);
        assert_eq!(u16::from_index(65_536), None);
    }
}

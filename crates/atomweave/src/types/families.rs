//! The type tables of upstream's other modules (NLP, bio, PLN, spacetime,
//! attention) and the types that upstream removed but old files still hold:
//! registered when a user enables a family, as loading the module did
//! upstream. Each table is a script in the core table's format
//! (`types/families/*.script`) that `build.rs` checks (a type's parents are
//! core types or types above it in the same script; no type is in the core
//! table or in two families) and compiles into `FAMILY_TABLES`.
//!
//! Not here: the core table, and types a user registers.

use super::{register_type, Type, FAMILY_TABLES, LINK, NODE};
use crate::error::{Error, Result};

/// The names of the families, in the order documented.
pub fn families() -> impl Iterator<Item = &'static str> {
    FAMILY_TABLES.iter().map(|&(name, _)| name)
}

/// Registers a family's types, in order; returns them. Enabling a family
/// twice is harmless.
pub fn load_family(family: &str) -> Result<Vec<Type>> {
    let &(_, table) = FAMILY_TABLES.iter().find(|&&(name, _)| name == family).ok_or_else(|| {
        let known: Vec<&str> = families().collect();
        Error::TypeDefinition(format!("no type family `{family}` (there are: {})", known.join(", ")))
    })?;
    table
        .iter()
        .map(|&(name, parents, short)| {
            let parents = parents
                .iter()
                .map(|p| Type::from_name(p).ok_or_else(|| Error::TypeDefinition(format!("family {family}: parent {p} of {name} is unknown"))))
                .collect::<Result<Vec<Type>>>()?;
            // A short name some other type took first is left out, not an error.
            let short = Some(short).filter(|s| !s.is_empty() && Type::from_name(s).is_none());
            register_type(name, &parents, short)
        })
        .collect()
}

/// The family that declares a type of this (long or short) name, if any.
pub fn family_of(type_name: &str) -> Option<&'static str> {
    FAMILY_TABLES
        .iter()
        .find(|(_, table)| table.iter().any(|&(name, _, short)| name == type_name || (!short.is_empty() && short == type_name)))
        .map(|&(name, _)| name)
}

/// The type of this name, enabling the family that declares it if no type
/// has the name yet: what a store does with the type names it recorded.
pub fn from_name_or_family(name: &str) -> Option<Type> {
    Type::from_name(name).or_else(|| {
        load_family(family_of(name)?).ok()?;
        Type::from_name(name)
    })
}

/// Declares an unknown type by its name's suffix, as `--declare-unknown`
/// does: `...Node` a Node, `...Link` a Link; anything else is refused.
pub fn declare_by_suffix(name: &str) -> Result<Type> {
    let parent = if name.ends_with("Node") && name.len() > 4 {
        NODE
    } else if name.ends_with("Link") && name.len() > 4 {
        LINK
    } else {
        return Err(Error::TypeDefinition(format!("cannot tell whether the unknown type {name} is a Node or a Link: its name ends in neither")));
    };
    register_type(name, &[parent], None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_loads_with_its_parents_and_names_its_types() {
        for f in families() {
            let made = load_family(f).unwrap_or_else(|e| panic!("{f}: {e}"));
            assert!(!made.is_empty(), "{f}");
            assert_eq!(load_family(f).unwrap(), made, "{f}: enabling twice changes nothing");
            for t in made {
                assert!(t.is_atom() || t.is_a(crate::types::VALUE), "{f}: {t:?}");
                assert_eq!(family_of(t.name()), Some(f), "{t:?} is in one family");
            }
        }
        assert!(Type::from_name("ReferenceLink").is_some_and(|t| t.is_a(LINK)));
        assert!(Type::from_name("GeneNode").is_some_and(|t| t.is_a(NODE)));
        assert_eq!(family_of("ConceptNode"), None);
        assert_eq!(family_of(""), None, "a type without a short name is not named by \"\"");
        assert!(load_family("no-such").unwrap_err().to_string().contains("nlp, bio"));
    }

    #[test]
    fn unknown_types_are_declared_by_suffix_only() {
        assert!(declare_by_suffix("MadeUpThingNode").unwrap().is_a(NODE));
        assert!(declare_by_suffix("MadeUpThingLink").unwrap().is_a(LINK));
        assert!(declare_by_suffix("MadeUpThing").is_err());
        assert!(declare_by_suffix("Node").is_err());
    }
}

//! The atom type table: built-in types generated from `types/atom_types.script`,
//! plus types registered at run time.
//!
//! A [`Type`] is a small integer. `is_a` is one bit test: every type carries a
//! bitset of its ancestors (itself included). Built-in types live in static
//! tables; run-time types are appended to a fixed-capacity, lock-free-readable
//! registry, so lookups never take a lock.

mod families;
pub use families::{declare_by_suffix, families, family_of, from_name_or_family, load_family};

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{OnceLock, RwLock};

use crate::error::{Error, Result};

/// An atom or value type. Compare with the generated constants ([`CONCEPT_NODE`], ...).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Type(pub(crate) u16);

include!(concat!(env!("OUT_DIR"), "/builtin_types.rs"));

/// Most types a process can know; atom records keep the type in 12 bits.
pub const MAX_TYPES: usize = 4096;

struct UserType {
    name: String,
    short: Option<String>,
    parents: Vec<Type>,
    ancestors: Box<[u64]>,
}

struct Registry {
    /// Run-time types, slot `i` holds type `BUILTIN_COUNT + i`.
    user: Box<[OnceLock<UserType>]>,
    /// Long and short names to types; written only while registering.
    names: RwLock<NameTable>,
    /// Number of types: written under `names`' write lock, after the new
    /// type is published; read without a lock (front ends check it often,
    /// to see whether types were registered).
    count: AtomicUsize,
}

struct NameTable {
    long: HashMap<String, Type>,
    short: HashMap<String, Type>,
}

/// Long and short names of the built-in types (short names follow the
/// script's rule: the later line wins). Readers look a type up per atom,
/// so names of up to 16 bytes (nearly all) sit in a table probed by the
/// name's bytes read as two words: no hash over the bytes, no `memcmp`.
struct BuiltinNames {
    /// Open addressing: the name's `words`, and its length and type
    /// (`len << 16 | type`; 0 for an empty entry).
    short: Box<[(u64, u64, u32)]>,
    /// Names longer than 16 bytes.
    long: hashbrown::HashMap<&'static str, Type, foldhash::fast::FixedState>,
}

/// A name of 1 to 16 bytes as two words: its first and last eight bytes
/// (overlapping where it is shorter), or four, or its bytes; with its
/// length, they are the name.
#[inline]
fn words(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("eight bytes"));
    let half = |at: usize| u64::from(u32::from_le_bytes(b[at..at + 4].try_into().expect("four bytes")));
    if n >= 8 {
        (word(0), word(n - 8))
    } else if n >= 4 {
        (half(0), half(n - 4))
    } else {
        (b.iter().fold(0, |w, &x| w << 8 | u64::from(x)), 0)
    }
}

impl BuiltinNames {
    fn new() -> Self {
        let names = BUILTIN_NAMES.iter().enumerate().chain(BUILTIN_SHORT.iter().enumerate().filter(|(_, s)| !s.is_empty()));
        let size = (4 * (BUILTIN_NAMES.len() + BUILTIN_SHORT.len())).next_power_of_two();
        let mut me = BuiltinNames { short: vec![(0, 0, 0); size].into_boxed_slice(), long: Default::default() };
        for (i, name) in names {
            let t = Type(i as u16);
            if name.len() > 16 {
                me.long.insert(name, t);
                continue;
            }
            let (a, b) = words(name.as_bytes());
            let mut at = me.home(a, b, name.len());
            // An equal name (a short name given again) is replaced.
            while me.short[at].2 != 0 && !(me.short[at].0 == a && me.short[at].1 == b && (me.short[at].2 >> 16) as usize == name.len()) {
                at = (at + 1) & (size - 1);
            }
            me.short[at] = (a, b, (name.len() as u32) << 16 | u32::from(t.0));
        }
        me
    }

    #[inline]
    fn home(&self, a: u64, b: u64, len: usize) -> usize {
        let mixed = (a ^ b.rotate_left(29) ^ (len as u64) << 58).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> (64 - self.short.len().trailing_zeros())) as usize
    }

    #[inline]
    fn get(&self, name: &str) -> Option<Type> {
        let bytes = name.as_bytes();
        if bytes.len() > 16 {
            return self.long.get(name).copied();
        }
        if bytes.is_empty() {
            return None;
        }
        let (a, b) = words(bytes);
        let mut at = self.home(a, b, bytes.len());
        loop {
            let (ea, eb, meta) = self.short[at];
            if meta == 0 {
                return None;
            }
            if ea == a && eb == b && (meta >> 16) as usize == bytes.len() {
                return Some(Type(meta as u16));
            }
            at = (at + 1) & (self.short.len() - 1);
        }
    }
}

fn builtin_names() -> &'static BuiltinNames {
    static NAMES: OnceLock<BuiltinNames> = OnceLock::new();
    NAMES.get_or_init(BuiltinNames::new)
}

fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| {
        let mut long = HashMap::new();
        let mut short = HashMap::new();
        for i in 0..BUILTIN_COUNT {
            long.insert(BUILTIN_NAMES[i].to_string(), Type(i as u16));
            if !BUILTIN_SHORT[i].is_empty() {
                short.insert(BUILTIN_SHORT[i].to_string(), Type(i as u16));
            }
        }
        Registry {
            user: (BUILTIN_COUNT..MAX_TYPES).map(|_| OnceLock::new()).collect(),
            names: RwLock::new(NameTable { long, short }),
            count: AtomicUsize::new(BUILTIN_COUNT),
        }
    })
}

impl Type {
    /// The type's number in the table.
    #[inline]
    pub fn id(self) -> u16 {
        self.0
    }

    /// The type with this number, if it is known.
    pub fn from_id(id: u16) -> Option<Type> {
        let t = Type(id);
        (usize::from(id) < BUILTIN_COUNT || user_type(t).is_some()).then_some(t)
    }

    /// Is `self` the type `sup` or one of its descendants?
    #[inline]
    pub fn is_a(self, sup: Type) -> bool {
        let (s, p) = (usize::from(self.0), usize::from(sup.0));
        if s < BUILTIN_COUNT {
            p < BUILTIN_COUNT && BUILTIN_ANCESTORS[s][p / 64] & (1 << (p % 64)) != 0
        } else {
            user_type(self).is_some_and(|u| u.ancestors.get(p / 64).is_some_and(|w| w & (1 << (p % 64)) != 0))
        }
    }

    /// A Node type (ConceptNode, ...).
    #[inline]
    pub fn is_node(self) -> bool {
        self.is_a(NODE)
    }

    /// A Link type (ListLink, ...).
    #[inline]
    pub fn is_link(self) -> bool {
        self.is_a(LINK)
    }

    /// A Link type whose atoms may also be leaves that carry a name, as
    /// upstream's foreign abstract syntax trees (`ForeignAst`, `SexprAst`,
    /// ...) are: such a leaf is kept as a node of the link type.
    #[inline]
    pub fn has_named_leaves(self) -> bool {
        self.is_a(FOREIGN_AST)
    }

    /// An atom type, that is, a Node or Link type that can be added to a space.
    #[inline]
    pub fn is_atom(self) -> bool {
        self.is_node() || self.is_link()
    }

    /// Links of this type (StateLink, GrantLink) are added by key: adding
    /// one may replace another of its key (a StateLink) or give the one
    /// there (a GrantLink), so the order such links are added in counts.
    #[inline]
    pub fn is_added_by_key(self) -> bool {
        matches!(self, STATE_LINK | GRANT_LINK)
    }

    /// Links of this type are identified regardless of the order of their outgoing set.
    #[inline]
    pub fn is_unordered(self) -> bool {
        self.is_a(UNORDERED_LINK)
    }

    /// The long name: `ConceptNode`.
    pub fn name(self) -> &'static str {
        let i = usize::from(self.0);
        if i < BUILTIN_COUNT {
            BUILTIN_NAMES[i]
        } else {
            user_type(self).map_or("<unknown type>", |u| u.name.as_str())
        }
    }

    /// The short (Scheme constructor) name: `Concept`, if the type has one.
    pub fn short_name(self) -> Option<&'static str> {
        let i = usize::from(self.0);
        if i < BUILTIN_COUNT {
            Some(BUILTIN_SHORT[i]).filter(|s| !s.is_empty())
        } else {
            user_type(self).and_then(|u| u.short.as_deref())
        }
    }

    /// The direct parents.
    pub fn parents(self) -> Vec<Type> {
        let i = usize::from(self.0);
        if i < BUILTIN_COUNT {
            BUILTIN_PARENTS[i].iter().map(|&p| Type(p)).collect()
        } else {
            user_type(self).map(|u| u.parents.clone()).unwrap_or_default()
        }
    }

    /// Looks a type up by its long name (`ConceptNode`) or short name (`Concept`).
    pub fn from_name(name: &str) -> Option<Type> {
        // Built-in names are looked up without a lock: readers call this per atom.
        if let Some(t) = builtin_names().get(name) {
            return Some(t);
        }
        let names = registry().names.read().unwrap_or_else(|e| e.into_inner());
        names.long.get(name).or_else(|| names.short.get(name)).copied()
    }

    /// Looks a type up by its long name only.
    pub fn from_long_name(name: &str) -> Option<Type> {
        let names = registry().names.read().unwrap_or_else(|e| e.into_inner());
        names.long.get(name).copied()
    }

    /// Every known type, built-in first, in table order.
    pub fn all() -> Vec<Type> {
        (0..type_count() as u16).map(Type).collect()
    }

    /// Every known type that `is_a(self)`, `self` included.
    pub fn subtypes(self) -> Vec<Type> {
        Type::all().into_iter().filter(|t| t.is_a(self)).collect()
    }
}

/// Number of known types, built-in and registered.
pub fn type_count() -> usize {
    registry().count.load(Ordering::Acquire)
}

fn user_type(t: Type) -> Option<&'static UserType> {
    let i = usize::from(t.0).checked_sub(BUILTIN_COUNT)?;
    registry().user.get(i)?.get()
}

/// Registers a new type at run time, as upstream modules load extra type tables.
///
/// Registering a name that already exists with the same parents returns the
/// existing type; with different parents it is an error.
pub fn register_type(name: &str, parents: &[Type], short: Option<&str>) -> Result<Type> {
    let valid = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid(name) || short.is_some_and(|s| !valid(s)) {
        return Err(Error::InvalidTypeName(name.to_string()));
    }
    if parents.is_empty() {
        return Err(Error::TypeDefinition(format!("type {name} needs at least one parent")));
    }
    let reg = registry();
    let mut names = reg.names.write().unwrap_or_else(|e| e.into_inner());
    if let Some(&t) = names.long.get(name) {
        let mut have = t.parents();
        let mut want = parents.to_vec();
        have.sort();
        want.sort();
        if have == want {
            return Ok(t);
        }
        return Err(Error::TypeDefinition(format!("type {name} already exists with other parents")));
    }
    if names.short.contains_key(name) {
        return Err(Error::TypeDefinition(format!("the name of type {name} clashes with an existing type's short name")));
    }
    if let Some(s) = short.filter(|s| names.long.contains_key(*s) || names.short.contains_key(*s)) {
        return Err(Error::TypeDefinition(format!("the short name {s} of type {name} clashes with an existing type name")));
    }
    // The write lock is held: no other registration changes the count.
    let id = reg.count.load(Ordering::Relaxed);
    for &p in parents {
        if usize::from(p.0) >= id {
            return Err(Error::TypeDefinition(format!("parent type #{} of {name} does not exist", p.0)));
        }
    }
    let (node, link) = (parents.iter().any(|p| p.is_a(NODE)), parents.iter().any(|p| p.is_a(LINK)));
    if node && link {
        return Err(Error::TypeDefinition(format!("type {name} cannot be both a Node and a Link")));
    }
    if id >= MAX_TYPES {
        return Err(Error::TypeDefinition(format!("cannot register {name}: the table holds {MAX_TYPES} types at most")));
    }
    let mut ancestors = vec![0u64; id / 64 + 1];
    ancestors[id / 64] |= 1 << (id % 64);
    for &p in parents {
        for (w, word) in ancestors.iter_mut().enumerate() {
            let pi = usize::from(p.0);
            if pi < BUILTIN_COUNT {
                *word |= BUILTIN_ANCESTORS[pi].get(w).copied().unwrap_or(0);
            } else if let Some(u) = user_type(p) {
                *word |= u.ancestors.get(w).copied().unwrap_or(0);
            }
        }
    }
    let user = UserType { name: name.to_string(), short: short.map(str::to_string), parents: parents.to_vec(), ancestors: ancestors.into_boxed_slice() };
    let t = Type(id as u16);
    // Publish the slot before the name, so a name lookup never yields a half-made type.
    assert!(reg.user[id - BUILTIN_COUNT].set(user).is_ok());
    names.long.insert(name.to_string(), t);
    if let Some(s) = short {
        names.short.insert(s.to_string(), t);
    }
    reg.count.store(id + 1, Ordering::Release);
    Ok(t)
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Checks a node type (or a link type whose leaves carry names).
#[inline]
pub(crate) fn node_type(t: Type) -> Result<()> {
    if t.is_node() || t.has_named_leaves() {
        Ok(())
    } else {
        Err(Error::NotANodeType(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-probed table finds exactly the built-in names a plain map
    /// of them finds (short names overriding as the script says), and
    /// nothing for any one-byte change of them, a prefix or an extension.
    #[test]
    fn builtin_names_are_found_as_a_plain_map_finds_them() {
        let mut plain = std::collections::HashMap::new();
        for (i, name) in BUILTIN_NAMES.iter().enumerate() {
            plain.insert(name.to_string(), Type(i as u16));
        }
        for (i, short) in BUILTIN_SHORT.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            plain.insert(short.to_string(), Type(i as u16));
        }
        let names = builtin_names();
        let mut tried = 0;
        for name in plain.keys() {
            let mut variants = vec![name.clone(), format!("{name}x"), name[..name.len() - 1].to_string(), format!("x{name}")];
            for at in 0..name.len() {
                for c in [b'a', b'Z', b'0', b'-'] {
                    let mut b = name.clone().into_bytes();
                    b[at] = c;
                    variants.push(String::from_utf8(b).expect("ASCII"));
                }
            }
            for v in variants {
                assert_eq!(names.get(&v), plain.get(&v).copied(), "{v:?}");
                tried += 1;
            }
        }
        assert!(tried > 10_000, "{tried}");
        assert_eq!(names.get(""), None);
    }

    #[test]
    fn table_holds_upstream_types() {
        // The 225 types of upstream's table, then WordNode, ParseNode, the
        // six StorageNode types, the ten of the proxies and the attention
        // module's AttentionValue.
        assert_eq!(BUILTIN_COUNT, 245);
        assert!(WRITE_BUFFER_PROXY_NODE.is_a(WRITE_THRU_PROXY_NODE) && PROXY_NODE.is_a(STORAGE_NODE));
        assert_eq!(Type::from_name("WriteThruProxy"), Some(WRITE_THRU_PROXY_NODE));
        assert!(ATTENTION_VALUE.is_a(FLOAT_VALUE) && !ATTENTION_VALUE.is_atom());
        assert!(ROCKS_STORAGE_NODE.is_a(STORAGE_NODE) && STORAGE_NODE.is_a(NODE));
        assert_eq!(Type::from_name("Word"), Some(WORD_NODE));
        assert_eq!(Type::from_name("ConceptNode"), Some(CONCEPT_NODE));
        assert_eq!(Type::from_name("Concept"), Some(CONCEPT_NODE));
        assert_eq!(CONCEPT_NODE.short_name(), Some("Concept"));
        assert_eq!(Type::from_name("NoSuchNode"), None);
        assert_eq!(SET_TV_LINK.name(), "SetTVLink");
        assert_eq!(LOG2_LINK.name(), "Log2Link");
        // Later lines win a short-name clash, as upstream's bindings do.
        assert_eq!(Type::from_name("Tag"), Some(TAG_LINK));
    }

    #[test]
    fn inheritance() {
        assert!(CONCEPT_NODE.is_a(NODE) && CONCEPT_NODE.is_a(ATOM) && CONCEPT_NODE.is_a(VALUE));
        assert!(!CONCEPT_NODE.is_a(LINK));
        assert!(GLOB_NODE.is_a(VARIABLE_NODE));
        assert!(SET_LINK.is_unordered() && !LIST_LINK.is_unordered());
        assert!(EVALUATION_LINK.is_a(FREE_LINK) && EVALUATION_LINK.is_a(EVALUATABLE_LINK));
        assert!(GET_LINK.is_a(PATTERN_LINK) && BIND_LINK.is_a(QUERY_LINK));
        assert!(SIMPLE_TRUTH_VALUE.is_a(FLOAT_VALUE) && !SIMPLE_TRUTH_VALUE.is_atom());
        assert!(INHERITANCE_LINK.is_a(INHERITANCE_LINK));
        assert!(!NODE.is_a(CONCEPT_NODE));
    }

    #[test]
    fn runtime_registration() {
        let t = register_type("TestGeneNode", &[CONCEPT_NODE], Some("TestGene")).unwrap();
        assert!(t.is_a(CONCEPT_NODE) && t.is_a(NODE) && t.is_node());
        assert!(!CONCEPT_NODE.is_a(t));
        assert_eq!(Type::from_name("TestGene"), Some(t));
        assert_eq!(register_type("TestGeneNode", &[CONCEPT_NODE], None).unwrap(), t);
        assert!(register_type("TestGeneNode", &[LIST_LINK], None).is_err());
        let sub = register_type("TestSubGeneNode", &[t], None).unwrap();
        assert!(sub.is_a(CONCEPT_NODE) && sub.is_a(t));
        assert!(register_type("bad name", &[NODE], None).is_err());
        assert!(register_type("Concept", &[NODE], None).is_err());
        assert!(register_type("TestFooNode", &[NODE], Some("Concept")).is_err(), "a short name is taken once");
        assert!(register_type("TestFooNode", &[NODE], Some("TestGene")).is_err());
        assert!(t.subtypes().contains(&sub));
    }
}

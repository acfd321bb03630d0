//! Links that gather and reshape collections: CollectionOf, Concatenate,
//! Split, IncomingOf, TypeOf and ElementOf.
//!
//! A collection is a link's members or a LinkValue's items; a type given
//! first (`(CollectionOf (Type 'ListLink) X)`) says what to build: a link
//! of that type, added to the space, or a LinkValue.

use super::flow::{self, atom_of, numbers};
use super::{bad, describe, type_of};
use crate::error::Result;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, Value};

/// The link types this module executes.
pub(crate) fn is_collect(t: Type) -> bool {
    matches!(
        t,
        types::COLLECTION_OF_LINK | types::CONCATENATE_LINK | types::SPLIT_LINK | types::INCOMING_OF_LINK | types::TYPE_OF_LINK | types::ELEMENT_OF_LINK
    )
}

/// Executes collection link `h`.
pub(crate) fn execute(space: &AtomSpace, h: Handle) -> Result<Value> {
    let t = type_of(space, h)?;
    let out = space.outgoing(h).unwrap_or(&[]);
    match t {
        types::COLLECTION_OF_LINK | types::CONCATENATE_LINK | types::SPLIT_LINK => {
            let (kind, arg) = match *out {
                [arg] => (if t == types::COLLECTION_OF_LINK { types::SET_LINK } else { types::LINK_VALUE }, arg),
                [kind, arg] => (flow::named_type(space, kind)?, arg),
                _ => return Err(bad(format!("{} must hold what it collects, after an optional type", describe(space, h)))),
            };
            if !(kind.is_link() || kind.is_a(types::LINK_VALUE)) {
                return Err(bad(format!("{}: {} is neither a link type nor a LinkValue", describe(space, h), kind.name())));
            }
            let v = if type_of(space, arg)?.is_a(types::EXECUTABLE_LINK) { flow::execute(space, arg)? } else { Value::Atom(arg) };
            let items = match t {
                types::COLLECTION_OF_LINK => items_of(space, &v, h)?,
                types::CONCATENATE_LINK => items_of(space, &v, h)?.into_iter().flat_map(|i| items_of(space, &i, h).unwrap_or_else(|_| vec![i])).collect(),
                _ => split(space, &v, h)?,
            };
            make(space, kind, items, h)
        }
        types::INCOMING_OF_LINK => {
            let (atom, only) = match *out {
                [a] => (a, None),
                [a, k] => (a, Some(k)),
                _ => return Err(bad(format!("{} must hold an atom, and optionally a type", describe(space, h)))),
            };
            let Value::Atom(atom) = flow::execute(space, atom)? else { return Ok(Value::link(Vec::<Value>::new())) };
            let only = match only {
                Some(k) => Some(match flow::execute(space, k)? {
                    Value::Atom(k) => flow::named_type(space, k)?,
                    _ => return Err(bad(format!("{}: the type must be a TypeNode", describe(space, h)))),
                }),
                None => None,
            };
            let links: Vec<Value> =
                space.incoming(atom).into_iter().flatten().filter(|&l| only.is_none_or(|k| space.get_type(l) == Some(k))).map(Value::Atom).collect();
            Ok(Value::link(links))
        }
        types::TYPE_OF_LINK => {
            let mut names = Vec::with_capacity(out.len());
            for &m in out {
                let v = flow::execute(space, m)?;
                let mt = match &v {
                    Value::Atom(a) => type_of(space, *a)?,
                    v => v.value_type(),
                };
                names.push(Value::Atom(space.add_node(types::TYPE_NODE, mt.name())?));
            }
            Ok(Value::link(names))
        }
        types::ELEMENT_OF_LINK => {
            let [which, from] = *out else { return Err(bad(format!("{} must hold indexes and what they index", describe(space, h)))) };
            let idx = flow::execute(space, which)?;
            let idx = match &idx {
                Value::Float(_) => numbers(space, &idx, which)?.0,
                Value::Atom(a) if space.get_type(*a) == Some(types::NUMBER_NODE) => numbers(space, &idx, which)?.0,
                _ => return Err(bad(format!("{}: the indexes must be numbers", describe(space, h)))),
            };
            let v = flow::execute(space, from)?;
            let at = |n: usize| -> Result<Vec<usize>> {
                idx.iter()
                    .map(|&d| {
                        let i = (d + 0.5).trunc();
                        if i >= 0.0 && (i as usize) < n {
                            Ok(i as usize)
                        } else {
                            Err(bad(format!("{}: index {d} is out of range (0 to {})", describe(space, h), n as i64 - 1)))
                        }
                    })
                    .collect()
            };
            Ok(match &v {
                Value::Float(x) => Value::float(at(x.len())?.into_iter().map(|i| x[i]).collect::<Vec<_>>()),
                Value::String(x) => Value::string(at(x.len())?.into_iter().map(|i| x[i].clone())),
                Value::Bool(x) => Value::bool(at(x.len())?.into_iter().map(|i| x[i]).collect::<Vec<_>>()),
                Value::Link(_) | Value::Queue(_) => {
                    let items = items_of(space, &v, h)?;
                    Value::link(at(items.len())?.into_iter().map(|i| items[i].clone()).collect::<Vec<_>>())
                }
                Value::Atom(a) if space.get_type(*a) == Some(types::NUMBER_NODE) => {
                    let x = numbers(space, &v, from)?.0;
                    let picked: Vec<f64> = at(x.len())?.into_iter().map(|i| x[i]).collect();
                    Value::Atom(space.add_node(types::NUMBER_NODE, &super::eval::number_name(&picked))?)
                }
                Value::Atom(a) if type_of(space, *a)?.is_link() => {
                    let members = space.outgoing(*a).unwrap_or(&[]);
                    let picked: Vec<Handle> = at(members.len())?.into_iter().map(|i| members[i]).collect();
                    Value::Atom(space.add_link(type_of(space, *a)?, &picked)?)
                }
                other => return Err(bad(format!("{}: a {} has no elements", describe(space, h), other.value_type().name()))),
            })
        }
        _ => unreachable!("is_collect"),
    }
}

/// The items of a collection: a link's members, a LinkValue's items; a
/// node is a collection of itself.
fn items_of(space: &AtomSpace, v: &Value, at: Handle) -> Result<Vec<Value>> {
    Ok(match v {
        Value::Atom(a) if type_of(space, *a)?.is_link() => space.outgoing(*a).unwrap_or(&[]).iter().map(|&m| Value::Atom(m)).collect(),
        Value::Atom(_) => vec![v.clone()],
        Value::Link(vs) => vs.to_vec(),
        Value::Queue(q) => q.snapshot(),
        Value::Void => Vec::new(),
        other => return Err(bad(format!("{} collects atoms or LinkValues, not a {}", describe(space, at), other.value_type().name()))),
    })
}

/// The words of a node's name (nodes of its type) or of a StringValue's
/// strings (a StringValue each), split at white space.
fn split(space: &AtomSpace, v: &Value, at: Handle) -> Result<Vec<Value>> {
    Ok(match v {
        Value::Atom(a) if type_of(space, *a)?.is_node() => {
            let t = type_of(space, *a)?;
            let name = space.name(*a).unwrap_or_default().to_string();
            name.split_whitespace().map(|w| space.add_node(t, w).map(Value::Atom)).collect::<Result<_>>()?
        }
        Value::String(ss) => ss.iter().flat_map(|s| s.split_whitespace()).map(|w| Value::string([w])).collect(),
        Value::Link(vs) if vs.len() == 1 => split(space, &vs[0], at)?,
        Value::Link(vs) => vs.iter().map(|x| split(space, x, at).map(Value::link)).collect::<Result<_>>()?,
        other => return Err(bad(format!("{} splits a node's name or StringValues, not {}", describe(space, at), flow::show(space, other)))),
    })
}

/// `items` as a link of type `kind` (added to the space) or a LinkValue.
fn make(space: &AtomSpace, kind: Type, items: Vec<Value>, at: Handle) -> Result<Value> {
    if kind.is_link() {
        let atoms = items.into_iter().map(|v| atom_of(space, v, at)).collect::<Result<Vec<_>>>()?;
        return Ok(Value::Atom(space.add_link(kind, &atoms)?));
    }
    flow::build(space, kind, items, at)
}

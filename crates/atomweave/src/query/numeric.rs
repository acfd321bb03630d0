//! The numeric and boolean function links: Log2, Pow, Sine, Floor,
//! Heaviside, Min, Max, RandomNumber, Accumulate; BoolAnd, BoolOr,
//! BoolNot, Impulse, Decimate; RandomChoice and Sleep.
//!
//! Each argument is executed first (a one-member SetLink, what a GetLink
//! finds, stands for its member). Over NumberNodes the result is a
//! NumberNode, as upstream's; where a FloatValue (or a truth value) flows
//! in, a FloatValue. An argument that is not a number is an error naming
//! it: upstream would give the link back partly reduced, which a caller
//! cannot tell from a result.

use std::time::{Duration, Instant};

use super::flow::{self, numbers};
use super::{bad, describe, type_of};
use crate::error::Result;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, Value};

/// The link types this module executes.
pub(crate) fn is_numeric(t: Type) -> bool {
    matches!(
        t,
        types::LOG2_LINK
            | types::POW_LINK
            | types::SINE_LINK
            | types::FLOOR_LINK
            | types::HEAVISIDE_LINK
            | types::MIN_LINK
            | types::MAX_LINK
            | types::RANDOM_NUMBER_LINK
            | types::ACCUMULATE_LINK
            | types::BOOL_AND_LINK
            | types::BOOL_OR_LINK
            | types::BOOL_NOT_LINK
            | types::IMPULSE_LINK
            | types::DECIMATE_LINK
            | types::RANDOM_CHOICE_LINK
            | types::SLEEP_LINK
    )
}

/// Executes numeric or boolean link `h`.
pub(crate) fn execute(space: &AtomSpace, h: Handle) -> Result<Value> {
    let t = type_of(space, h)?;
    let out = space.outgoing(h).unwrap_or(&[]);
    let arg = |m: Handle| flow::execute(space, m);
    let nums = |m: Handle| numbers(space, &arg(m)?, m);
    let result = |v: Vec<f64>, node: bool| number_result(space, v, node);
    let arity = |n: usize| -> Result<()> {
        if out.len() == n {
            Ok(())
        } else {
            Err(bad(format!("{} takes {n} argument{}, found {}", describe(space, h), if n == 1 { "" } else { "s" }, out.len())))
        }
    };
    match t {
        types::LOG2_LINK | types::SINE_LINK | types::FLOOR_LINK | types::HEAVISIDE_LINK => {
            arity(1)?;
            let f = |x: f64| match t {
                types::LOG2_LINK => x.log2(),
                types::SINE_LINK => x.sin(),
                types::FLOOR_LINK => x.floor(),
                // The sign bit decides: -0 and -NaN are below.
                _ => f64::from(u8::from(!x.is_sign_negative())),
            };
            let (v, node) = nums(out[0])?;
            result(v.into_iter().map(f).collect(), node)
        }
        types::POW_LINK | types::RANDOM_NUMBER_LINK => {
            arity(2)?;
            let ((x, xn), (y, yn)) = (nums(out[0])?, nums(out[1])?);
            let f = |a: f64, b: f64| if t == types::POW_LINK { a.powf(b) } else { a + (b - a) * rand::random::<f64>() };
            let v: Vec<f64> = match (x.len(), y.len()) {
                (1, _) => y.iter().map(|&b| f(x[0], b)).collect(),
                (_, 1) => x.iter().map(|&a| f(a, y[0])).collect(),
                _ => x.iter().zip(&y).map(|(&a, &b)| f(a, b)).collect(),
            };
            result(v, xn && yn)
        }
        types::MIN_LINK | types::MAX_LINK => {
            let mut acc: Option<Vec<f64>> = None;
            let mut node = false;
            for &m in out {
                let (v, n) = nums(m)?;
                node |= n;
                acc = Some(match acc {
                    None => v,
                    Some(a) => {
                        a.iter().zip(&v).map(|(&r, &x)| if (t == types::MIN_LINK && x < r) || (t == types::MAX_LINK && r < x) { x } else { r }).collect()
                    }
                });
            }
            let acc = acc.ok_or_else(|| bad(format!("{} takes one argument or more", describe(space, h))))?;
            result(acc, node)
        }
        types::ACCUMULATE_LINK => {
            arity(1)?;
            accumulate(space, out[0], arg(out[0])?)
        }
        types::BOOL_AND_LINK | types::BOOL_OR_LINK => {
            let and = t == types::BOOL_AND_LINK;
            let mut acc: Option<Vec<bool>> = None;
            for &m in out {
                let v = bools(space, &arg(m)?, m)?;
                acc = Some(match acc {
                    None => v,
                    Some(a) => fold_bools(&a, &v, and),
                });
            }
            Ok(Value::bool(acc.unwrap_or_else(|| vec![and])))
        }
        types::BOOL_NOT_LINK => {
            arity(1)?;
            Ok(Value::bool(bools(space, &arg(out[0])?, out[0])?.into_iter().map(|b| !b).collect::<Vec<_>>()))
        }
        types::IMPULSE_LINK => {
            arity(1)?;
            Ok(Value::float(bools(space, &arg(out[0])?, out[0])?.into_iter().map(f64::from).map(|x| x.min(1.0)).collect::<Vec<_>>()))
        }
        types::DECIMATE_LINK => {
            arity(2)?;
            decimate(space, h, out, arg(out[0])?, arg(out[1])?)
        }
        types::RANDOM_CHOICE_LINK => random_choice(space, h),
        types::SLEEP_LINK => {
            arity(1)?;
            sleep(space, h, out[0], arg(out[0])?)
        }
        _ => unreachable!("is_numeric"),
    }
}

/// Numbers as a value: a NumberNode where they were computed from
/// NumberNodes, else a FloatValue.
fn number_result(space: &AtomSpace, v: Vec<f64>, node: bool) -> Result<Value> {
    Ok(if node { Value::Atom(space.add_node(types::NUMBER_NODE, &super::eval::number_name(&v))?) } else { Value::float(v) })
}

/// (Accumulate X): the sum of X's numbers; of a LinkValue (a query's
/// results), its FloatValues summed elementwise; of booleans, how many hold.
fn accumulate(space: &AtomSpace, at: Handle, v: Value) -> Result<Value> {
    let items = match &v {
        Value::Bool(bs) => return Ok(Value::float([bs.iter().filter(|&&b| b).count() as f64])),
        Value::Link(vs) => vs.to_vec(),
        Value::Queue(q) => q.snapshot(),
        v => {
            let (x, node) = numbers(space, v, at)?;
            return number_result(space, vec![x.iter().sum()], node);
        }
    };
    // A LinkValue (a query's results): the FloatValues in it, summed elementwise.
    let mut sum: Vec<f64> = Vec::new();
    for item in items {
        let Value::Float(x) = item else { continue };
        sum = match (sum.len(), x.len()) {
            (0, _) => x.to_vec(),
            (_, 1) => sum.iter().map(|s| s + x[0]).collect(),
            (1, _) => x.iter().map(|v| v + sum[0]).collect(),
            _ => (0..sum.len().max(x.len())).map(|i| sum.get(i).unwrap_or(&0.0) + x.get(i).unwrap_or(&0.0)).collect(),
        };
    }
    Ok(Value::float(sum))
}

/// (Decimate MASK DATA): the items of DATA where MASK holds.
fn decimate(space: &AtomSpace, h: Handle, out: &[Handle], mask: Value, data: Value) -> Result<Value> {
    let mask: Vec<bool> = match mask {
        Value::Bool(bs) => bs.to_vec(),
        v => numbers(space, &v, out[0])?.0.into_iter().map(|x| x > 0.0).collect(),
    };
    let keep = |n: usize| (0..n.min(mask.len())).filter(|&i| mask[i]);
    Ok(match data {
        Value::Float(x) => Value::float(keep(x.len()).map(|i| x[i]).collect::<Vec<_>>()),
        Value::String(s) => Value::string(keep(s.len()).map(|i| s[i].clone())),
        Value::Bool(b) => Value::bool(keep(b.len()).map(|i| b[i]).collect::<Vec<_>>()),
        Value::Link(vs) => Value::link(keep(vs.len()).map(|i| vs[i].clone()).collect::<Vec<_>>()),
        Value::Atom(a) if space.get_type(a) == Some(types::NUMBER_NODE) => {
            let x = numbers(space, &Value::Atom(a), out[1])?.0;
            number_result(space, keep(x.len()).map(|i| x[i]).collect(), true)?
        }
        Value::Atom(a) if space.get_type(a).is_some_and(|t| t.is_link()) => {
            let members = space.outgoing(a).unwrap_or(&[]);
            Value::Atom(space.add_link(type_of(space, a)?, &keep(members.len()).map(|i| members[i]).collect::<Vec<_>>())?)
        }
        other => return Err(bad(format!("{}: {} cannot be decimated", describe(space, h), other.value_type().name()))),
    })
}

/// (Sleep SECONDS): waits, in short steps, so a query's deadline or cancel
/// stops it.
fn sleep(space: &AtomSpace, h: Handle, at: Handle, v: Value) -> Result<Value> {
    let secs = match v {
        Value::Float(x) if !x.is_empty() => x[0],
        v => numbers(space, &v, at)?.0.first().copied().unwrap_or(0.0),
    };
    if !(0.0..=1e9).contains(&secs) {
        return Err(bad(format!("{}: cannot sleep {secs} seconds", describe(space, h))));
    }
    // In short steps, so a query's deadline or cancel stops it.
    let until = Instant::now() + Duration::from_secs_f64(secs);
    while let Some(left) = until.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
        super::check_deadline()?;
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
    number_result(space, vec![0.0], true)
}

/// The booleans of a BoolValue.
fn bools(space: &AtomSpace, v: &Value, at: Handle) -> Result<Vec<bool>> {
    match v {
        Value::Bool(b) => Ok(b.to_vec()),
        other => Err(bad(format!("{} gives a {}, not a BoolValue", describe(space, at), other.value_type().name()))),
    }
}

/// Two boolean vectors combined pointwise: one of length 1 stands for
/// every place; past the shorter one's end, And is false and Or keeps the
/// longer one's.
fn fold_bools(a: &[bool], b: &[bool], and: bool) -> Vec<bool> {
    let op = |x: bool, y: bool| if and { x && y } else { x || y };
    match (a.len(), b.len()) {
        (1, _) => b.iter().map(|&y| op(a[0], y)).collect(),
        (_, 1) => a.iter().map(|&x| op(x, b[0])).collect(),
        (n, m) => (0..n.max(m))
            .map(|i| match (a.get(i), b.get(i)) {
                (Some(&x), Some(&y)) => op(x, y),
                (Some(&x), None) | (None, Some(&x)) => !and && x,
                (None, None) => unreachable!("within the longer"),
            })
            .collect(),
    }
}

/// `(RandomChoice CHOICES)`, a Set or List of them (of `(List WEIGHT
/// CHOICE)` pairs: weighted); `(RandomChoice (List WEIGHTS...) (List
/// CHOICES...))`; else one of its members. The choice is not executed.
fn random_choice(space: &AtomSpace, h: Handle) -> Result<Value> {
    let out = space.outgoing(h).unwrap_or(&[]);
    let weight = |w: Handle| -> Result<f64> {
        let v = flow::execute(space, w)?;
        match numbers(space, &v, w)?.0[..] {
            [x] if x >= 0.0 && x.is_finite() => Ok(x),
            _ => Err(bad(format!("{}: the weight {} is not one number, 0 or more", describe(space, h), describe(space, w)))),
        }
    };
    let first = match out.first() {
        Some(&f) if type_of(space, f)?.is_a(types::EXECUTABLE_LINK) => match flow::execute(space, f)? {
            Value::Atom(a) => a,
            _ => f,
        },
        Some(&f) => f,
        None => return Err(bad(format!("{} has nothing to choose from", describe(space, h)))),
    };
    let members = |l: Handle| space.outgoing(l).unwrap_or(&[]);
    let (weights, choices): (Vec<f64>, Vec<Handle>) = match (out.len(), space.get_type(first)) {
        (1, Some(types::SET_LINK | types::LIST_LINK)) => {
            let all = members(first);
            if all.is_empty() {
                return Err(bad(format!("{} has nothing to choose from", describe(space, h))));
            }
            let pairs = all.iter().all(|&m| space.get_type(m) == Some(types::LIST_LINK) && members(m).len() == 2);
            if pairs {
                (all.iter().map(|&p| weight(members(p)[0])).collect::<Result<_>>()?, all.iter().map(|&p| members(p)[1]).collect())
            } else {
                (vec![1.0; all.len()], all.to_vec())
            }
        }
        (2, Some(types::LIST_LINK)) => {
            let (ws, cs) = (members(first), members(out[1]));
            if ws.len() != cs.len() {
                return Err(bad(format!("{}: {} weights for {} choices", describe(space, h), ws.len(), cs.len())));
            }
            (ws.iter().map(|&w| weight(w)).collect::<Result<_>>()?, cs.to_vec())
        }
        _ => (vec![1.0; out.len()], out.to_vec()),
    };
    let total: f64 = weights.iter().sum();
    if choices.is_empty() || total <= 0.0 {
        return Err(bad(format!("{}: the weights sum to nothing", describe(space, h))));
    }
    let mut pick = rand::random::<f64>() * total;
    for (w, c) in weights.iter().zip(&choices) {
        if pick < *w {
            return Ok(Value::Atom(*c));
        }
        pick -= w;
    }
    Ok(Value::Atom(*choices.last().expect("not empty")))
}

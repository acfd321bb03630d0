//! Values: the data attached to atoms under atom keys, truth values among them.
//!
//! Values are immutable; vector values share their buffer (`Arc`), so reading
//! a value out of a space costs a reference-count increment, not a copy.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::types::{self, Type};
use crate::Handle;

/// Name of the key under which upstream keeps truth values.
pub const TV_KEY: &str = "*-TruthValueKey-*";
/// Name of the key under which attention values `(av sti lti vlti)` are kept.
pub const AV_KEY: &str = "*-AttentionValueKey-*";

/// A truth value: upstream's SimpleTruthValue or CountTruthValue.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TruthValue {
    /// `(stv strength confidence)`.
    Simple { strength: f64, confidence: f64 },
    /// `(ctv mean confidence count)`.
    Count { mean: f64, confidence: f64, count: f64 },
}

impl TruthValue {
    /// The truth value after `increment_count(n)`, as upstream's
    /// `cog-inc-count!`: a CountTruthValue keeps its mean and confidence
    /// and adds `n` to its count; any other truth value is replaced by
    /// `(ctv 1 0 n)`.
    pub(crate) fn incremented(self, n: f64) -> TruthValue {
        match self {
            TruthValue::Count { mean, confidence, count } => TruthValue::count(mean, confidence, count + n),
            TruthValue::Simple { .. } => TruthValue::count(1.0, 0.0, n),
        }
    }

    /// Upstream's default: `(stv 1 0)`; an atom holding it stores nothing.
    pub const DEFAULT: TruthValue = TruthValue::Simple { strength: 1.0, confidence: 0.0 };

    /// `(stv s c)`.
    pub fn simple(strength: f64, confidence: f64) -> Self {
        TruthValue::Simple { strength, confidence }
    }

    /// `(ctv m c n)`.
    pub fn count(mean: f64, confidence: f64, count: f64) -> Self {
        TruthValue::Count { mean, confidence, count }
    }

    /// Strength (simple) or mean (count).
    pub fn mean(&self) -> f64 {
        match *self {
            TruthValue::Simple { strength, .. } => strength,
            TruthValue::Count { mean, .. } => mean,
        }
    }

    /// The confidence.
    pub fn confidence(&self) -> f64 {
        match *self {
            TruthValue::Simple { confidence, .. } | TruthValue::Count { confidence, .. } => confidence,
        }
    }

    /// The count: upstream derives it from the confidence for simple truth
    /// values, `count = K * c / (1 - c)` with K = 800.
    pub fn count_of(&self) -> f64 {
        match *self {
            TruthValue::Simple { confidence, .. } => {
                let c = confidence.min(0.9999998);
                800.0 * c / (1.0 - c)
            }
            TruthValue::Count { count, .. } => count,
        }
    }

    /// Is this the default truth value?
    pub fn is_default(&self) -> bool {
        *self == TruthValue::DEFAULT
    }

    /// SimpleTruthValue or CountTruthValue.
    pub fn value_type(&self) -> Type {
        match self {
            TruthValue::Simple { .. } => types::SIMPLE_TRUTH_VALUE,
            TruthValue::Count { .. } => types::COUNT_TRUTH_VALUE,
        }
    }

    /// The numbers, as a FloatValue would hold them.
    pub fn to_vec(&self) -> Vec<f64> {
        match *self {
            TruthValue::Simple { strength, confidence } => vec![strength, confidence],
            TruthValue::Count { mean, confidence, count } => vec![mean, confidence, count],
        }
    }
}

impl Default for TruthValue {
    fn default() -> Self {
        TruthValue::DEFAULT
    }
}

/// LinkValues nest at most this deep in a space, in Atomese text and in a
/// store, so that every walk over a value (its drop and comparison
/// included, which recurse) stays shallow.
pub const MAX_VALUE_NESTING: usize = 256;

/// Most elements a value in a space may hold, a part that several
/// LinkValues share counted at each place: 2^28. Stores, copies and
/// printouts write a shared part out at every place, so a LinkValue
/// doubling one value 40 times (2^40 elements) would fill any memory.
pub const MAX_VALUE_SIZE: usize = 1 << 28;

/// A value: what an atom holds under a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// FloatValue: a vector of doubles.
    Float(Arc<[f64]>),
    /// StringValue: a vector of strings.
    String(Arc<[String]>),
    /// BoolValue: a vector of booleans.
    Bool(Arc<[bool]>),
    /// LinkValue: a vector of values and atoms.
    Link(Arc<[Value]>),
    /// VoidValue: no data.
    Void,
    /// A truth value.
    Truth(TruthValue),
    /// An atom used as a value (inside a LinkValue, or on its own).
    Atom(Handle),
    /// An AtomSpace held as a value (upstream's episodic spaces):
    /// `(AtomSpace "name")`.
    Space(SpaceValue),
    /// QueueValue: a LinkValue read from the front, what MeetLink and
    /// QueryLink give.
    Queue(QueueValue),
    /// A value computed each time it is read: RandomStream, FormulaStream,
    /// FutureStream, FormulaTruthValue.
    Stream(StreamValue),
}

/// A stream: a value computed anew each time it is read ([`sample`](Self::sample)).
/// Whoever copies it out (a printout, a store, Python) gets one reading.
#[derive(Clone)]
pub struct StreamValue(Arc<Stream>);

enum Stream {
    /// `(RandomStream N)`: N numbers drawn uniformly from [0, 1).
    Random(usize),
    /// Atoms of a space executed at each reading: a FormulaStream (their
    /// numbers, one after the other), a FutureStream (a LinkValue of what
    /// each gives), a FormulaTruthValue (a strength and a confidence).
    Computed { kind: Type, space: crate::WeakSpace, atoms: Vec<Handle>, read: ReadStream },
}

/// How a computed stream is read (see [`StreamValue::with_reader`]).
pub(crate) type ReadStream = fn(&StreamValue) -> crate::Result<Value>;

impl StreamValue {
    /// `(RandomStream n)`.
    pub fn random(n: usize) -> Self {
        StreamValue(Arc::new(Stream::Random(n)))
    }

    /// A stream of type `kind` over `atoms` of `space`, read by `read`:
    /// the executor, which the constructor in [`query`](crate::query)
    /// gives, so that values never call up into execution.
    pub(crate) fn with_reader(kind: Type, space: &crate::AtomSpace, atoms: Vec<Handle>, read: ReadStream) -> Self {
        StreamValue(Arc::new(Stream::Computed { kind, space: space.downgrade(), atoms, read }))
    }

    /// The stream's type.
    pub fn stream_type(&self) -> Type {
        match &*self.0 {
            Stream::Random(_) => types::RANDOM_STREAM,
            Stream::Computed { kind, .. } => *kind,
        }
    }

    /// How many numbers a RandomStream draws (`None` for other streams).
    pub fn random_len(&self) -> Option<usize> {
        match &*self.0 {
            Stream::Random(n) => Some(*n),
            Stream::Computed { .. } => None,
        }
    }

    /// The space its atoms belong to, while it lives (`None` for a RandomStream).
    pub fn space(&self) -> Option<crate::AtomSpace> {
        match &*self.0 {
            Stream::Random(_) => None,
            Stream::Computed { space, .. } => space.upgrade(),
        }
    }

    /// The atoms it runs (none for a RandomStream).
    pub fn atoms(&self) -> &[Handle] {
        match &*self.0 {
            Stream::Random(_) => &[],
            Stream::Computed { atoms, .. } => atoms,
        }
    }

    /// One reading: a FloatValue, a LinkValue or a truth value.
    pub fn sample(&self) -> crate::Result<Value> {
        match &*self.0 {
            Stream::Random(n) => Ok(Value::float((0..*n).map(|_| rand::random::<f64>()).collect::<Vec<_>>())),
            Stream::Computed { read, .. } => read(self),
        }
    }
}

/// Streams are equal when they are one stream: comparing readings would run them.
impl PartialEq for StreamValue {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for StreamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({} over {:?})", self.stream_type().name(), self.atoms())
    }
}

/// A queue of values: a LinkValue to whoever reads it whole, one value at
/// a time to `StreamValueOf`, which takes from its front. Its values are
/// given when it is made and only taken out after, so a queue never holds
/// itself.
#[derive(Clone)]
pub struct QueueValue(Arc<std::sync::Mutex<std::collections::VecDeque<Value>>>);

impl QueueValue {
    /// A queue of `items`, front first.
    pub fn new(items: impl IntoIterator<Item = Value>) -> Self {
        QueueValue(Arc::new(std::sync::Mutex::new(items.into_iter().collect())))
    }

    fn items(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Value>> {
        // A panic while holding it leaves a whole queue (pushes and pops do not panic midway).
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What it holds now, front first.
    pub fn snapshot(&self) -> Vec<Value> {
        self.items().iter().cloned().collect()
    }

    /// Takes the front value, if any.
    pub fn pop(&self) -> Option<Value> {
        self.items().pop_front()
    }

    /// How many values it holds now.
    pub fn len(&self) -> usize {
        self.items().len()
    }

    /// Is it empty now?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PartialEq for QueueValue {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.snapshot() == other.snapshot()
    }
}

impl std::fmt::Debug for QueueValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("QueueValue").field(&self.snapshot()).finish()
    }
}

/// An AtomSpace held in a value. Dropping the last one may drop a space
/// whose values hold spaces, and so on down a chain of any length: those
/// are dropped in a loop on this thread, not by recursion.
#[derive(Clone, PartialEq)]
pub struct SpaceValue(Option<crate::AtomSpace>);

impl SpaceValue {
    /// The space.
    pub fn space(&self) -> &crate::AtomSpace {
        self.0.as_ref().expect("set until dropped")
    }
}

impl From<crate::AtomSpace> for SpaceValue {
    fn from(s: crate::AtomSpace) -> Self {
        SpaceValue(Some(s))
    }
}

impl std::fmt::Debug for SpaceValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "(AtomSpace {:?})", self.space().space_name())
    }
}

thread_local! {
    /// Is this thread dropping a held space? Then the ones that frees wait here.
    static DROPPING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static PENDING: std::cell::RefCell<Vec<crate::AtomSpace>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for SpaceValue {
    fn drop(&mut self) {
        let Some(space) = self.0.take() else { return };
        if DROPPING.get() {
            PENDING.with_borrow_mut(|p| p.push(space));
            return;
        }
        DROPPING.set(true);
        drop(space);
        while let Some(s) = PENDING.with_borrow_mut(Vec::pop) {
            drop(s);
        }
        DROPPING.set(false);
    }
}

impl Value {
    /// FloatValue from numbers.
    pub fn float(v: impl Into<Vec<f64>>) -> Self {
        Value::Float(v.into().into())
    }

    /// StringValue from strings.
    pub fn string<S: Into<String>>(v: impl IntoIterator<Item = S>) -> Self {
        Value::String(v.into_iter().map(Into::into).collect())
    }

    /// BoolValue from booleans.
    pub fn bool(v: impl Into<Vec<bool>>) -> Self {
        Value::Bool(v.into().into())
    }

    /// LinkValue from values.
    pub fn link(v: impl Into<Vec<Value>>) -> Self {
        Value::Link(v.into().into())
    }

    /// How deep LinkValues nest in this value: 0 for any other value, 1
    /// for a LinkValue of plain values.
    pub fn nesting(&self) -> usize {
        self.shape().0
    }

    /// How deep LinkValues (and QueueValues) nest in this value, and how
    /// many elements it holds (a vector's elements, atoms, truth values,
    /// LinkValues), a part shared by several LinkValues counted at each
    /// place, as a copy or a printout has it. Walked with a stack and a
    /// memo of the shared parts: a LinkValue of two copies of one, 256
    /// times over, is measured in 256 steps, not 2^256. QueueValues count
    /// as LinkValues wherever they are. A list that held itself (none can
    /// be made: values are built from their members, and queues are only
    /// ever popped) would measure as `usize::MAX` deep, not loop.
    pub fn shape(&self) -> (usize, usize) {
        fn flat(v: &Value) -> usize {
            match v {
                Value::Float(x) => x.len().max(1),
                Value::String(x) => x.len().max(1),
                Value::Bool(x) => x.len().max(1),
                _ => 1,
            }
        }
        // Most values are flat: no stack or memo for them (set_value asks every time).
        let Some(root) = List::of(self) else { return (0, flat(self)) };
        // A list's shape, or None while its members are being measured.
        let mut memo: HashMap<usize, Option<(usize, usize)>> = HashMap::new();
        // (a list, whether its members were measured)
        let mut todo: Vec<(List, bool)> = vec![(root, false)];
        while let Some((list, ready)) = todo.pop() {
            if !ready {
                if memo.contains_key(&list.key) {
                    continue;
                }
                memo.insert(list.key, None);
                // Measured once the members pushed above it are.
                let items = list.items.clone();
                todo.push((list, true));
                for inner in items.iter() {
                    let Some(key) = list_key(inner) else { continue };
                    match memo.get(&key) {
                        // Being measured, so on the path to this list.
                        Some(None) => return (usize::MAX, usize::MAX),
                        Some(Some(_)) => {}
                        None => todo.extend(List::of(inner).map(|l| (l, false))),
                    }
                }
                continue;
            }
            let mut shape = (1usize, 1usize);
            for v in list.items.iter() {
                let (depth, size) = match list_key(v) {
                    Some(key) => memo[&key].unwrap_or((usize::MAX, usize::MAX)),
                    None => (0, flat(v)),
                };
                shape = (shape.0.max(depth.saturating_add(1)), shape.1.saturating_add(size));
            }
            memo.insert(list.key, Some(shape));
        }
        memo[&list_key(self).unwrap_or_default()].unwrap_or((usize::MAX, usize::MAX))
    }

    /// The atoms the value holds, each once, in order of first appearance:
    /// a walk with a stack and a memo of the lists already seen, so shared
    /// parts and queues that hold themselves cost their size once.
    pub fn atoms(&self) -> Vec<Handle> {
        let mut out = Vec::new();
        let mut seen_atoms: HashSet<Handle> = HashSet::new();
        let mut seen: HashSet<usize> = HashSet::new();
        // Lists and where their walk stands.
        let mut todo: Vec<(List, usize)> = Vec::new();
        let mut visit = |v: &Value, todo: &mut Vec<(List, usize)>| match v {
            Value::Atom(h) => {
                if seen_atoms.insert(*h) {
                    out.push(*h);
                }
            }
            other => {
                // A queue is copied only the first time it is met.
                if list_key(other).is_some_and(|key| seen.insert(key)) {
                    todo.extend(List::of(other).map(|l| (l, 0)));
                }
            }
        };
        visit(self, &mut todo);
        while let Some((list, i)) = todo.pop() {
            if let Some(v) = list.items.get(i) {
                let v = v.clone();
                todo.push((list, i + 1));
                visit(&v, &mut todo);
            }
        }
        out
    }

    /// An error unless LinkValues nest at most [`MAX_VALUE_NESTING`] deep
    /// in the value and it holds at most [`MAX_VALUE_SIZE`] elements, its
    /// shared parts counted at each place ([`shape`](Self::shape)).
    pub fn check_shape(&self) -> crate::Result<()> {
        let (depth, size) = self.shape();
        if depth > MAX_VALUE_NESTING {
            return Err(crate::Error::InvalidValue(format!("LinkValues nest at most {MAX_VALUE_NESTING} deep")));
        }
        if size > MAX_VALUE_SIZE {
            return Err(crate::Error::InvalidValue(format!(
                "the value holds more than {MAX_VALUE_SIZE} elements, counting a part it shares at each place it occurs (as a copy, a store or a printout has it)"
            )));
        }
        Ok(())
    }

    /// The value's type (FloatValue, StringValue, ...; for an atom, its handle's type is
    /// not known here, so [`types::ATOM`]).
    pub fn value_type(&self) -> Type {
        match self {
            Value::Float(_) => types::FLOAT_VALUE,
            Value::String(_) => types::STRING_VALUE,
            Value::Bool(_) => types::BOOL_VALUE,
            Value::Link(_) => types::LINK_VALUE,
            Value::Void => types::VOID_VALUE,
            Value::Truth(tv) => tv.value_type(),
            Value::Atom(_) => types::ATOM,
            Value::Space(_) => types::ATOM_SPACE,
            Value::Queue(_) => types::QUEUE_VALUE,
            Value::Stream(s) => s.stream_type(),
        }
    }

    /// The truth value, if this is one.
    pub fn as_truth(&self) -> Option<TruthValue> {
        match self {
            Value::Truth(tv) => Some(*tv),
            _ => None,
        }
    }
}

impl From<TruthValue> for Value {
    fn from(tv: TruthValue) -> Self {
        Value::Truth(tv)
    }
}

impl From<Handle> for Value {
    fn from(h: Handle) -> Self {
        Value::Atom(h)
    }
}
/// The members of a LinkValue, or a snapshot of a QueueValue's, named by
/// the list (or the queue) they belong to: what walks over a value's
/// nesting step through, owning what they hold, so that a queue's
/// snapshot lives as long as its walk needs it.
struct List {
    key: usize,
    items: Arc<[Value]>,
}

impl List {
    fn of(v: &Value) -> Option<List> {
        match v {
            Value::Link(items) => Some(List { key: list_key(v)?, items: items.clone() }),
            Value::Queue(q) => Some(List { key: list_key(v)?, items: q.snapshot().into() }),
            _ => None,
        }
    }
}

/// The key [`List::of`] gives a LinkValue or QueueValue, without a snapshot.
fn list_key(v: &Value) -> Option<usize> {
    match v {
        Value::Link(items) => Some(items.as_ptr() as usize),
        Value::Queue(q) => Some(Arc::as_ptr(&q.0) as *const () as usize),
        _ => None,
    }
}

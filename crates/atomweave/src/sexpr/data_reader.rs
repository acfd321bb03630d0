//! The loader's fast path: top-level expressions of the shapes data files
//! are made of, recorded straight from the parser's buffered text into a
//! batch, with no expression tree and no allocation per token.
//!
//! It takes atoms (`(Type "name" ...)`, `(Type member ...)`), the truth
//! values written in them (`(stv s c)`, `(ctv m c n)` and their long
//! names), attention values (`(av sti lti vlti)`) and `alist`s of truth
//! values, FloatValues and StringValues (the wire form's), separated by
//! whitespace and `;` comments. Everything else
//! (Scheme, other values, other comments, quotes, deep nesting, and every
//! error) it declines, and the general reader (`parse`, then `load`'s
//! `Builder`) reads that expression. So it is only ever a faster way to
//! the same result: it makes the same calls on the batch, in the same
//! order, as the `Builder` would for the expressions it takes. A property
//! test (`tests/fast_load.rs`) and the `read` fuzz target hold it to that.

use std::borrow::Cow;

use memchr::{memchr, memchr2};
use smallvec::SmallVec;

use super::literals::{number_prefix, parse_number, unescape};
use super::load::is_attached_value;
use super::parse::DELIMITER;
use super::recorder::{Batch, Recorder};
use crate::sink::AtomSink;
use crate::types::{self, Type};
use crate::value::{AV_KEY, TV_KEY};
use crate::{Handle, TruthValue, Value};

/// How far a scan got.
pub(crate) enum Scan {
    /// One whole top-level expression was recorded; it and the whitespace
    /// and comments before it are this many bytes.
    Read(usize),
    /// The text ends inside the expression: more input may complete it.
    More,
    /// Not a shape this path takes: the general reader must read it.
    Other,
}

/// Why a step stopped: the two ways a scan declines.
enum Stop {
    More,
    Other,
}

type Step<T> = Result<T, Stop>;

/// Links nested deeper than this go to the general reader (whose walk has
/// its own bound); real data nests a few levels.
const MAX_DEPTH: usize = 64;

/// Records the top-level expression at the start of `text` (after any
/// whitespace and line comments) into `batch`, or records nothing and says
/// why not.
pub(crate) fn record(batch: &mut Batch, text: &str) -> Scan {
    let mark = batch.mark();
    let mut cursor = Cursor { text: text.as_bytes(), src: text, at: 0, sink: Recorder(batch) };
    let done = cursor.top();
    match done {
        Ok(()) => Scan::Read(cursor.at),
        Err(stop) => {
            batch.truncate(mark);
            match stop {
                Stop::More => Scan::More,
                Stop::Other => Scan::Other,
            }
        }
    }
}

/// A value written in a link, set once the link is added.
enum Later {
    Truth(TruthValue),
    /// Any other, read then from where it opens.
    At(usize),
}

/// Where the token at `start` of `text` ends: the first delimiter from
/// `start` on, or `None` if the text ends first. Sixteen bytes at a time
/// (eight near the end, or off x86-64): a token is mostly letters, digits
/// and `.-+*`, and every delimiter is below `*` or is `;`, so a run with no
/// such byte is all token.
fn delimiter_from(text: &[u8], start: usize) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut at = start;
    #[cfg(target_arch = "x86_64")]
    while let Some(run) = text.get(at..at + 16) {
        // Bytes from 0x80 on are flagged too (below `*` as signed): UTF-8
        // in a token, which the table then passes.
        let mut flagged = flags16(run, 0x2a, b';', b';');
        while flagged != 0 {
            let first = at + flagged.trailing_zeros() as usize;
            if DELIMITER[usize::from(text[first])] {
                return Some(first);
            }
            flagged &= flagged - 1;
        }
        at += 16;
    }
    while let Some(word) = text.get(at..at + 8) {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        // High bit set in the bytes below `*` (0x2a) and in those equal to
        // `;`: exact up to the first flagged byte, which is what is used.
        let below = x.wrapping_sub(ONES * 0x2a) & !x & HIGH;
        let semicolon = (x ^ (ONES * u64::from(b';'))).wrapping_sub(ONES) & !(x ^ (ONES * u64::from(b';'))) & HIGH;
        let flagged = below | semicolon;
        if flagged == 0 {
            at += 8;
            continue;
        }
        let first = at + (flagged.trailing_zeros() / 8) as usize;
        // `!`, `#`, `$`, `%` and `&` are below `*` but belong to tokens.
        if DELIMITER[usize::from(text[first])] {
            return Some(first);
        }
        at = first + 1;
    }
    text[at..].iter().position(|&b| DELIMITER[usize::from(b)]).map(|k| at + k)
}

/// A bit for each of the sixteen bytes of `run` that is below `below`
/// (compared as signed: bytes from 0x80 on are below any ASCII byte) or is
/// `a` or `b`, the first byte the lowest bit.
#[cfg(target_arch = "x86_64")]
#[inline]
fn flags16(run: &[u8], below: i8, a: u8, b: u8) -> u32 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
    assert!(run.len() >= 16);
    // SAFETY: SSE2 is part of x86-64; the load reads sixteen bytes of `run`.
    unsafe {
        let v = _mm_loadu_si128(run.as_ptr().cast());
        let low = _mm_cmplt_epi8(v, _mm_set1_epi8(below));
        let either = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(a as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)));
        _mm_movemask_epi8(_mm_or_si128(low, either)) as u32
    }
}

/// The first `"` or `\` in `text` from `at` on: in the first sixteen
/// bytes without a call (a name is mostly shorter, and `memchr2` costs
/// more to set up than that scan), past them with `memchr2`.
fn quote_or_backslash(text: &[u8], at: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(run) = text.get(at..at + 16) {
        let found = flags16(run, i8::MIN, b'"', b'\\');
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize);
        }
        return memchr2(b'"', b'\\', &text[at + 16..]).map(|k| at + 16 + k);
    }
    memchr2(b'"', b'\\', text.get(at..)?).map(|k| at + k)
}

/// The number of numbers in a truth value with this head, if it is one.
fn truth_arity(head: &str) -> Option<usize> {
    match head {
        "stv" | "cog-new-stv" | "SimpleTruthValue" => Some(2),
        "ctv" | "cog-new-ctv" | "CountTruthValue" => Some(3),
        _ => None,
    }
}

struct Cursor<'t, 'b> {
    text: &'t [u8],
    src: &'t str,
    at: usize,
    sink: Recorder<'b>,
}

impl<'t> Cursor<'t, '_> {
    fn top(&mut self) -> Step<()> {
        self.space()?;
        if self.peek()? != b'(' {
            return Err(Stop::Other);
        }
        // `cog-set-tv!` and its kin name no type, so `atom` declines them.
        let head = self.open()?;
        self.atom(head, 0).map(drop)
    }

    /// At a `(`: steps past it and returns the list's head.
    fn open(&mut self) -> Step<&'t str> {
        self.at += 1;
        self.space()?;
        self.token()
    }

    fn peek(&self) -> Step<u8> {
        self.text.get(self.at).copied().ok_or(Stop::More)
    }

    /// Steps over whitespace and `;` comments.
    fn space(&mut self) -> Step<()> {
        loop {
            match self.peek()? {
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => self.at += 1,
                b';' => match memchr(b'\n', &self.text[self.at..]) {
                    Some(k) => self.at += k,
                    None => return Err(Stop::More),
                },
                _ => return Ok(()),
            }
        }
    }

    /// A symbol or number: the bytes up to the next delimiter.
    fn token(&mut self) -> Step<&'t str> {
        let start = self.at;
        let end = delimiter_from(self.text, start).ok_or(Stop::More)?;
        if end == start {
            return Err(Stop::Other);
        }
        self.at = end;
        // SAFETY: a token starts at a character boundary (the start of the
        // text, or just past an ASCII byte: a delimiter or whitespace) and
        // ends at one (at an ASCII delimiter), so the range is a `str`.
        Ok(unsafe { self.src.get_unchecked(start..end) })
    }

    fn close(&mut self) -> Step<()> {
        self.space()?;
        if self.peek()? == b')' {
            self.at += 1;
            Ok(())
        } else {
            Err(Stop::Other)
        }
    }

    fn number(&mut self) -> Step<f64> {
        self.space()?;
        // Read in one pass where the number ends at a delimiter: then it is
        // the whole token, and the token's own scan is saved.
        let rest = &self.text[self.at..];
        if let Some((x, len)) = number_prefix(rest) {
            if x.is_finite() && rest.get(len).is_some_and(|&b| DELIMITER[usize::from(b)]) {
                self.at += len;
                return Ok(x);
            }
        }
        let token = self.token()?;
        match parse_number(token) {
            // A literal too large for a double is the general reader's error.
            Some(x) if x.is_finite() || token.ends_with("inf.0") || x.is_nan() => Ok(x),
            _ => Err(Stop::Other),
        }
    }

    /// A string literal at `at`, escapes decoded.
    fn string(&mut self) -> Step<Cow<'t, str>> {
        let open = self.at + 1;
        let mut end = open;
        let mut escaped = false;
        loop {
            match quote_or_backslash(self.text, end) {
                Some(at) if self.text[at] == b'"' => {
                    end = at;
                    break;
                }
                Some(at) => {
                    escaped = true;
                    end = at + 2;
                    if end > self.text.len() {
                        return Err(Stop::More);
                    }
                }
                None => return Err(Stop::More),
            }
        }
        self.at = end + 1;
        let text = &self.src[open..end];
        if escaped {
            unescape(text).map(Cow::Owned).map_err(|_| Stop::Other)
        } else {
            Ok(Cow::Borrowed(text))
        }
    }

    /// The atom whose expression's head, `name`, was just read.
    fn atom(&mut self, name: &str, depth: usize) -> Step<Handle> {
        let t = match Type::from_name(name) {
            Some(t) if t.is_atom() && t != types::SEXPR_AST && depth < MAX_DEPTH => t,
            _ => return Err(Stop::Other),
        };
        if t.is_node() {
            return self.node(t, depth);
        }
        let mut out: SmallVec<[Handle; 8]> = SmallVec::new();
        // Values written in a link are set once it is added: truth values
        // as read, others where they are, to read then.
        let mut values: SmallVec<[Later; 2]> = SmallVec::new();
        loop {
            self.space()?;
            match self.peek()? {
                b')' => break,
                b'(' => {
                    let start = self.at;
                    let head = self.open()?;
                    if let Some(n) = truth_arity(head) {
                        values.push(Later::Truth(self.truth(n)?));
                    } else if is_attached_value(head) {
                        values.push(Later::At(start));
                        self.at = start;
                        self.skip_list()?;
                    } else {
                        out.push(self.atom(head, depth + 1)?);
                    }
                }
                _ => return Err(Stop::Other),
            }
        }
        let end = self.at + 1;
        let h = self.sink.add_link(t, &out).map_err(|_| Stop::Other)?;
        for value in values {
            match value {
                Later::Truth(tv) => self.sink.set_tv(h, tv).map_err(|_| Stop::Other)?,
                Later::At(at) => {
                    self.at = at;
                    self.attached(h, depth)?;
                }
            }
        }
        self.at = end;
        Ok(h)
    }

    /// A node's expression past its type: the name first, then values.
    fn node(&mut self, t: Type, depth: usize) -> Step<Handle> {
        self.space()?;
        if self.peek()? != b'"' {
            return Err(Stop::Other);
        }
        let name = self.string()?;
        let h = self.sink.add_node(t, &name).map_err(|_| Stop::Other)?;
        loop {
            self.space()?;
            match self.peek()? {
                b')' => {
                    self.at += 1;
                    return Ok(h);
                }
                b'(' => self.attached(h, depth)?,
                _ => return Err(Stop::Other),
            }
        }
    }

    /// Steps over the list opening at `at`, to be read later: balanced
    /// parentheses outside strings, and nothing this path does not read.
    fn skip_list(&mut self) -> Step<()> {
        let mut open = 0usize;
        loop {
            match self.peek()? {
                b'(' => {
                    open += 1;
                    self.at += 1;
                }
                b')' => {
                    self.at += 1;
                    open -= 1;
                    if open == 0 {
                        return Ok(());
                    }
                }
                b'"' => drop(self.string()?),
                b'#' | b'\'' => return Err(Stop::Other),
                b';' | b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => self.space()?,
                _ => drop(self.token()?),
            }
        }
    }

    /// A value written inside atom `h`'s expression, opening at `at`.
    /// `depth` is that of the atom (keys are atoms nested in it).
    fn attached(&mut self, h: Handle, depth: usize) -> Step<()> {
        let head = self.open()?;
        if let Some(n) = truth_arity(head) {
            let tv = self.truth(n)?;
            return self.sink.set_tv(h, tv).map_err(|_| Stop::Other);
        }
        if head == "av" {
            let mut av = [0.0; 3];
            for x in &mut av {
                *x = self.number()?;
            }
            self.close()?;
            let key = self.sink.add_node(types::PREDICATE_NODE, AV_KEY).map_err(|_| Stop::Other)?;
            return self.sink.set_value(h, key, Value::float(av.to_vec())).map_err(|_| Stop::Other);
        }
        if head != "alist" {
            return Err(Stop::Other);
        }
        loop {
            self.space()?;
            match self.peek()? {
                b')' => {
                    self.at += 1;
                    return Ok(());
                }
                b'(' => self.pair(h, depth)?,
                _ => return Err(Stop::Other),
            }
        }
    }

    /// `(cons KEY VALUE)` in an alist of atom `h`.
    fn pair(&mut self, h: Handle, depth: usize) -> Step<()> {
        if self.open()? != "cons" {
            return Err(Stop::Other);
        }
        self.space()?;
        if self.peek()? != b'(' {
            return Err(Stop::Other);
        }
        if self.tv_key()? {
            self.space()?;
            if self.peek()? != b'(' {
                return Err(Stop::Other);
            }
            let n = truth_arity(self.open()?).ok_or(Stop::Other)?;
            let tv = self.truth(n)?;
            self.sink.set_tv(h, tv).map_err(|_| Stop::Other)?;
        } else {
            let head = self.open()?;
            let key = self.atom(head, depth + 1)?;
            let value = self.value()?;
            self.sink.set_value(h, key, value).map_err(|_| Stop::Other)?;
        }
        self.close()
    }

    /// At a key: steps over it if it is exactly the truth-value key,
    /// `(PredicateNode "*-TruthValueKey-*")`, which stands for the atom's
    /// truth value and is not added.
    fn tv_key(&mut self) -> Step<bool> {
        let start = self.at;
        if Type::from_name(self.open()?) == Some(types::PREDICATE_NODE) {
            self.space()?;
            if self.peek()? == b'"' && self.string()? == TV_KEY {
                self.close()?;
                return Ok(true);
            }
        }
        self.at = start;
        Ok(false)
    }

    /// The `n` numbers and the `)` of a truth value past its head.
    fn truth(&mut self, n: usize) -> Step<TruthValue> {
        let mut x = [0.0; 3];
        for v in &mut x[..n] {
            *v = self.number()?;
        }
        self.close()?;
        Ok(if n == 2 { TruthValue::simple(x[0], x[1]) } else { TruthValue::count(x[0], x[1], x[2]) })
    }

    /// A FloatValue, StringValue or truth value.
    fn value(&mut self) -> Step<Value> {
        self.space()?;
        if self.peek()? != b'(' {
            return Err(Stop::Other);
        }
        let head = self.open()?;
        if let Some(n) = truth_arity(head) {
            return Ok(Value::Truth(self.truth(n)?));
        }
        let mut numbers = Vec::new();
        let mut strings = Vec::new();
        loop {
            self.space()?;
            match (head, self.peek()?) {
                (_, b')') => break,
                ("FloatValue", _) => numbers.push(self.number()?),
                ("StringValue", b'"') => strings.push(self.string()?.into_owned()),
                _ => return Err(Stop::Other),
            }
        }
        self.at += 1;
        match head {
            "FloatValue" => Ok(Value::float(numbers)),
            "StringValue" => Ok(Value::String(strings.into())),
            _ => Err(Stop::Other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> (Scan, usize) {
        let mut batch = Batch::default();
        let scan = record(&mut batch, text);
        (scan, batch.atoms())
    }

    #[test]
    fn takes_the_shapes_of_data_files_whole() {
        for (text, atoms) in [
            ("(Concept \"a\")", 1),
            ("  ; before\n(Evaluation (stv 0.9 0.8)\n  (Predicate \"p\")\n  (List (Concept \"a\" (ctv 1 0 3))))", 4),
            ("(ConceptNode \"b\" (alist (cons (PredicateNode \"*-TruthValueKey-*\")(SimpleTruthValue 0.5 0.1))))", 1),
            ("(ListLink (ConceptNode \"x\" (alist (cons (PredicateNode \"w\")(FloatValue 1 -1.5))(cons (PredicateNode \"l\")(StringValue \"a\")))))", 4),
            ("(Concept \"odd \\\"q\\\" \\\\ ü\")", 1),
            ("(List (Concept \"a\" (av 1 2 3)) (av 0 0 0))", 4),
        ] {
            let (got, n) = scan(text);
            assert!(matches!(got, Scan::Read(len) if len == text.len()), "{text}");
            assert_eq!(n, atoms, "{text}");
        }
    }

    #[test]
    fn declines_the_rest_and_records_nothing() {
        for text in [
            "(cog-set-tv! (Concept \"a\") (stv 1 1))",
            "(Concept \"a\" (av 1 2))",
            "(List (Concept \"a\") #| c |# (Concept \"b\"))",
            "(Concept \"a\" (alist (cons (Predicate \"k\") (LinkValue))))",
            "(Concept \"a\" (stv 1 1e999))",
            "(Concept \"a\" (stv 1))",
            "(NoSuchNode \"a\")",
            "(Number 3)",
            "(List 'x)",
            "(List (Concept \"a\") (stv 1 1) \"s\")",
        ] {
            let (got, n) = scan(text);
            assert!(matches!(got, Scan::Other), "{text}");
            assert_eq!(n, 0, "{text}");
        }
        let deep = format!("{}(Concept \"a\"){}", "(List ".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
        assert!(matches!(scan(&deep).0, Scan::Other));
    }

    #[test]
    fn finds_the_first_delimiter_many_bytes_at_a_time_as_one_at_a_time() {
        // Every byte value, after runs of token bytes of every length.
        for b in 0..=255u8 {
            for run in 0..40 {
                let mut text: Vec<u8> = b"ab!#$%&*+-.0".iter().copied().cycle().take(run).collect();
                text.push(b);
                text.extend_from_slice(b"xyz)tail");
                for start in 0..text.len() {
                    let slow = text[start..].iter().position(|&c| DELIMITER[usize::from(c)]).map(|k| start + k);
                    assert_eq!(delimiter_from(&text, start), slow, "{text:?} from {start}");
                }
            }
        }
    }

    /// A number read in one pass is what its token reads as, wherever the
    /// token is more than the number or the number is not finite.
    #[test]
    fn numbers_read_in_one_pass_as_through_their_token() {
        let through_token = |text: &str| {
            let end = text.bytes().position(|c| DELIMITER[usize::from(c)]).filter(|&e| e > 0)?;
            let token = &text[..end];
            let x = parse_number(token)?;
            (x.is_finite() || token.ends_with("inf.0") || x.is_nan()).then_some((x.to_bits(), end))
        };
        let mut batch = Batch::default();
        let mut tried = 0;
        for number in [
            "0",
            "-0.5",
            "+.25",
            ".",
            "-",
            "0.8904219123655771",
            "0.47197624596631359653",
            "1e22",
            "1e999",
            "-1E-5",
            "12345678901234567890",
            "-inf.0",
            "+nan.0",
            "1e",
            "1e+",
            "1.5.3",
            "9007199254740993",
        ] {
            for b in 0..=127u8 {
                let text = format!("{number}{}", char::from(b));
                let mut cursor = Cursor { text: text.as_bytes(), src: &text, at: 0, sink: Recorder(&mut batch) };
                let one_pass = cursor.number().ok().map(|x| (x.to_bits(), cursor.at));
                assert_eq!(one_pass, through_token(&text), "{text:?}");
                tried += usize::from(one_pass.is_some());
            }
        }
        assert!(tried >= 100, "{tried}");
    }

    #[test]
    fn finds_the_first_quote_or_backslash_as_one_byte_at_a_time_does() {
        for b in [b'"', b'\\', b'a', 0x80, 0xff, b';'] {
            for run in 0..40 {
                let mut text: Vec<u8> = b"n1923 odd;\x80".iter().copied().cycle().take(run).collect();
                text.push(b);
                text.extend_from_slice(b"tail\"more");
                for at in 0..=text.len() + 1 {
                    let slow = text.get(at..).and_then(|t| t.iter().position(|&c| c == b'"' || c == b'\\')).map(|k| at + k);
                    assert_eq!(quote_or_backslash(&text, at), slow, "{text:?} from {at}");
                }
            }
        }
    }

    #[test]
    fn asks_for_more_where_the_text_may_go_on() {
        let text = "(List (Concept \"a\" (stv 0.5 0.25)) (Concept \"b\"))";
        for cut in 0..text.len() {
            let (got, n) = scan(&text[..cut]);
            assert!(matches!(got, Scan::More), "{}", &text[..cut]);
            assert_eq!(n, 0);
        }
        assert!(matches!(scan("; only a comment").0, Scan::More));
    }
}

//! Streaming reader for Atomese s-expressions.
//!
//! [`Parser`] turns `.scm` text into [`Expr`] trees one top-level expression
//! at a time. It pulls its input in chunks from any [`BufRead`], so a file of
//! many gigabytes is read in memory proportional to its largest top-level
//! expression, and it keeps open lists on an explicit stack, so nesting of
//! any depth parses without recursion.
//!
//! This is a reader of data, not of Scheme: it knows lists, symbols, strings,
//! decimal numbers, `'` quotes and Guile's four kinds of comment (`;`,
//! `#| |#`, `#;`, and `#! !#`, which script headers use), and nothing else. There are no vectors, characters, radix prefixes,
//! rationals or dotted-pair semantics (`.` is read as a symbol), and nothing
//! is evaluated; turning expressions into atoms is the loader's job.

use std::io::{self, BufRead};

use memchr::{memchr, memchr2};

use super::data_reader::Scan;
use super::literals::{parse_number, unescape};
use super::utf8::{BadUtf8, Decoder, Intake, Piece};

/// Bytes taken from the reader per refill. Bounds how much of a `&[u8]` or
/// other large-buffered reader is copied at once.
const CHUNK: usize = 64 * 1024;

/// Most unparsed text the fast path (`scan_next`) reads an expression
/// from: past it, the expression goes to the general reader.
const SCAN_MAX: usize = 16 * 1024;

/// Longest unparsed text held for one token (a name, string or comment):
/// as long as the writer prints an atom. Past it, or past
/// [`MAX_PENDING_ITEMS`] items held in unfinished lists, the input is an
/// error, not a buffer grown until memory runs out (an endless string of
/// `/dev/zero`, a list that never closes).
const MAX_TOKEN: usize = super::write::MAX_PRINTED;

/// Most items held in the unfinished lists of one top-level expression.
const MAX_PENDING_ITEMS: usize = 1 << 22;

/// Longest error snippet, in characters.
const SNIPPET_CHARS: usize = 40;

/// Deepest nesting of lists and quotes accepted. Real Atomese nests a few
/// dozen levels; the cap keeps every tree handed out shallow enough for the
/// recursive `Drop`, `Clone` and comparisons of [`Expr`] and for recursive
/// consumers such as the atom loader.
pub const MAX_NESTING: usize = 4096;

/// `DELIMITER[b]` is true for the bytes that end a token.
pub(super) static DELIMITER: [bool; 256] = {
    let mut table = [false; 256];
    let delimiters = b" \t\r\n\x0c()\";'";
    let mut i = 0;
    while i < delimiters.len() {
        table[delimiters[i] as usize] = true;
        i += 1;
    }
    table
};

/// Position in the input, 1-based; `col` counts Unicode characters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    /// Line number, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

/// A place in the input between top-level expressions: its byte offset
/// and position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Bytes before it.
    pub offset: u64,
    /// Its line and column.
    pub pos: Pos,
}

impl Place {
    /// The start of the input.
    pub const START: Place = Place { offset: 0, pos: Pos { line: 1, col: 1 } };
}

/// One parsed datum.
///
/// The parser builds and takes apart trees without recursion and never
/// returns one nested deeper than [`MAX_NESTING`], so the derived (recursive)
/// `Drop`, `Clone`, `PartialEq` and `Debug` are safe on anything it yields.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// `( ... )`; the position is that of the opening parenthesis.
    List(Vec<Expr>, Pos),
    /// Any bare token that is not a number: `ConceptNode`, `stv`, `cog-node`, `#t`, `#f`, `.`
    Symbol(String, Pos),
    /// A double-quoted string, escapes decoded.
    Str(String, Pos),
    /// A number token: `1`, `-2.5`, `+3`, `.5`, `1e-7`, `2.5E+10`, and Guile's `+inf.0`, `-inf.0`, `+nan.0`.
    Number(f64, Pos),
    /// `'x` (the quoted datum); position of the quote character.
    Quote(Box<Expr>, Pos),
}

impl Expr {
    /// Where the datum starts in the input.
    pub fn pos(&self) -> Pos {
        match self {
            Expr::List(_, p) | Expr::Symbol(_, p) | Expr::Str(_, p) | Expr::Number(_, p) | Expr::Quote(_, p) => *p,
        }
    }
}

/// A syntax error: where, what, and the offending text (a short excerpt of the
/// line at that point, at most ~40 characters).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}, column {col}: {}{}", printable(message), near(snippet))]
pub struct ParseError {
    /// Line of the problem, from 1.
    pub line: u32,
    /// Column of the problem in characters, from 1.
    pub col: u32,
    /// What is wrong.
    pub message: String,
    /// The input at the problem, or what was read of the unfinished datum
    /// when the input ends too early.
    pub snippet: String,
}

/// Errors travel boxed inside the parser: a small `Result` keeps the hot
/// paths that return an [`Expr`] cheap.
type Fail = Box<ParseError>;

/// Something opened and not yet finished.
#[derive(Clone, Copy)]
enum Frame {
    /// A list whose items so far are `values[start..]`.
    List { start: usize, open: Pos },
    /// A `'` waiting for its datum.
    Quote(Pos),
    /// A `#;` waiting for the datum it discards.
    DatumComment(Pos),
}

/// The " (near `...`)" part of a message, when there is text to show.
fn near(snippet: &str) -> String {
    if snippet.is_empty() {
        String::new()
    } else {
        format!(" (near `{}`)", printable(snippet))
    }
}

/// `text` with control characters escaped (`\x1b`): an error quotes the
/// input, which may hold a terminal's colour codes, and must not replay
/// them on the terminal that shows it.
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| match c {
            '\n' => "\\n".to_owned(),
            '\t' => "\\t".to_owned(),
            c if c.is_control() => format!("\\x{:02x}", u32::from(c)),
            c => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// Reads top-level expressions one at a time from any `BufRead`.
///
/// After an error the parser is finished: [`next_expr`](Parser::next_expr)
/// returns the same error again, and iteration ends.
pub struct Parser<R: BufRead> {
    reader: R,
    /// Input read but not yet dropped; `buf[pos..]` is unparsed. Being a
    /// `String`, it is checked UTF-8 once as it is read, and tokens and
    /// strings are sliced from it without checking again.
    buf: String,
    /// Always at a character boundary.
    pos: usize,
    /// Offset in the input of `buf[0]`.
    base: u64,
    /// The reader has reported the end of input.
    eof: bool,
    decoder: Decoder,
    /// What is kept of invalid UTF-8: where the input stops, or where
    /// U+FFFD stands for it ([`Parser::read_invalid_utf8`]).
    intake: Intake,
    /// Position of `buf[pos - uncounted]`.
    line: u32,
    col: u32,
    /// Bytes before `pos` that the fast path took and whose lines and
    /// columns are not counted yet: they are counted a run of expressions
    /// at a time (`count_up`), not one at a time, before anything reads
    /// or drops them.
    uncounted: usize,
    /// Open lists, quotes and datum comments, innermost last.
    frames: Vec<Frame>,
    /// Finished items of all open lists, shared so that each list costs one
    /// exactly-sized allocation when it closes.
    values: Vec<Expr>,
    last_complete: Pos,
    failed: Option<ParseError>,
    /// A read error the fast path met (`scan_next`), reported where the
    /// general reader next reads, as if it had met it there itself.
    unread_error: Option<String>,
    /// Bytes taken from the reader at a time: `CHUNK`, or, resuming,
    /// growing to it from a little (a load that switches readers often
    /// would copy a whole chunk at every switch).
    chunk: usize,
}

impl<R: BufRead> Parser<R> {
    /// A parser reading `input` from its current position.
    pub fn new(input: R) -> Self {
        Parser {
            reader: input,
            buf: String::with_capacity(CHUNK),
            pos: 0,
            base: 0,
            eof: false,
            decoder: Decoder::default(),
            intake: Intake::default(),
            line: 1,
            col: 1,
            uncounted: 0,
            frames: Vec::new(),
            values: Vec::new(),
            last_complete: Pos { line: 1, col: 1 },
            failed: None,
            unread_error: None,
            chunk: CHUNK,
        }
    }

    /// A parser reading `input`, which starts at `place` of a larger text
    /// (a load resuming after an expression read by someone else): offsets
    /// and positions count from there.
    pub fn resume(input: R, place: Place) -> Self {
        let mut p = Parser::new(input);
        p.chunk = 1024;
        p.base = place.offset;
        (p.line, p.col) = (place.pos.line, place.pos.col);
        p.last_complete = place.pos;
        p
    }

    /// Reads each invalid UTF-8 sequence as U+FFFD, as Guile does, instead
    /// of stopping there with an error; [`take_bad`](Parser::take_bad)
    /// says where they were.
    pub fn read_invalid_utf8(mut self) -> Self {
        self.intake.lossy = true;
        self
    }

    /// The invalid UTF-8 sequences read as U+FFFD since the last call, in
    /// order; decoded ahead of the parse, so some may be past the last
    /// expression returned.
    pub fn take_bad(&mut self) -> Vec<BadUtf8> {
        std::mem::take(&mut self.intake.bad)
    }

    /// Where the next top-level expression is read from: just past the last
    /// one returned (what [`resume`](Parser::resume) takes to read on).
    pub fn place(&mut self) -> Place {
        self.count_up();
        Place { offset: self.bytes_read(), pos: self.last_complete }
    }

    /// The next top-level expression, `Ok(None)` at a clean end of input.
    pub fn next_expr(&mut self) -> Result<Option<Expr>, ParseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.count_up();
        self.parse_next().map_err(|e| {
            self.failed = Some((*e).clone());
            self.discard_partial();
            *e
        })
    }

    /// Offers the unparsed text to `scan`, which reads the next top-level
    /// expression from it whole (and says how many bytes that took) or
    /// declines: the loader's fast path (`data_reader`), which needs no tree. On
    /// `None` nothing is consumed, and [`next_expr`](Parser::next_expr)
    /// reads on.
    pub(crate) fn scan_next(&mut self, mut scan: impl FnMut(&str) -> Scan) -> Option<()> {
        if self.failed.is_some() {
            return None;
        }
        loop {
            match scan(&self.buf[self.pos..]) {
                Scan::Read(len) => {
                    self.pos += len;
                    self.uncounted += len;
                    return Some(());
                }
                // Each try scans from the expression's start again: one
                // longer than a few chunks is the general reader's, which
                // reads it in one pass.
                Scan::More if self.buf.len() - self.pos < SCAN_MAX => match self.fill_more() {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => {
                        // Invalid UTF-8 is met again where it is; a read
                        // error, which the reader may not repeat, is kept.
                        if self.intake.stopped.is_none() {
                            self.unread_error = Some(e.message);
                        }
                        return None;
                    }
                },
                Scan::More | Scan::Other => return None,
            }
        }
    }

    /// Bytes of input consumed so far (for progress bars).
    ///
    /// This counts bytes parsed, not bytes buffered: right after an
    /// expression is returned it is the offset just past that expression.
    pub fn bytes_read(&self) -> u64 {
        self.base + self.pos as u64 - self.intake.grown_before(self.pos)
    }

    /// Position just after the last complete top-level expression returned
    /// (1-based line/col); line 1, column 1 before the first one.
    pub fn last_complete(&self) -> Pos {
        match self.uncounted {
            0 => self.last_complete,
            n => advance_wide(self.here(), &self.buf.as_bytes()[self.pos - n..self.pos]),
        }
    }

    /// Counts the lines and columns of what the fast path took: the end of
    /// its last expression is then where the parser is, and the last
    /// complete one.
    fn count_up(&mut self) {
        if self.uncounted > 0 {
            let end = self.last_complete();
            (self.line, self.col) = (end.line, end.col);
            self.last_complete = end;
            self.uncounted = 0;
        }
    }

    /// Position of `buf[pos]` once counted up; of `buf[pos - uncounted]`
    /// before.
    fn here(&self) -> Pos {
        Pos { line: self.line, col: self.col }
    }

    /// Steps over one byte that is a whole character and not a newline.
    fn step(&mut self) {
        self.pos += 1;
        self.col = self.col.saturating_add(1);
    }

    fn parse_next(&mut self) -> Result<Option<Expr>, Fail> {
        loop {
            let Some(&b) = self.buf.as_bytes().get(self.pos) else {
                if self.fill_more()? {
                    continue;
                }
                return self.end_of_input();
            };
            let finished = match b {
                b'\n' => {
                    self.pos += 1;
                    self.line = self.line.saturating_add(1);
                    self.col = 1;
                    None
                }
                b' ' | b'\t' | b'\r' | b'\x0c' => {
                    self.step();
                    None
                }
                b'(' | b'\'' if self.frames.len() >= MAX_NESTING => {
                    let pos = self.pos;
                    return Err(self.error_at(pos, format!("nesting deeper than {MAX_NESTING} levels")));
                }
                b'(' => {
                    self.frames.push(Frame::List { start: self.values.len(), open: self.here() });
                    self.step();
                    None
                }
                b')' => self.close()?,
                b'\'' => {
                    self.frames.push(Frame::Quote(self.here()));
                    self.step();
                    None
                }
                b';' => {
                    self.line_comment()?;
                    None
                }
                b'"' => {
                    let s = self.string()?;
                    self.complete(s)
                }
                _ => {
                    if b == b'#' && self.hash_comment()? {
                        None
                    } else {
                        let t = self.token()?;
                        self.complete(t)
                    }
                }
            };
            if finished.is_some() {
                return Ok(finished);
            }
        }
    }

    /// Hands a finished datum to whatever is waiting for it; returns it if
    /// it is a whole top-level expression.
    fn complete(&mut self, mut expr: Expr) -> Option<Expr> {
        loop {
            match self.frames.last() {
                None => {
                    self.last_complete = self.here();
                    return Some(expr);
                }
                Some(Frame::List { .. }) => {
                    self.values.push(expr);
                    return None;
                }
                Some(&Frame::Quote(at)) => {
                    self.frames.pop();
                    expr = Expr::Quote(Box::new(expr), at);
                }
                Some(Frame::DatumComment(_)) => {
                    self.frames.pop();
                    if matches!(expr, Expr::List(..) | Expr::Quote(..)) {
                        discard(vec![expr]);
                    }
                    return None;
                }
            }
        }
    }

    /// At a `)`.
    fn close(&mut self) -> Result<Option<Expr>, Fail> {
        let (what, at) = match self.frames.pop() {
            Some(Frame::List { start, open }) => {
                self.step();
                let items = self.values.split_off(start);
                return Ok(self.complete(Expr::List(items, open)));
            }
            None => {
                let message = "unbalanced `)`: there is no open `(` for it to close";
                return Err(self.error_at(self.pos, message.to_owned()));
            }
            Some(Frame::Quote(at)) => ("`'`", at),
            Some(Frame::DatumComment(at)) => ("`#;`", at),
        };
        let message = format!("expected a datum after the {what} at line {}, column {}, found `)`", at.line, at.col);
        Err(self.error_at(self.pos, message))
    }

    fn end_of_input(&mut self) -> Result<Option<Expr>, Fail> {
        let (message, snippet) = match self.frames.last() {
            None => return Ok(None),
            Some(&Frame::List { start, open }) => {
                (format!("end of input inside a list: the `(` at line {}, column {} is never closed", open.line, open.col), sketch(&self.values[start..]))
            }
            Some(&Frame::Quote(at)) => (format!("end of input after the `'` at line {}, column {}: expected a datum", at.line, at.col), "'".to_owned()),
            Some(&Frame::DatumComment(at)) => {
                (format!("end of input after the `#;` at line {}, column {}: expected a datum", at.line, at.col), "#;".to_owned())
            }
        };
        Err(fail(self.here(), message, snippet))
    }

    /// A symbol or number starting at `buf[pos]`.
    fn token(&mut self) -> Result<Expr, Fail> {
        let start = self.here();
        let mut len = 0;
        loop {
            let rest = &self.buf.as_bytes()[self.pos + len..];
            if let Some(k) = rest.iter().position(|&b| DELIMITER[usize::from(b)]) {
                len += k;
                break;
            }
            len += rest.len();
            if !self.fill_more()? {
                break;
            }
        }
        // A token ends at an ASCII delimiter or at the end of `buf`, so at a
        // character boundary.
        let text = &self.buf[self.pos..self.pos + len];
        let expr = match parse_number(text) {
            // A literal too large for a double would read as infinity: a
            // different number, silently.
            Some(x) if x.is_infinite() && !text.ends_with("inf.0") => {
                let shown: String = text.chars().take(24).collect();
                let more = if text.len() > shown.len() { "..." } else { "" };
                return Err(self.error_at(self.pos, format!("the number {shown}{more} is too large for a double (at most about 1.8e308)")));
            }
            Some(x) => Expr::Number(x, start),
            None => Expr::Symbol(text.to_owned(), start),
        };
        self.col = add(self.col, text.chars().count());
        self.pos += len;
        Ok(expr)
    }

    /// A string literal starting at the `"` at `buf[pos]`.
    fn string(&mut self) -> Result<Expr, Fail> {
        let open = self.here();
        // Bytes of the literal so far, counting the opening quote. The whole
        // literal stays in `buf` so that it can be checked and decoded at once.
        let mut len = 1;
        let mut escaped = false;
        loop {
            let rest = &self.buf.as_bytes()[self.pos + len..];
            match memchr2(b'"', b'\\', rest) {
                Some(k) if rest[k] == b'"' => {
                    len += k;
                    break;
                }
                Some(k) => {
                    escaped = true;
                    // The backslash and the byte after it, which may be a `"`.
                    len += k + 2;
                    if !self.ensure(len)? {
                        return Err(self.unterminated_string(open));
                    }
                }
                None => {
                    len += rest.len();
                    if !self.fill_more()? {
                        return Err(self.unterminated_string(open));
                    }
                }
            }
        }
        let text = &self.buf[self.pos + 1..self.pos + len];
        let value = if escaped {
            match unescape(text) {
                Ok(value) => value,
                Err((at, message)) => return Err(self.error_at(self.pos + 1 + at, message)),
            }
        } else {
            text.to_owned()
        };
        let end = advance(self.here(), &self.buf.as_bytes()[self.pos..=self.pos + len]);
        self.line = end.line;
        self.col = end.col;
        self.pos += len + 1;
        Ok(Expr::Str(value, open))
    }

    fn unterminated_string(&mut self, open: Pos) -> Fail {
        // Only called at the end of input, so the rest of `buf` is the rest of the input.
        let end = advance(self.here(), &self.buf.as_bytes()[self.pos..]);
        let message = format!("end of input inside a string; it starts at line {}, column {}", open.line, open.col);
        fail(end, message, self.excerpt(self.pos))
    }

    /// At a `;`: skips to the end of the line, leaving the newline.
    fn line_comment(&mut self) -> Result<(), Fail> {
        loop {
            let rest = &self.buf.as_bytes()[self.pos..];
            if let Some(k) = memchr(b'\n', rest) {
                self.skip(k);
                return Ok(());
            }
            self.skip(rest.len());
            if !self.fill_more()? {
                return Ok(());
            }
        }
    }

    /// At a `#`: skips a `#| |#` or `#! !#` comment or opens a `#;` one;
    /// false if it is none of them.
    fn hash_comment(&mut self) -> Result<bool, Fail> {
        if !self.ensure(2)? {
            return Ok(false);
        }
        match self.buf.as_bytes()[self.pos + 1] {
            b'|' => self.block_comment()?,
            b'!' => self.shebang_comment()?,
            b';' => {
                self.frames.push(Frame::DatumComment(self.here()));
                self.pos += 2;
                self.col = self.col.saturating_add(2);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// At a `#|`: skips the comment, and any nested in it.
    fn block_comment(&mut self) -> Result<(), Fail> {
        self.skip_comment(*b"#|", *b"|#", true)
    }

    /// At a `#!`: skips to the next `!#` (not nested), as Guile does with a
    /// script's header (`#!/usr/bin/env guile` ... `!#`). Guile's reader
    /// directives (`#!fold-case`, `#!r6rs`, ...) change how it reads what
    /// follows: refused by name, not read differently.
    fn shebang_comment(&mut self) -> Result<(), Fail> {
        self.ensure(32)?;
        let rest = &self.buf.as_bytes()[self.pos + 2..];
        let name_len = rest.iter().position(|b| b.is_ascii_whitespace() || b"()\";".contains(b)).unwrap_or(rest.len());
        let name = String::from_utf8_lossy(&rest[..name_len]);
        if ["fold-case", "no-fold-case", "r6rs", "r7rs", "curly-infix", "curly-infix-and-bracket-lists"].contains(&name.as_ref()) {
            let message = format!("the reader directive `#!{name}` is not supported: it changes how Guile reads the rest of the file");
            return Err(fail(self.here(), message, format!("#!{name}")));
        }
        self.skip_comment(*b"#!", *b"!#", false)
    }

    /// At `opener`: skips to its `closer`, and past any comment of the same
    /// kind nested in it when `nests`.
    fn skip_comment(&mut self, opener: [u8; 2], closer: [u8; 2], nests: bool) -> Result<(), Fail> {
        let open = self.here();
        let opener_text = String::from_utf8_lossy(&opener).into_owned();
        self.pos += 2;
        self.col = self.col.saturating_add(2);
        let mut depth = 1_usize;
        loop {
            let rest = &self.buf.as_bytes()[self.pos..];
            let next = if nests { memchr2(closer[0], opener[0], rest) } else { memchr(closer[0], rest) };
            let Some(k) = next else {
                self.skip(rest.len());
                if !self.fill_more()? {
                    return Err(self.unterminated(open, &opener_text));
                }
                continue;
            };
            self.skip(k);
            if !self.ensure(2)? {
                self.step();
                return Err(self.unterminated(open, &opener_text));
            }
            let pair = [self.buf.as_bytes()[self.pos], self.buf.as_bytes()[self.pos + 1]];
            if pair == closer || (nests && pair == opener) {
                self.pos += 2;
                self.col = self.col.saturating_add(2);
                if pair == opener {
                    depth += 1;
                } else {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
            } else {
                self.step();
            }
        }
    }

    fn unterminated(&self, open: Pos, opener: &str) -> Fail {
        let message = format!("end of input inside a `{opener}` comment; it starts at line {}, column {}", open.line, open.col);
        fail(self.here(), message, opener.to_owned())
    }

    /// Steps over `len` bytes of comment text, ending at a character boundary.
    fn skip(&mut self, len: usize) {
        let end = advance(self.here(), &self.buf.as_bytes()[self.pos..self.pos + len]);
        self.line = end.line;
        self.col = end.col;
        self.pos += len;
    }

    /// Makes at least `n` unparsed bytes available; false if the input ends first.
    fn ensure(&mut self, n: usize) -> Result<bool, Fail> {
        while self.buf.len() - self.pos < n {
            if !self.fill_more()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Reads more input, keeping `buf[pos..]`; false at the end of input.
    fn fill_more(&mut self) -> Result<bool, Fail> {
        self.count_up();
        // Drop parsed bytes only when they are at least as many as those kept,
        // so that a token longer than a chunk is not moved once per chunk.
        if self.pos > 0 && self.pos >= self.buf.len() - self.pos {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64 - self.intake.drained(self.pos);
            self.pos = 0;
        }
        if self.buf.len() - self.pos > MAX_TOKEN {
            return Err(fail(
                self.here(),
                format!("a token (a name, string or comment) longer than {} MiB: the input is not Atomese", MAX_TOKEN >> 20),
                String::new(),
            ));
        }
        if self.values.len() > MAX_PENDING_ITEMS {
            return Err(fail(
                self.here(),
                format!(
                    "an expression holding more than {MAX_PENDING_ITEMS} items in lists not yet closed: the input is not Atomese (does a list never close?)"
                ),
                String::new(),
            ));
        }
        self.read_chunk()
    }

    /// Appends the next chunk of input to `buf`; false at the end of input,
    /// an error once `buf` has been parsed up to invalid UTF-8.
    fn read_chunk(&mut self) -> Result<bool, Fail> {
        loop {
            if let Some(message) = self.unread_error.take() {
                return Err(fail(self.here(), message, String::new()));
            }
            if self.intake.stopped.is_some() {
                return Err(self.invalid_utf8());
            }
            if self.eof {
                return Ok(false);
            }
            // Where bad sequences are counted from: the first byte not counted yet.
            let mut from = (self.pos - self.uncounted, self.here());
            let base = self.base;
            let data = match self.reader.fill_buf() {
                Ok(data) => data,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(fail(self.here(), format!("cannot read input: {e}"), String::new())),
            };
            let before = self.buf.len();
            let mut take = |piece: Piece<'_>| self.intake.take(piece, &mut self.buf, &mut from, base);
            if data.is_empty() {
                self.eof = true;
                self.decoder.finish(&mut take);
                if self.buf.len() > before {
                    return Ok(true);
                }
                continue;
            }
            let n = data.len().min(self.chunk);
            self.chunk = (self.chunk * 2).min(CHUNK);
            self.decoder.feed(&data[..n], &mut take);
            self.reader.consume(n);
            if let Some(bad) = &mut self.intake.stopped {
                // Keep a snippet's worth from the bad bytes on, reading more
                // if needed so that the error does not depend on where the
                // reader's buffer ends.
                bad.truncate(4 * SNIPPET_CHARS);
                while bad.len() < 4 * SNIPPET_CHARS {
                    let Ok(more) = self.reader.fill_buf() else { break };
                    let k = more.len().min(4 * SNIPPET_CHARS - bad.len());
                    if k == 0 {
                        break;
                    }
                    bad.extend_from_slice(&more[..k]);
                    self.reader.consume(k);
                }
            }
            // A chunk can be all carry, or start with invalid bytes.
            if self.buf.len() > before {
                return Ok(true);
            }
        }
    }

    /// The error for the invalid UTF-8 just past the end of `buf`.
    fn invalid_utf8(&self) -> Fail {
        let bad = self.intake.stopped.as_deref().unwrap_or_default();
        let at = advance(self.here(), &self.buf.as_bytes()[self.pos..]);
        let line = &bad[..memchr2(b'\n', b'\r', bad).unwrap_or(bad.len())];
        let byte = bad.first().copied().unwrap_or_default();
        fail(at, super::utf8::message(byte), String::from_utf8_lossy(line).chars().take(SNIPPET_CHARS).collect())
    }

    /// An error at `buf[idx]`, which is at or after `buf[pos]`.
    fn error_at(&mut self, idx: usize, message: String) -> Fail {
        let at = advance(self.here(), &self.buf.as_bytes()[self.pos..idx]);
        fail(at, message, self.excerpt(idx))
    }

    /// The line from `buf[idx]` on, at most [`SNIPPET_CHARS`] characters.
    fn excerpt(&mut self, idx: usize) -> String {
        // Read as far as the snippet could reach, so that it does not depend
        // on where the reader's buffer happens to end. A read error here only
        // shortens the snippet of an error already being reported.
        let want = idx + 4 * SNIPPET_CHARS;
        while self.buf.len() < want && matches!(self.read_chunk(), Ok(true)) {}
        let rest = self.buf.as_bytes().get(idx..want.min(self.buf.len())).unwrap_or_default();
        let line = &rest[..memchr2(b'\n', b'\r', rest).unwrap_or(rest.len())];
        String::from_utf8_lossy(line).chars().take(SNIPPET_CHARS).collect()
    }

    /// Drops the unfinished expression after an error; it can hold trees too
    /// deep to drop recursively.
    fn discard_partial(&mut self) {
        self.frames.clear();
        discard(std::mem::take(&mut self.values));
    }
}

impl<R: BufRead> Iterator for Parser<R> {
    type Item = Result<Expr, ParseError>;

    /// The next top-level expression; `None` at the end of input and after an error.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed.is_some() {
            return None;
        }
        self.next_expr().transpose()
    }
}

/// Parses a whole string.
pub fn parse_str(s: &str) -> Result<Vec<Expr>, ParseError> {
    Parser::new(s.as_bytes()).collect()
}

/// A boxed error at `at`.
fn fail(at: Pos, message: String, snippet: String) -> Fail {
    Box::new(ParseError { line: at.line, col: at.col, message, snippet })
}

/// Drops trees without recursing, so that no depth can overflow the stack.
fn discard(mut pending: Vec<Expr>) {
    while let Some(expr) = pending.pop() {
        match expr {
            Expr::List(items, _) => pending.extend(items),
            Expr::Quote(inner, _) => pending.push(*inner),
            _ => {}
        }
    }
}

/// The position after `text`, which starts at `at` and ends at a character boundary.
fn advance(mut at: Pos, text: &[u8]) -> Pos {
    // Byte by byte: the text is mostly a short string or comment, too short
    // for vectorized searches to pay for themselves.
    for &b in text {
        if b == b'\n' {
            at.line = at.line.saturating_add(1);
            at.col = 1;
        } else if b & 0xC0 != 0x80 {
            at.col = at.col.saturating_add(1);
        }
    }
    at
}

/// [`advance`] over whole expressions, a word at a time where `advance`
/// takes a branch per byte: newlines found by `memchr`, and characters
/// counted as the bytes that do not continue one.
pub(super) fn advance_wide(at: Pos, text: &[u8]) -> Pos {
    fn chars(bytes: &[u8]) -> usize {
        const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
        let words = bytes.chunks_exact(8);
        let rest = words.remainder().iter().filter(|&&b| b & 0xC0 == 0x80).count();
        // A continuing byte is 10xxxxxx: its top bit set, the next clear.
        let continuing =
            words.map(|w| u64::from_le_bytes(w.try_into().expect("eight bytes"))).map(|x| (x & !(x << 1) & HIGH).count_ones() as usize).sum::<usize>();
        bytes.len() - continuing - rest
    }
    match memchr::memrchr(b'\n', text) {
        None => Pos { line: at.line, col: add(at.col, chars(text)) },
        Some(last) => Pos { line: add(at.line, memchr::memchr_iter(b'\n', &text[..last]).count() + 1), col: add(1, chars(&text[last + 1..])) },
    }
}

/// `a + n`, saturating: a line or column past `u32::MAX` sticks there.
fn add(a: u32, n: usize) -> u32 {
    a.saturating_add(u32::try_from(n).unwrap_or(u32::MAX))
}

/// What was read of an unclosed list, for the end-of-input error.
fn sketch(items: &[Expr]) -> String {
    let mut out = String::from("(");
    sketch_items(items, &mut out);
    out.chars().take(SNIPPET_CHARS).collect()
}

fn sketch_items(items: &[Expr], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        // Stopping once the snippet is long enough also bounds the recursion:
        // every level writes at least one byte before going deeper.
        if out.len() >= SNIPPET_CHARS {
            return;
        }
        if i > 0 {
            out.push(' ');
        }
        sketch_expr(item, out);
    }
}

fn sketch_expr(expr: &Expr, out: &mut String) {
    match expr {
        Expr::List(items, _) => {
            out.push('(');
            sketch_items(items, out);
            out.push(')');
        }
        Expr::Symbol(s, _) => out.push_str(s),
        Expr::Str(s, _) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Expr::Number(x, _) => out.push_str(&x.to_string()),
        Expr::Quote(inner, _) => {
            out.push('\'');
            if out.len() < SNIPPET_CHARS {
                sketch_expr(inner, out);
            }
        }
    }
}

#[cfg(test)]
mod tests;

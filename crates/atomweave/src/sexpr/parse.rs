//! Streaming reader for Atomese s-expressions.
//!
//! [`Parser`] turns `.scm` text into [`Expr`] trees one top-level expression
//! at a time. It pulls its input in chunks from any [`BufRead`], so a file of
//! many gigabytes is read in memory proportional to its largest top-level
//! expression, and it keeps open lists on an explicit stack, so nesting of
//! any depth parses without recursion.
//!
//! This is a reader of data, not of Scheme: it knows lists, symbols, strings,
//! decimal numbers, `'` quotes and the three kinds of comment (`;`, `#| |#`,
//! `#;`), and nothing else. There are no vectors, characters, radix prefixes,
//! rationals or dotted-pair semantics (`.` is read as a symbol), and nothing
//! is evaluated; turning expressions into atoms is the loader's job.

use std::io::{self, BufRead};

use memchr::{memchr, memchr2};

/// Bytes taken from the reader per refill. Bounds how much of a `&[u8]` or
/// other large-buffered reader is copied at once.
const CHUNK: usize = 64 * 1024;

/// Longest error snippet, in characters.
const SNIPPET_CHARS: usize = 40;

/// `DELIMITER[b]` is true for the bytes that end a token.
static DELIMITER: [bool; 256] = {
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

/// One parsed datum.
///
/// The parser builds and takes apart trees without recursion, but the derived
/// `Drop`, `Clone`, `PartialEq` and `Debug` of a tree do recurse, so a caller
/// that accepts pathologically deep input should limit the depth it keeps.
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
#[error("line {line}, column {col}: {message} (near `{snippet}`)")]
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
#[derive(Clone, Copy, Debug)]
enum Frame {
    /// A list whose items so far are `values[start..]`.
    List { start: usize, open: Pos },
    /// A `'` waiting for its datum.
    Quote(Pos),
    /// A `#;` waiting for the datum it discards.
    DatumComment(Pos),
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
    /// The start of a character cut by the end of the last chunk read.
    carry: Vec<u8>,
    /// Input from the first invalid UTF-8 sequence on (a snippet's worth),
    /// reported as an error once the parser reaches it.
    invalid: Option<Vec<u8>>,
    /// Position of `buf[pos]`.
    line: u32,
    col: u32,
    /// Open lists, quotes and datum comments, innermost last.
    frames: Vec<Frame>,
    /// Finished items of all open lists, shared so that each list costs one
    /// exactly-sized allocation when it closes.
    values: Vec<Expr>,
    last_complete: Pos,
    failed: Option<ParseError>,
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
            carry: Vec::new(),
            invalid: None,
            line: 1,
            col: 1,
            frames: Vec::new(),
            values: Vec::new(),
            last_complete: Pos { line: 1, col: 1 },
            failed: None,
        }
    }

    /// The next top-level expression, `Ok(None)` at a clean end of input.
    pub fn next_expr(&mut self) -> Result<Option<Expr>, ParseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.parse_next().map_err(|e| {
            self.failed = Some((*e).clone());
            self.discard_partial();
            *e
        })
    }

    /// Bytes of input consumed so far (for progress bars).
    ///
    /// This counts bytes parsed, not bytes buffered: right after an
    /// expression is returned it is the offset just past that expression.
    pub fn bytes_read(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Position just after the last complete top-level expression returned
    /// (1-based line/col); line 1, column 1 before the first one.
    pub fn last_complete(&self) -> Pos {
        self.last_complete
    }

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
            Some(&Frame::List { start, open }) => (
                format!("end of input inside a list: the `(` at line {}, column {} is never closed", open.line, open.col),
                sketch(&self.values[start..]),
            ),
            Some(&Frame::Quote(at)) => {
                (format!("end of input after the `'` at line {}, column {}: expected a datum", at.line, at.col), "'".to_owned())
            }
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
        let expr = match parse_number(text.as_bytes()) {
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

    /// At a `#`: skips a `#| |#` comment or opens a `#;` one; false if it is neither.
    fn hash_comment(&mut self) -> Result<bool, Fail> {
        if !self.ensure(2)? {
            return Ok(false);
        }
        match self.buf.as_bytes()[self.pos + 1] {
            b'|' => self.block_comment()?,
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
        let open = self.here();
        self.pos += 2;
        self.col = self.col.saturating_add(2);
        let mut depth = 1_usize;
        loop {
            let rest = &self.buf.as_bytes()[self.pos..];
            let Some(k) = memchr2(b'|', b'#', rest) else {
                self.skip(rest.len());
                if !self.fill_more()? {
                    return Err(self.unterminated_comment(open));
                }
                continue;
            };
            self.skip(k);
            if !self.ensure(2)? {
                self.step();
                return Err(self.unterminated_comment(open));
            }
            match (self.buf.as_bytes()[self.pos], self.buf.as_bytes()[self.pos + 1]) {
                (b'|', b'#') => {
                    self.pos += 2;
                    self.col = self.col.saturating_add(2);
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                (b'#', b'|') => {
                    self.pos += 2;
                    self.col = self.col.saturating_add(2);
                    depth += 1;
                }
                _ => self.step(),
            }
        }
    }

    fn unterminated_comment(&self, open: Pos) -> Fail {
        let message = format!("end of input inside a `#|` comment; it starts at line {}, column {}", open.line, open.col);
        fail(self.here(), message, "#|".to_owned())
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
        // Drop parsed bytes only when they are at least as many as those kept,
        // so that a token longer than a chunk is not moved once per chunk.
        if self.pos > 0 && self.pos >= self.buf.len() - self.pos {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        self.read_chunk()
    }

    /// Appends the next chunk of input to `buf`; false at the end of input,
    /// an error once `buf` has been parsed up to invalid UTF-8.
    fn read_chunk(&mut self) -> Result<bool, Fail> {
        loop {
            if self.invalid.is_some() {
                return Err(self.invalid_utf8());
            }
            if self.eof {
                return Ok(false);
            }
            let data = match self.reader.fill_buf() {
                Ok(data) => data,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(fail(self.here(), format!("cannot read input: {e}"), String::new())),
            };
            if data.is_empty() {
                self.eof = true;
                if !self.carry.is_empty() {
                    self.invalid = Some(std::mem::take(&mut self.carry));
                }
                continue;
            }
            let n = data.len().min(CHUNK);
            let before = self.buf.len();
            append_utf8(&data[..n], &mut self.buf, &mut self.carry, &mut self.invalid);
            self.reader.consume(n);
            if let Some(bad) = &mut self.invalid {
                // Read a snippet's worth after the bad bytes, so that the
                // error does not depend on where the reader's buffer ends.
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
        let bad = self.invalid.as_deref().unwrap_or_default();
        let at = advance(self.here(), &self.buf.as_bytes()[self.pos..]);
        let line = &bad[..memchr2(b'\n', b'\r', bad).unwrap_or(bad.len())];
        let byte = bad.first().copied().unwrap_or_default();
        let message = format!("invalid UTF-8: a bad or cut-short sequence starts with byte 0x{byte:02X}");
        fail(at, message, String::from_utf8_lossy(line).chars().take(SNIPPET_CHARS).collect())
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

    /// Drops the unfinished expression after an error.
    fn discard_partial(&mut self) {
        self.frames.clear();
        discard(std::mem::take(&mut self.values));
    }
}

impl<R: BufRead> Drop for Parser<R> {
    fn drop(&mut self) {
        // An unfinished expression can hold trees too deep to drop recursively.
        self.discard_partial();
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

/// The value of a Scheme decimal number token, or `None` if it is a symbol.
/// Validated here because `f64::from_str` also takes `inf`, `NaN` and the like.
fn parse_number(token: &[u8]) -> Option<f64> {
    let (negative, body) = match token.split_first()? {
        (b'+', rest) => (false, rest),
        (b'-', rest) => (true, rest),
        (b'0'..=b'9' | b'.', _) => (false, token),
        _ => return None,
    };
    if body.len() < token.len() {
        let special = match body {
            b"inf.0" => Some(f64::INFINITY),
            b"nan.0" => Some(f64::NAN),
            _ => None,
        };
        if let Some(x) = special {
            return Some(if negative { -x } else { x });
        }
    }
    let digits = |from: usize| body.get(from..).unwrap_or_default().iter().take_while(|b| b.is_ascii_digit()).count();
    let int = digits(0);
    let mut i = int;
    let mut frac = 0;
    if body.get(i) == Some(&b'.') {
        frac = digits(i + 1);
        i += 1 + frac;
    }
    if int + frac == 0 {
        return None;
    }
    if matches!(body.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(body.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(i);
        if exp == 0 {
            return None;
        }
        i += exp;
    }
    if i != body.len() {
        return None;
    }
    std::str::from_utf8(token).ok()?.parse().ok()
}

/// Decodes the escapes of a string literal's contents. An error carries the
/// byte offset of the offending backslash.
fn unescape(text: &str) -> Result<String, (usize, String)> {
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    while let Some(k) = memchr(b'\\', &text.as_bytes()[done..]) {
        let at = done + k;
        out.push_str(&text[done..at]);
        let after = &text[at + 1..];
        let Some(c) = after.chars().next() else {
            return Err((at, "`\\` at the end of a string".to_owned()));
        };
        let (decoded, used) = match c {
            '"' => ('"', 1),
            '\\' => ('\\', 1),
            'n' => ('\n', 1),
            't' => ('\t', 1),
            'r' => ('\r', 1),
            '0' => ('\0', 1),
            'a' => ('\x07', 1),
            'x' => hex_escape(&after[1..]).map_err(|message| (at, message))?,
            other if other.is_whitespace() || other.is_control() => {
                return Err((at, format!("unknown escape in string: `\\` followed by U+{:04X}", u32::from(other))));
            }
            other => return Err((at, format!("unknown escape `\\{other}` in string"))),
        };
        out.push(decoded);
        done = at + 1 + used;
    }
    out.push_str(&text[done..]);
    Ok(out)
}

/// Guile's `\xHH;` escape, given what follows the `x`: the character and the
/// bytes used, counting the `x`.
fn hex_escape(rest: &str) -> Result<(char, usize), String> {
    let digits = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
    if digits == 0 || rest.as_bytes().get(digits) != Some(&b';') {
        return Err("bad `\\x` escape in string: expected hex digits and a `;`, as in `\\x41;`".to_owned());
    }
    let hex = &rest[..digits];
    match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
        Some(c) => Ok((c, digits + 2)),
        None => Err(format!("bad `\\x` escape in string: `\\x{hex};` is not a Unicode character")),
    }
}

/// Appends the text in `data` to `buf`. A character cut by the end of `data`
/// waits in `carry` for the next chunk; from the first invalid sequence on,
/// the bytes go to `invalid` instead.
fn append_utf8(mut data: &[u8], buf: &mut String, carry: &mut Vec<u8>, invalid: &mut Option<Vec<u8>>) {
    if !carry.is_empty() {
        // A character is at most 4 bytes: finish the one that was cut.
        let old = carry.len();
        let take = data.len().min(4 - old);
        carry.extend_from_slice(&data[..take]);
        let valid = match std::str::from_utf8(carry) {
            Ok(text) => text.len(),
            Err(e) if e.valid_up_to() > 0 => e.valid_up_to(),
            // Still cut short: this chunk was smaller than the rest of the character.
            Err(e) if e.error_len().is_none() => return,
            Err(_) => {
                carry.extend_from_slice(&data[take..]);
                *invalid = Some(std::mem::take(carry));
                return;
            }
        };
        buf.push_str(std::str::from_utf8(&carry[..valid]).unwrap_or_default());
        data = &data[valid - old..];
        carry.clear();
    }
    match std::str::from_utf8(data) {
        Ok(text) => buf.push_str(text),
        Err(e) => {
            let (good, rest) = data.split_at(e.valid_up_to());
            buf.push_str(std::str::from_utf8(good).unwrap_or_default());
            match e.error_len() {
                None => carry.extend_from_slice(rest),
                Some(_) => *invalid = Some(rest.to_vec()),
            }
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

//! Invalid UTF-8 in loaded text. A load reads each bad sequence as one
//! U+FFFD, as Guile's ports do, and records where it was for a warning; a
//! strict load ([`LoadOptions::strict`]) refuses the text there instead.
//!
//! Valid text costs what it did: one `from_utf8` over each chunk. Lines
//! and columns are counted only once a bad sequence is found.
//!
//! **Invariant:** a bad sequence is the maximal part of a cut-short or
//! invalid character that `String::from_utf8_lossy` replaces, whatever the
//! chunking; each is recorded once per load, however often a load that
//! resumes (a file mixing Scheme and data) reads its text again.

use std::io::Read;
use std::path::Path;

use super::load::{LoadError, LoadOptions};
use super::parse::{advance_wide, ParseError, Place, Pos};

/// Places shown one line each; the rest of a file's are counted.
pub(crate) const SHOWN: usize = 10;

/// One bad sequence: where it starts, and its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadUtf8 {
    /// Bytes of input before it.
    pub offset: u64,
    /// Its line and column (in characters, each bad sequence one).
    pub pos: Pos,
    /// Its first byte.
    pub byte: u8,
}

impl BadUtf8 {
    /// What is wrong, without the place.
    pub fn message(&self) -> String {
        message(self.byte)
    }
}

/// What is wrong with a bad sequence that starts with `byte`.
pub(crate) fn message(byte: u8) -> String {
    format!("invalid UTF-8: a bad or cut-short sequence starts with byte 0x{byte:02X}")
}

/// The bad sequences a load read as U+FFFD.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct InvalidUtf8 {
    /// The first ten, in input order; the rest are only counted.
    pub places: Vec<BadUtf8>,
    /// All of them.
    pub count: u64,
    /// Input before this was looked at: a place met again is not counted again.
    seen_to: u64,
}

impl InvalidUtf8 {
    pub(crate) fn record(&mut self, bad: BadUtf8) {
        if self.count > 0 && bad.offset < self.seen_to {
            return;
        }
        self.seen_to = bad.offset + 1;
        self.count += 1;
        if self.places.len() < SHOWN {
            self.places.push(bad);
        }
    }

    /// The warnings for `file`, a line each: the places shown, then how
    /// many more there were.
    pub fn warnings(&self, file: &str) -> Vec<String> {
        let mut lines: Vec<String> =
            self.places.iter().map(|b| format!("{file}: line {}, column {}: {}, read as U+FFFD", b.pos.line, b.pos.col, b.message())).collect();
        let more = self.count - self.places.len() as u64;
        if more > 0 {
            lines.push(format!("{file}: {more} more places of invalid UTF-8, each read as U+FFFD ({} in all)", self.count));
        }
        lines
    }

    /// Prints the warnings for `file` on stderr, where the loaders' other
    /// warnings go, and forgets them: the next file's are its own.
    pub fn report(&mut self, file: &str) {
        for line in self.warnings(file) {
            eprintln!("atomweave: {line}");
        }
        *self = InvalidUtf8::default();
    }
}

/// A piece of input as [`Decoder::feed`] splits it.
pub(crate) enum Piece<'a> {
    Text(&'a str),
    /// A bad sequence, and what follows it in the chunk.
    Bad {
        seq: &'a [u8],
        rest: &'a [u8],
    },
}

/// Splits input that comes in chunks into text and bad sequences. A
/// character cut by a chunk's end waits for the next chunk.
#[derive(Default)]
pub(crate) struct Decoder {
    carry: Vec<u8>,
}

impl Decoder {
    /// Hands `data`'s pieces to `each` in order, while it says to go on;
    /// false if it said to stop.
    pub(crate) fn feed(&mut self, mut data: &[u8], each: &mut impl FnMut(Piece<'_>) -> bool) -> bool {
        if !self.carry.is_empty() {
            // The carry is the start of one character: four bytes from it decide it.
            let old = self.carry.len();
            let take = data.len().min(4 - old);
            let mut probe = [0u8; 4];
            probe[..old].copy_from_slice(&self.carry);
            probe[old..old + take].copy_from_slice(&data[..take]);
            let probe = &probe[..old + take];
            let used = match std::str::from_utf8(probe) {
                Ok(text) => {
                    each(Piece::Text(text));
                    probe.len()
                }
                Err(e) if e.valid_up_to() > 0 => {
                    each(Piece::Text(std::str::from_utf8(&probe[..e.valid_up_to()]).unwrap_or_default()));
                    e.valid_up_to()
                }
                Err(e) => match e.error_len() {
                    None => {
                        self.carry.extend_from_slice(data);
                        return true;
                    }
                    // The carry was a valid start: the bad sequence holds it all.
                    Some(n) => {
                        self.carry.clear();
                        if !each(Piece::Bad { seq: &probe[..n], rest: &data[n - old..] }) {
                            return false;
                        }
                        n
                    }
                },
            };
            self.carry.clear();
            data = &data[used - old..];
        }
        loop {
            match std::str::from_utf8(data) {
                Ok(text) => {
                    if !text.is_empty() {
                        each(Piece::Text(text));
                    }
                    return true;
                }
                Err(e) => {
                    let (good, rest) = data.split_at(e.valid_up_to());
                    if !good.is_empty() {
                        each(Piece::Text(std::str::from_utf8(good).unwrap_or_default()));
                    }
                    let Some(n) = e.error_len() else {
                        self.carry.extend_from_slice(rest);
                        return true;
                    };
                    if !each(Piece::Bad { seq: &rest[..n], rest: &rest[n..] }) {
                        return false;
                    }
                    data = &rest[n..];
                }
            }
        }
    }

    /// At the end of the input: a character left cut short is a bad sequence.
    pub(crate) fn finish(&mut self, each: &mut impl FnMut(Piece<'_>) -> bool) {
        if !self.carry.is_empty() {
            let seq = std::mem::take(&mut self.carry);
            each(Piece::Bad { seq: &seq, rest: &[] });
        }
    }
}

/// What a parser keeps of the invalid UTF-8 in its input.
#[derive(Default)]
pub(crate) struct Intake {
    /// Read each bad sequence as U+FFFD, instead of stopping before it.
    pub(crate) lossy: bool,
    /// Not lossy: the input from the first bad sequence on (a snippet's
    /// worth), reported as an error once the parser reaches it.
    pub(crate) stopped: Option<Vec<u8>>,
    /// Lossy: the bad sequences read, not yet taken.
    pub(crate) bad: Vec<BadUtf8>,
    /// Where the parser's buffer holds a U+FFFD longer than the sequence it
    /// stands for, in order: what maps the buffer's offsets to the input's.
    shifts: Vec<Shift>,
}

/// A U+FFFD that made the buffer longer than the input.
struct Shift {
    /// The buffer offset just past it.
    end: usize,
    /// How much longer the buffer is up to there.
    grown: u64,
}

impl Intake {
    /// Takes the next piece of input into `buf`, whose first byte is at
    /// offset `base` of the input; false once stopped. `from` is a place in
    /// `buf` and its position, where counting lines and columns starts.
    pub(crate) fn take(&mut self, piece: Piece<'_>, buf: &mut String, from: &mut (usize, Pos), base: u64) -> bool {
        match piece {
            Piece::Text(text) => {
                buf.push_str(text);
                true
            }
            Piece::Bad { seq, .. } if self.lossy => {
                let at = buf.len();
                let pos = advance_wide(from.1, &buf.as_bytes()[from.0..at]);
                let grown = self.grown_before(at);
                self.bad.push(BadUtf8 { offset: base + at as u64 - grown, pos, byte: seq[0] });
                buf.push(char::REPLACEMENT_CHARACTER);
                *from = (buf.len(), Pos { line: pos.line, col: pos.col.saturating_add(1) });
                // A bad sequence is at most three bytes, as long as U+FFFD.
                let longer = (char::REPLACEMENT_CHARACTER.len_utf8() - seq.len()) as u64;
                if longer > 0 {
                    self.shifts.push(Shift { end: buf.len(), grown: grown + longer });
                }
                true
            }
            Piece::Bad { seq, rest } => {
                self.stopped = Some([seq, rest].concat());
                false
            }
        }
    }

    /// How much longer than the input the buffer's first `idx` bytes are.
    pub(crate) fn grown_before(&self, idx: usize) -> u64 {
        self.shifts.iter().rev().find(|s| s.end <= idx).map_or(0, |s| s.grown)
    }

    /// The buffer's first `cut` bytes are dropped: how much longer than
    /// the input they were.
    pub(crate) fn drained(&mut self, cut: usize) -> u64 {
        let grown = self.grown_before(cut);
        self.shifts.retain(|s| s.end > cut);
        for s in &mut self.shifts {
            s.end -= cut;
            s.grown -= grown;
        }
        grown
    }
}

/// Reads `input` (which starts at `start` of its text) to its end for
/// invalid UTF-8: each bad sequence is recorded in `options`, or, in a
/// strict load, the first is an error.
pub fn scan_utf8(mut input: impl Read, start: Place, options: &mut LoadOptions) -> Result<(), LoadError> {
    let (mut offset, mut pos) = (start.offset, start.pos);
    let mut first_bad = None;
    let strict = options.strict;
    let mut each = |piece: Piece<'_>| match piece {
        Piece::Text(text) => {
            offset += text.len() as u64;
            pos = advance_wide(pos, text.as_bytes());
            true
        }
        Piece::Bad { seq, .. } => {
            let bad = BadUtf8 { offset, pos, byte: seq[0] };
            offset += seq.len() as u64;
            pos.col = pos.col.saturating_add(1);
            if strict {
                first_bad = Some(bad);
                return false;
            }
            options.invalid_utf8.record(bad);
            true
        }
    };
    let mut decoder = Decoder::default();
    let mut buf = vec![0; 1 << 20];
    let io = |e: std::io::Error| ParseError { line: start.pos.line, col: start.pos.col, message: format!("cannot read input: {e}"), snippet: String::new() };
    loop {
        let n = match input.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LoadError { error: io(e), loaded: 0, at: start }),
        };
        if n == 0 {
            decoder.finish(&mut each);
            break;
        }
        if !decoder.feed(&buf[..n], &mut each) {
            break;
        }
    }
    match first_bad {
        None => Ok(()),
        Some(bad) => {
            let error = ParseError { line: bad.pos.line, col: bad.pos.col, message: bad.message(), snippet: String::new() };
            Err(LoadError { error, loaded: 0, at: start })
        }
    }
}

/// For a strict load, refuses the file at `path` at its first invalid
/// UTF-8 before anything of it is loaded; for any other, does nothing.
pub fn refuse_invalid_utf8(path: &Path, options: &mut LoadOptions) -> Result<(), LoadError> {
    if !options.strict {
        return Ok(());
    }
    let file = std::fs::File::open(path).map_err(|e| LoadError {
        error: ParseError { line: 1, col: 1, message: e.to_string(), snippet: String::new() },
        loaded: 0,
        at: Place::START,
    })?;
    scan_utf8(file, Place::START, options).map_err(|mut e| {
        e.error.message.push_str(": a strict load refuses the file whole");
        e
    })
}

#[cfg(test)]
mod tests;

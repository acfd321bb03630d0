//! The `--server HOST:PORT` layer: atomspace_bm's methods as `sexpr` shell
//! commands to a running server, one round trip each.
//!
//! The random space is built on the server (pipelined, untimed) after
//! `(cog-atomspace-clear)`, and mirrored in a local table that names each
//! atom as the s-expression the commands carry. Each method is the shell
//! command closest to it: getType and getOutgoingSet look the atom up
//! (`cog-node`, `cog-link`), getTV is `cog-value` under the truth-value
//! key, getIncomingSetSize fetches the incoming set (the shell has no
//! size command), getHandlesByType is `cog-get-atoms`. Round trips cost
//! tens of microseconds, so this layer runs at most [`MAX_OPS`] operations.

use std::cell::{Cell, RefCell, RefMut};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::net::TcpStream;

use atomweave::sexpr::{write_str_literal, write_structure, write_value};
use atomweave::{AtomRead, AtomSink, AtomTable, Handle, Result, TruthValue, Type, Value};
use atomweave_bench::RandomSpace;

use super::methods::Target;

/// Most operations one method runs on this layer.
pub const MAX_OPS: usize = 20_000;

pub struct ServerTarget {
    conn: RefCell<Conn>,
    /// Operations the server refused: a run with any is not a measurement.
    pub errors: Cell<usize>,
    /// The server's atoms, here, for their names and shapes.
    pub mirror: AtomTable,
}

/// The connection, in the `sexpr` shell. Reads of the bench take `&self`,
/// so it sits in a `RefCell`.
struct Conn {
    rd: BufReader<TcpStream>,
    wr: BufWriter<TcpStream>,
    /// Replies to untimed, pipelined writes not read yet.
    owed: usize,
    line: String,
    cmd: String,
}

fn io(e: std::io::Error) -> atomweave::Error {
    atomweave::Error::InvalidValue(format!("server connection: {e}"))
}

impl ServerTarget {
    /// Connects, enters the `sexpr` shell and empties the server's space.
    pub fn connect(addr: &str) -> std::result::Result<ServerTarget, String> {
        let s = TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}; is `atomweave serve` running there?"))?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut c = Conn {
            rd: BufReader::with_capacity(1 << 16, s.try_clone().map_err(|e| e.to_string())?),
            wr: BufWriter::with_capacity(1 << 16, s),
            owed: 0,
            line: String::new(),
            cmd: String::new(),
        };
        c.wr.write_all(b"sexpr\n").map_err(|e| e.to_string())?;
        c.wr.flush().map_err(|e| e.to_string())?;
        // The command shell's prompt ends without a newline.
        let mut seen = Vec::new();
        while !seen.ends_with(b"opencog> ") {
            let buf = c.rd.fill_buf().map_err(|e| e.to_string())?;
            if buf.is_empty() {
                return Err(format!("{addr}: the server closed the connection"));
            }
            seen.push(buf[0]);
            c.rd.consume(1);
        }
        c.cmd.push_str("(cog-atomspace-clear)");
        c.call().map_err(|e| e.to_string())?;
        Ok(ServerTarget { conn: RefCell::new(c), errors: Cell::new(0), mirror: AtomTable::new() })
    }

    /// Counts a refused operation.
    fn note<T>(&self, r: Result<T>) -> Result<T> {
        if r.is_err() {
            self.errors.set(self.errors.get() + 1);
        }
        r
    }

    /// The connection, its command set to `head` + the atom + `tail` + `more(cmd)`.
    fn command(&self, head: &str, h: Handle, tail: &str, more: impl FnOnce(&mut String)) -> RefMut<'_, Conn> {
        let mut c = self.conn.borrow_mut();
        c.cmd.clear();
        c.cmd.push_str(head);
        write_structure(&self.mirror, h, &mut c.cmd).expect(BENCH_ATOMS);
        c.cmd.push_str(tail);
        more(&mut c.cmd);
        c
    }

    /// Sends a [`command`](Self::command) and returns its reply's length.
    fn ask(&self, head: &str, h: Handle, tail: &str, more: impl FnOnce(&mut String)) -> Result<usize> {
        let mut c = self.command(head, h, tail, more);
        let r = c.call().map(|_| c.line.len());
        drop(c);
        self.note(r)
    }

    /// Queues a [`command`](Self::command) (untimed building).
    fn send(&self, head: &str, h: Handle, tail: &str, more: impl FnOnce(&mut String)) -> Result<()> {
        self.command(head, h, tail, more).queue()
    }

    /// `(cog-node ...)` or `(cog-link ...)` for `h`: the reply is the atom, or `()`.
    fn lookup(&self, h: Handle) -> Result<bool> {
        self.note(self.lookup_inner(h))
    }

    fn lookup_inner(&self, h: Handle) -> Result<bool> {
        let t = AtomRead::get_type(&self.mirror, h).ok_or(atomweave::Error::InvalidHandle(h))?;
        let mut c = self.conn.borrow_mut();
        c.cmd.clear();
        match AtomRead::name(&self.mirror, h) {
            Some(name) => {
                c.cmd.push_str("(cog-node '");
                c.cmd.push_str(t.name());
                c.cmd.push(' ');
                write_str_literal(&mut c.cmd, name);
            }
            None => {
                c.cmd.push_str("(cog-link '");
                c.cmd.push_str(t.name());
                for &m in AtomRead::outgoing(&self.mirror, h).unwrap_or(&[]) {
                    c.cmd.push(' ');
                    write_structure(&self.mirror, m, &mut c.cmd).expect(BENCH_ATOMS);
                }
            }
        }
        c.cmd.push(')');
        c.call()?;
        Ok(c.line.trim_end() != "()")
    }

    pub fn settle(&self) -> Result<()> {
        self.conn.borrow_mut().settle()
    }
}

impl Conn {
    /// Sends `cmd` and reads its reply into `line`; replies owed are read
    /// first, so each reply is matched to its own command.
    fn call(&mut self) -> Result<()> {
        self.settle()?;
        self.cmd.push('\n');
        self.wr.write_all(self.cmd.as_bytes()).map_err(io)?;
        self.wr.flush().map_err(io)?;
        self.line.clear();
        if self.rd.read_line(&mut self.line).map_err(io)? == 0 {
            return Err(io(std::io::Error::other("the server closed the connection")));
        }
        if self.line.starts_with("(error") {
            return Err(atomweave::Error::InvalidValue(self.line.trim_end().to_string()));
        }
        Ok(())
    }

    /// Sends `cmd` without waiting for its reply.
    fn queue(&mut self) -> Result<()> {
        self.cmd.push('\n');
        self.wr.write_all(self.cmd.as_bytes()).map_err(io)?;
        self.owed += 1;
        if self.owed >= 4096 {
            self.settle()?;
        }
        Ok(())
    }

    /// Flushes and reads the replies owed.
    fn settle(&mut self) -> Result<()> {
        self.wr.flush().map_err(io)?;
        while self.owed > 0 {
            self.line.clear();
            if self.rd.read_line(&mut self.line).map_err(io)? == 0 {
                return Err(io(std::io::Error::other("the server closed the connection")));
            }
            self.owed -= 1;
            if self.line.starts_with("(error") {
                return Err(atomweave::Error::InvalidValue(self.line.trim_end().to_string()));
            }
        }
        Ok(())
    }
}

impl AtomSink for ServerTarget {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        let h = self.mirror.add_node(t, name)?;
        self.send("", h, "", |_| {})?;
        Ok(h)
    }
    fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        let h = self.mirror.add_link(t, outgoing)?;
        self.send("", h, "", |_| {})?;
        Ok(h)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        self.mirror.set_tv(h, tv)?;
        self.send("(cog-set-tv! ", h, " ", tv_tail(&self.mirror, tv))
    }
    fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()> {
        self.send("(cog-set-value! ", h, " ", key_value_tail(&self.mirror, key, &v))?;
        self.mirror.set_value(h, key, v)
    }
    fn remove_value(&mut self, h: Handle, key: Handle) -> Result<()> {
        let m = &self.mirror;
        self.send("(cog-set-value! ", h, " ", move |c: &mut String| {
            write_structure(m, key, c).expect(BENCH_ATOMS);
            c.push_str(" #f)");
        })?;
        self.mirror.remove_value(h, key)
    }
    fn contains(&self, h: Handle) -> bool {
        AtomRead::contains(&self.mirror, h)
    }
}

/// The end of `(cog-set-tv! A TV)`.
fn tv_tail(m: &AtomTable, tv: TruthValue) -> impl FnOnce(&mut String) + '_ {
    move |c| {
        write_value(m, &Value::Truth(tv), c).expect(BENCH_ATOMS);
        c.push(')');
    }
}

/// The end of `(cog-set-value! A K V)`.
fn key_value_tail<'a>(m: &'a AtomTable, key: Handle, v: &'a Value) -> impl FnOnce(&mut String) + 'a {
    move |c| {
        write_structure(m, key, c).expect(BENCH_ATOMS);
        c.push(' ');
        write_value(m, v, c).expect(BENCH_ATOMS);
        c.push(')');
    }
}

/// The benchmark's atoms are trees of a few members: they always print.
const BENCH_ATOMS: &str = "a benchmark atom or value prints";

/// The server's key for truth values.
const TV_KEY: &str = " (PredicateNode \"*-TruthValueKey-*\"))";

impl Target for ServerTarget {
    fn get_type(&self, h: Handle) -> Option<Type> {
        self.lookup(h).ok()?.then(|| AtomRead::get_type(&self.mirror, h)).flatten()
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        // The value is the mirror's, given only once the server has answered.
        self.ask("(cog-value ", h, TV_KEY, |_| {}).ok().and_then(|_| AtomRead::get_tv(&self.mirror, h))
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        self.mirror.set_tv(h, tv)?;
        self.ask("(cog-set-tv! ", h, " ", tv_tail(&self.mirror, tv)).map(drop)
    }
    fn get_value(&self, h: Handle, k: Handle) -> Option<Value> {
        let m = &self.mirror;
        self.ask("(cog-value ", h, " ", |c| {
            write_structure(m, k, c).expect(BENCH_ATOMS);
            c.push(')');
        })
        .ok()
        .and_then(|_| AtomRead::get_value(m, h, k))
    }
    fn set_value(&mut self, h: Handle, k: Handle, v: Value) -> Result<()> {
        self.ask("(cog-set-value! ", h, " ", key_value_tail(&self.mirror, k, &v))?;
        self.mirror.set_value(h, k, v)
    }
    fn incoming_probe(&self, h: Handle) -> usize {
        self.ask("(cog-incoming-set ", h, ")", |_| {}).unwrap_or(0)
    }
    fn incoming_size(&self, h: Handle) -> usize {
        self.ask("(cog-incoming-set ", h, ")", |_| {}).unwrap_or(0)
    }
    fn outgoing_probe(&self, h: Handle) -> usize {
        usize::from(self.lookup(h).unwrap_or(false))
    }
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        let r = AtomSink::add_node(self, t, name).and_then(|h| self.settle().map(|_| h));
        self.note(r)
    }
    fn add_link(&mut self, t: Type, out: &[Handle]) -> Result<Handle> {
        let r = AtomSink::add_link(self, t, out).and_then(|h| self.settle().map(|_| h));
        self.note(r)
    }
    fn extract(&mut self, h: Handle) -> Result<()> {
        // Gone already, with a member extracted recursively before it: as
        // in process, a failed call that costs nothing.
        if !AtomRead::contains(&self.mirror, h) {
            return Err(atomweave::Error::InvalidHandle(h));
        }
        self.ask("(cog-extract-recursive! ", h, ")", |_| {})?;
        self.mirror.extract(h, true)
    }
    fn count_by_type(&self, t: Type) -> usize {
        let mut c = self.conn.borrow_mut();
        c.cmd.clear();
        c.cmd.push_str("(cog-get-atoms '");
        c.cmd.push_str(t.name());
        c.cmd.push(')');
        let r = c.call().map(|_| c.line.len());
        drop(c);
        self.note(r).unwrap_or(0)
    }
    fn get_node(&self, t: Type, name: &str) -> Option<Handle> {
        let h = AtomRead::get_node(&self.mirror, t, name)?;
        self.lookup(h).ok()?.then_some(h)
    }
    fn grow(&mut self, rs: &mut RandomSpace, n: usize) -> Result<()> {
        rs.grow(self, n, |_| {})?;
        self.settle()
    }
    fn size(&self) -> usize {
        AtomRead::size(&self.mirror)
    }
}

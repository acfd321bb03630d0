//! `cog://host[:port]`: the space of a running CogServer (`atomweave serve`,
//! or upstream's) as a store, over its `sexpr` shell.
//!
//! It sends the commands upstream's CogStorageNode sends, so it also works
//! against upstream's server. Writes are pipelined: a store call writes its
//! command and returns; the one-line replies are read later, in bulk, when
//! a read needs the connection, when many are owed, or at [`barrier`], which
//! reports the first write the server refused. The server's port is 17001
//! unless the URL says otherwise; a server started with `--token` wants
//! `cog://host:port?token=T`. Against upstream's server, which answers a
//! bad command with nothing at all, a refused command leaves the client
//! waiting.
//!
//! A server that stops answering, or answers without end, is an error, not
//! a hang or a flood: a reply must start within `?timeout=SECS` (default
//! 120 s; 0 waits forever) and be at most `?max_reply=BYTES` (default
//! 256 MiB) long.
//!
//! [`barrier`]: StorageNode::barrier

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use atomweave::sexpr::{self, parse_str, write_str_literal, write_structure, write_value, Expr, Pos};
use atomweave::{types, AtomSpace, Handle, Type, Value};

use crate::wire::{self, structure};
use crate::{Result, StorageNode, StoreError};

/// Replies owed before the client stops to read them: few enough that
/// they fit the socket buffers, so neither side ever waits on the other.
const MAX_OWED: usize = 2048;
/// Bytes of requests sent before their (possibly long) replies are read.
const REQUEST_BYTES: usize = 32 * 1024;
const PROMPT: &[u8] = b"opencog> ";
/// How long a reply may take to come, by default.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Longest reply line, by default.
const MAX_REPLY: usize = 256 << 20;

pub struct CogStore {
    url: String,
    rd: BufReader<TcpStream>,
    wr: BufWriter<TcpStream>,
    /// Replies to pipelined writes not read yet.
    owed: usize,
    /// The first refused write since the last barrier.
    refused: Option<String>,
    line: String,
    max_reply: usize,
    /// Why the connection is no longer used: once a reply was not read
    /// (no reply in time, a broken or over-long one), the replies still
    /// owed would be taken for later commands' own.
    broken: Option<String>,
}

impl CogStore {
    pub fn open(url: &str) -> Result<CogStore> {
        let open_err = |msg: String| StoreError::Open { url: url.to_string(), msg };
        let rest = url.strip_prefix("cog://").ok_or_else(|| open_err("expected cog://host:port".into()))?;
        let (addr, query) = rest.split_once('?').unwrap_or((rest, ""));
        let addr = addr.trim_end_matches('/');
        let addr = if addr.contains(':') { addr.to_string() } else { format!("{addr}:17001") };
        // Only from the URL: a token sent to a server that wants none would
        // be answered as a command, and throw the reply count off.
        let param = |name: &str| query.split('&').find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='));
        let token = param("token").map(str::to_string);
        let number = |name: &str, default: u64| match param(name) {
            Some(v) => v.parse::<u64>().map_err(|_| open_err(format!("{name}= takes a whole number, not `{v}`"))),
            None => Ok(default),
        };
        let timeout = Some(Duration::from_secs(number("timeout", TIMEOUT.as_secs())?)).filter(|d| !d.is_zero());
        let max_reply = number("max_reply", MAX_REPLY as u64)? as usize;
        let sock = TcpStream::connect(&addr).map_err(|e| open_err(format!("cannot connect to {addr}: {e}; is `atomweave serve` running there?")))?;
        let _ = sock.set_nodelay(true);
        let rd = BufReader::with_capacity(1 << 16, sock.try_clone().map_err(|e| open_err(e.to_string()))?);
        let wr = BufWriter::with_capacity(1 << 16, sock);
        let mut st = CogStore { url: url.to_string(), rd, wr, owed: 0, refused: None, line: String::new(), max_reply, broken: None };
        let greet = |st: &mut CogStore| -> std::io::Result<()> {
            if let Some(t) = &token {
                st.wr.write_all(t.as_bytes())?;
                st.wr.write_all(b"\n")?;
            }
            st.wr.write_all(b"sexpr\n")?;
            st.wr.flush()?;
            st.rd.get_ref().set_read_timeout(Some(Duration::from_secs(10)))?;
            // The command shell's prompt (no newline after it); entering
            // `sexpr` itself prints nothing.
            let mut seen = Vec::new();
            // Upstream's coloured prompt ends in a colour reset.
            while !seen.ends_with(PROMPT) && !seen.ends_with(b"> \x1b[0m") {
                let mut b = [0u8; 1];
                if st.rd.read(&mut b)? == 0 {
                    let said = String::from_utf8_lossy(&seen).trim().to_string();
                    return Err(std::io::Error::other(if said.is_empty() { "the server closed the connection".to_string() } else { said }));
                }
                seen.push(b[0]);
            }
            st.rd.get_ref().set_read_timeout(timeout)
        };
        greet(&mut st).map_err(|e| open_err(format!("{addr} did not answer as a CogServer: {e}")))?;
        Ok(st)
    }

    fn net(&mut self, e: std::io::Error) -> StoreError {
        self.fail(StoreError::Backend(format!("{}: the connection failed: {e}", self.url)))
    }

    /// Marks the connection unusable after `e`, and closes it.
    fn fail(&mut self, e: StoreError) -> StoreError {
        if self.broken.is_none() {
            self.broken = Some(e.to_string());
            let _ = self.wr.get_ref().shutdown(std::net::Shutdown::Both);
        }
        e
    }

    /// Refuses every call once the connection broke.
    fn usable(&self) -> Result<()> {
        match &self.broken {
            Some(why) => {
                Err(StoreError::Backend(format!("{}: the connection is closed since an earlier failure ({why}); close the store and open it again", self.url)))
            }
            None => Ok(()),
        }
    }

    /// Queues a command whose reply is read later.
    fn send(&mut self, cmd: &str) -> Result<()> {
        self.usable()?;
        self.wr.write_all(cmd.as_bytes()).and_then(|_| self.wr.write_all(b"\n")).map_err(|e| self.net(e))?;
        self.owed += 1;
        if self.owed >= MAX_OWED {
            self.settle()?;
        }
        Ok(())
    }

    /// Reads the replies owed; a refused write is kept for the barrier.
    fn settle(&mut self) -> Result<()> {
        self.usable()?;
        self.wr.flush().map_err(|e| self.net(e))?;
        while self.owed > 0 {
            self.read_line()?;
            self.owed -= 1;
            if self.line.starts_with("(error") && self.refused.is_none() {
                self.refused = Some(self.line.trim_end().to_string());
            }
        }
        Ok(())
    }

    fn read_line(&mut self) -> Result<()> {
        let read = self.read_reply();
        read.map_err(|e| self.fail(e))
    }

    fn read_reply(&mut self) -> Result<()> {
        self.line.clear();
        let n = (&mut self.rd).take(self.max_reply as u64 + 1).read_line(&mut self.line).map_err(|e| {
            let why = match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => "no reply in time (the URL's timeout=SECS sets how long to wait)".to_string(),
                _ => format!("the connection failed: {e}"),
            };
            StoreError::Backend(format!("{}: {why}", self.url))
        })?;
        if n == 0 {
            return Err(StoreError::Backend(format!("{}: the server closed the connection", self.url)));
        }
        if n > self.max_reply {
            return Err(StoreError::Backend(format!("{}: a reply longer than {} bytes (the URL's max_reply=BYTES allows more)", self.url, self.max_reply)));
        }
        // Upstream's idle probe byte.
        if self.line.starts_with('\u{16}') {
            self.line = self.line.trim_start_matches('\u{16}').to_string();
        }
        Ok(())
    }

    /// Sends commands and returns their replies, in order.
    fn ask_all(&mut self, cmds: &[String]) -> Result<Vec<String>> {
        self.usable()?;
        for c in cmds {
            self.wr.write_all(c.as_bytes()).and_then(|_| self.wr.write_all(b"\n")).map_err(|e| self.net(e))?;
        }
        self.settle()?;
        // Every reply is read before any is judged, so none is left for the
        // next command to take as its own.
        let mut replies = Vec::with_capacity(cmds.len());
        for _ in cmds {
            self.read_line()?;
            replies.push(self.line.trim_end().to_string());
        }
        if let Some(msg) = replies.iter().find_map(|r| r.strip_prefix("(error")) {
            return Err(StoreError::Backend(format!("{}: the server refused a command: {}", self.url, msg.trim_end_matches(')').trim())));
        }
        Ok(replies)
    }

    fn ask(&mut self, cmd: String) -> Result<String> {
        Ok(self.ask_all(&[cmd])?.pop().expect("one reply"))
    }

    /// Adds the atoms of a list reply `(A B ...)` to the space.
    fn add_list(&self, space: &AtomSpace, reply: &str) -> Result<Vec<Handle>> {
        let exprs = self.parse(reply)?;
        let Some(Expr::List(items, _)) = exprs.first() else { return Err(self.garbled(reply)) };
        items.iter().map(|e| sexpr::eval(&mut &*space, e).map_err(|e| self.garbled(&e.to_string()))).collect()
    }

    /// Applies a `cog-keys->alist` reply to `h`.
    fn apply_alist(&self, space: &AtomSpace, h: Handle, reply: &str) -> Result<()> {
        let exprs = self.parse(reply)?;
        let Some(Expr::List(pairs, _)) = exprs.first() else { return Err(self.garbled(reply)) };
        let me = self.parse(&structure(space, h)?)?.pop().ok_or_else(|| self.garbled(reply))?;
        for p in pairs {
            let Expr::List(kv, _) = p else { return Err(self.garbled(reply)) };
            let [k, Expr::Symbol(dot, _), v] = kv.as_slice() else { return Err(self.garbled(reply)) };
            if dot != "." {
                return Err(self.garbled(reply));
            }
            let pos = Pos { line: 1, col: 1 };
            let set = Expr::List(vec![Expr::Symbol("cog-set-value!".into(), pos), me.clone(), k.clone(), v.clone()], pos);
            sexpr::eval(&mut &*space, &set).map_err(|e| self.garbled(&e.to_string()))?;
        }
        Ok(())
    }

    /// Fetches the values of each atom, pipelined.
    fn fetch_values(&mut self, space: &AtomSpace, atoms: &[Handle]) -> Result<()> {
        let mut rest = atoms;
        while !rest.is_empty() {
            // Requests sent before their replies are read stay under
            // REQUEST_BYTES, so they fit the socket buffers: the server,
            // blocked writing a long reply, has already taken them all in,
            // and neither side waits on the other.
            let (mut cmds, mut bytes) = (Vec::new(), 0);
            while cmds.len() < rest.len() && cmds.len() < MAX_OWED && bytes < REQUEST_BYTES {
                let cmd = format!("(cog-keys->alist {})", structure(space, rest[cmds.len()])?);
                bytes += cmd.len() + 1;
                cmds.push(cmd);
            }
            let (chunk, later) = rest.split_at(cmds.len());
            let replies = self.ask_all(&cmds)?;
            for (&h, r) in chunk.iter().zip(&replies) {
                self.apply_alist(space, h, r)?;
            }
            rest = later;
        }
        Ok(())
    }

    fn parse(&self, reply: &str) -> Result<Vec<Expr>> {
        parse_str(reply).map_err(|e| self.garbled(&e.to_string()))
    }

    fn garbled(&self, what: &str) -> StoreError {
        let mut w = what.to_string();
        if let Some((cut, _)) = w.char_indices().nth(120) {
            w.truncate(cut);
        }
        StoreError::Backend(format!("{}: unexpected reply from the server: {w}", self.url))
    }

    fn get_atoms(&mut self, space: &AtomSpace, t: Type, subtypes: bool) -> Result<Vec<Handle>> {
        let reply = self.ask(format!("(cog-get-atoms '{}{})", t.name(), if subtypes { " #t" } else { "" }))?;
        let atoms = self.add_list(space, &reply)?;
        self.fetch_values(space, &atoms)?;
        Ok(atoms)
    }
}

/// The atom's structure, one line, no values.
fn lookup_command(space: &AtomSpace, h: Handle) -> Result<String> {
    let t = space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
    Ok(match space.name(h) {
        Some(name) => {
            let mut s = format!("(cog-node '{} ", t.name());
            write_str_literal(&mut s, name);
            s.push(')');
            s
        }
        None => {
            let mut s = format!("(cog-link '{}", t.name());
            for &c in space.outgoing(h).unwrap_or(&[]) {
                s.push(' ');
                write_structure(space, c, &mut s)?;
            }
            s.push(')');
            s
        }
    })
}

impl StorageNode for CogStore {
    fn url(&self) -> &str {
        &self.url
    }

    /// Runs `query` on the server, keeps the result there on the query
    /// under `key` (reusing a kept one unless `fresh`), and sets it here.
    fn fetch_query(&mut self, space: &AtomSpace, query: Handle, key: Handle, fresh: bool) -> Result<Value> {
        let (q, k) = (structure(space, query)?, structure(space, key)?);
        let cmd = if fresh { format!("(cog-execute-cache! {q} {k} (PredicateNode \"*-query-time-*\") #t)") } else { format!("(cog-execute-cache! {q} {k})") };
        let reply = self.ask(cmd)?;
        let set = self.parse(&format!("(cog-set-value! {q} {k} {reply})"))?.pop().ok_or_else(|| self.garbled(&reply))?;
        sexpr::eval(&mut &*space, &set).map_err(|e| self.garbled(&e.to_string()))?;
        space.get_value(query, key).ok_or_else(|| self.garbled(&reply))
    }

    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        self.send(&wire::store_atom(space, h)?)
    }

    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.send(&wire::store_value(space, h, key)?)
    }

    fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
        space.get_type(key).ok_or(atomweave::Error::InvalidHandle(key))?;
        let new = crate::update_in_space(space, h, key, delta)?;
        let mut cmd = format!("(cog-update-value! {} {} ", structure(space, h)?, structure(space, key)?);
        write_value(space, &Value::float(delta.to_vec()), &mut cmd)?;
        cmd.push(')');
        self.send(&cmd)?;
        Ok(new)
    }

    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        let look = lookup_command(space, h)?;
        // One after the other: upstream's server adds the atom it is asked
        // the values of.
        if self.ask(look)? == "()" {
            return Ok(false);
        }
        let alist = self.ask(format!("(cog-keys->alist {})", structure(space, h)?))?;
        self.apply_alist(space, h, &alist)?;
        Ok(true)
    }

    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        let (a, k) = (structure(space, h)?, structure(space, key)?);
        let reply = self.ask(format!("(cog-value {a} {k})"))?;
        if reply.trim() == "#f" || reply.trim().is_empty() {
            return Ok(false);
        }
        self.apply_alist(space, h, &format!("(({k} . {reply}))"))?;
        Ok(true)
    }

    fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<usize> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        let mut todo = vec![h];
        let mut seen = std::collections::HashSet::new();
        let mut count = 0;
        while let Some(x) = todo.pop() {
            let reply = self.ask(format!("(cog-incoming-set {})", structure(space, x)?))?;
            let links = self.add_list(space, &reply)?;
            self.fetch_values(space, &links)?;
            count += links.len();
            if recursive {
                todo.extend(links.into_iter().filter(|l| seen.insert(*l)));
            }
        }
        Ok(count)
    }

    fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: Type) -> Result<usize> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        let reply = self.ask(format!("(cog-incoming-by-type {} '{})", structure(space, h)?, t.name()))?;
        let links = self.add_list(space, &reply)?;
        self.fetch_values(space, &links)?;
        Ok(links.len())
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        Ok(self.get_atoms(space, t, false)?.len())
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let nodes = self.get_atoms(space, types::NODE, true)?.len() as u64;
        progress(nodes);
        let links = self.get_atoms(space, types::LINK, true)?.len() as u64;
        progress(nodes + links);
        Ok(nodes + links)
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let mut n = 0u64;
        // In any order: each command carries its atom's whole structure.
        // One copy of each content, as the other stores write.
        for h in space.one_copy_each().into_kept() {
            self.store_atom(space, h)?;
            n += 1;
            if n % 65536 == 0 {
                progress(n);
            }
        }
        self.barrier()?;
        progress(n);
        Ok(n)
    }

    fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        if !recursive && space.incoming_size(h).unwrap_or(0) > 0 {
            return Ok(false);
        }
        let cmd = if recursive { "cog-extract-recursive!" } else { "cog-extract!" };
        let reply = self.ask(format!("({cmd} {})", structure(space, h)?))?;
        if reply != "#t" {
            return Ok(false);
        }
        space.extract(h, recursive)?;
        Ok(true)
    }

    fn barrier(&mut self) -> Result<()> {
        self.settle()?;
        match self.refused.take() {
            Some(msg) => Err(StoreError::Backend(format!("{}: the server refused a write: {msg}", self.url))),
            None => Ok(()),
        }
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.barrier()?;
        // Leave the shell, then the connection, as upstream's client does.
        let _ = self.wr.write_all(b".\nquit\n").and_then(|_| self.wr.flush());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;

    use super::*;

    /// A fake server that greets, reads a command, then does `then`.
    fn hostile(then: fn(&mut std::net::TcpStream)) -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            s.write_all(PROMPT).unwrap();
            let mut b = [0u8; 64];
            let _ = s.read(&mut b);
            then(&mut s);
        });
        format!("cog://{addr}")
    }

    fn fetch(url: &str) -> String {
        let space = AtomSpace::new();
        let a = space.add_node(types::CONCEPT_NODE, "a").unwrap();
        let mut st = CogStore::open(url).unwrap();
        st.fetch_atom(&space, a).unwrap_err().to_string()
    }

    #[test]
    fn a_server_that_never_answers_is_a_timeout() {
        let url = hostile(|_| std::thread::sleep(Duration::from_secs(5)));
        let start = std::time::Instant::now();
        let err = fetch(&format!("{url}?timeout=1"));
        assert!(err.contains("no reply in time"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(4));
    }

    #[test]
    fn a_reply_without_end_is_refused_at_the_cap() {
        let url = hostile(|s| {
            let chunk = vec![b'x'; 1 << 16];
            while s.write_all(&chunk).is_ok() {}
        });
        let err = fetch(&format!("{url}?max_reply=1000000"));
        assert!(err.contains("a reply longer than 1000000 bytes"), "{err}");
    }

    /// A reply that comes after its command timed out is not taken for
    /// the next command's: the connection is given up, and every later
    /// call says so (the late reply was once read as the next one's).
    #[test]
    fn after_a_timeout_the_connection_is_not_used_again() {
        let url = hostile(|s| {
            std::thread::sleep(Duration::from_secs(2));
            let _ = s.write_all(b"(ConceptNode \"late\")\n");
            let mut b = [0u8; 4096];
            while let Ok(n) = s.read(&mut b) {
                if n == 0 || s.write_all(b"#f\n").is_err() {
                    break;
                }
            }
        });
        let space = AtomSpace::new();
        let a = space.add_node(types::CONCEPT_NODE, "a").unwrap();
        let k = space.add_node(types::PREDICATE_NODE, "k").unwrap();
        let mut st = CogStore::open(&format!("{url}?timeout=1")).unwrap();
        let first = st.fetch_atom(&space, a).unwrap_err().to_string();
        assert!(first.contains("no reply in time"), "{first}");
        std::thread::sleep(Duration::from_millis(1500));
        let next = st.fetch_value(&space, a, k).map_err(|e| e.to_string());
        assert!(next.as_ref().is_err_and(|e| e.contains("closed since an earlier failure")), "{next:?}");
        assert_eq!(space.get_value(a, k), None);
    }

    #[test]
    fn url_parameters_are_checked() {
        let err = CogStore::open("cog://127.0.0.1:1?timeout=soon").err().unwrap().to_string();
        assert!(err.contains("timeout= takes a whole number"), "{err}");
    }
}

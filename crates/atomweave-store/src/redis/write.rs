//! Atoms and values written into Redis, a batch at a time.
//!
//! A batch is planned first (every atom it stores, with its members, the
//! incoming entries that index them, their records and values), then sent
//! in waves, each many commands in flight: the incoming entries first
//! (`ZADD` per bucket), then the records a level at a time, nodes first
//! and each link after its members, each bucket's share in one Lua script
//! so that an atom's record and values change at once. A reader thus
//! never finds a record whose index entries or members are missing; a
//! writer that dies midway leaves entries without records, which readers
//! skip, and its retry writes the same keys again (every write is by
//! content, so idempotent).
//!
//! **Invariant:** a wave is sent only once the one before it is answered;
//! with `wait=N`, a batch is reported stored only once `WAIT` says N
//! replicas of every master hold it.

use atomweave::{without_read_through, AtomSource, AtomSpace, Handle, Value};
use redis::Cmd;

use super::conn::{Call, Group, Script, Sending};
use super::layout::{encode_value, entry, hub_name, page_of, pages_for, tv_bytes, Body, Buckets, Id, Record, Ref};
use super::RedisStore;
use crate::{apply_ops, live_values, Batching, HashMap, HashSet, Op, OpWriter, Result, StoreError};

/// Writes the records and values of one group's atoms where a plain
/// command cannot (a value changed, or an atom replaced with its values,
/// at once), in order. KEYS are the keys it writes; ARGV its operations,
/// each a letter and its arguments (a key given as its position in KEYS):
/// - `n rkey id record`: the record, unless there is one;
/// - `a rkey id record vkey count (field value)*`: the record, and the
///   atom's values replaced by these;
/// - `t rkey id flags tv`: the truth value in the record replaced;
/// - `v rkey id vkey field value`: one value set (an empty value: removed),
///   and the record marked as having values;
/// - `u rkey id vkey field n delta*`: `delta` added to the FloatValue under
///   `field` (anything else there counts as none), or with no `field`, to
///   the count of the truth value (made a count truth value).
const WRITE_LUA: &str = r#"
local function mark(rkey, id)
  local r = redis.call('HGET', rkey, id)
  if r and bit.band(string.byte(r, 1), 8) == 0 then
    redis.call('HSET', rkey, id, string.char(bit.bor(string.byte(r, 1), 8)) .. string.sub(r, 2))
  end
end
local function tv_len(f)
  if bit.band(f, 4) ~= 0 then return 24 elseif bit.band(f, 2) ~= 0 then return 16 end
  return 0
end
local i = 1
while i <= #ARGV do
  local op, rkey, id = ARGV[i], KEYS[tonumber(ARGV[i+1])], ARGV[i+2]
  if op == 'n' then
    redis.call('HSETNX', rkey, id, ARGV[i+3])
    i = i + 4
  elseif op == 'a' then
    local vkey, n = KEYS[tonumber(ARGV[i+4])], tonumber(ARGV[i+5])
    redis.call('DEL', vkey)
    for j = 0, n - 1 do redis.call('HSET', vkey, ARGV[i+6+2*j], ARGV[i+7+2*j]) end
    redis.call('HSET', rkey, id, ARGV[i+3])
    i = i + 6 + 2 * n
  elseif op == 't' then
    local r = redis.call('HGET', rkey, id)
    if r then
      local f = string.byte(r, 1)
      local nf = bit.bor(bit.band(f, 249), tonumber(ARGV[i+3]))
      redis.call('HSET', rkey, id, string.char(nf) .. ARGV[i+4] .. string.sub(r, 2 + tv_len(f)))
    end
    i = i + 5
  elseif op == 'v' then
    local vkey, field, val = KEYS[tonumber(ARGV[i+3])], ARGV[i+4], ARGV[i+5]
    if val == '' then
      redis.call('HDEL', vkey, field)
    else
      redis.call('HSET', vkey, field, val)
      mark(rkey, id)
    end
    i = i + 6
  elseif op == 'u' then
    local vkey, field, n = KEYS[tonumber(ARGV[i+3])], ARGV[i+4], tonumber(ARGV[i+5])
    local d = {}
    for j = 1, n do d[j] = tonumber(ARGV[i+5+j]) end
    if field == '' then
      local r = redis.call('HGET', rkey, id)
      if r then
        local f = string.byte(r, 1)
        local mean, conf, count = 1.0, 0.0, 0.0
        if bit.band(f, 4) ~= 0 then mean, conf, count = struct.unpack('<ddd', r, 2) end
        count = count + (d[1] or 0)
        redis.call('HSET', rkey, id, string.char(bit.bor(bit.band(f, 249), 4)) .. struct.pack('<ddd', mean, conf, count) .. string.sub(r, 2 + tv_len(f)))
      end
    else
      local v = redis.call('HGET', vkey, field)
      local xs = {}
      if v and string.byte(v, 1) == 0 and string.byte(v, 2) == 0 then
        local len = struct.unpack('<I4', v, 3)
        for j = 1, len do xs[j] = struct.unpack('<d', v, 7 + 8 * (j - 1)) end
      end
      for j = 1, n do xs[j] = (xs[j] or 0) + d[j] end
      local out = {string.char(0, 0), struct.pack('<I4', #xs)}
      for j = 1, #xs do out[#out + 1] = struct.pack('<d', xs[j]) end
      redis.call('HSET', vkey, field, table.concat(out))
      mark(rkey, id)
    end
    i = i + 6 + n
  else
    return redis.error_reply('atomweave: unknown write ' .. op)
  end
end
return 0
"#;

/// Gives a type its code, once for all writers: the same name always
/// gets the same code, and a code is readable as soon as it is given.
const CODE_LUA: &str = r#"
local c = redis.call('HGET', KEYS[1], ARGV[1])
if c then return tonumber(c) end
c = redis.call('HINCRBY', KEYS[3], 'typeseq', 1)
redis.call('HSET', KEYS[1], ARGV[1], c)
redis.call('HSET', KEYS[2], c, ARGV[1])
return c
"#;

pub(super) struct Scripts {
    pub(super) write: Script,
    pub(super) code: Script,
}

impl Scripts {
    pub(super) fn new() -> Scripts {
        Scripts { write: Script::new(WRITE_LUA), code: Script::new(CODE_LUA) }
    }
}

/// One group's share of a wave: its keys and operations.
#[derive(Default)]
struct GroupOps {
    keys: Vec<Vec<u8>>,
    /// Each key's position in `keys`.
    places: HashMap<Vec<u8>, usize>,
    args: Vec<Vec<u8>>,
}

impl GroupOps {
    /// The key's position in KEYS, as an argument (Lua counts from 1).
    fn key(&mut self, k: Vec<u8>) -> Vec<u8> {
        let at = match self.places.get(&k) {
            Some(&at) => at,
            None => {
                let at = self.keys.len();
                self.places.insert(k.clone(), at);
                self.keys.push(k);
                at
            }
        };
        (at + 1).to_string().into_bytes()
    }
}

/// One group's writes in one wave, sent as one pipeline to its slot's
/// master, in this order: records (plain commands, many atoms each), then
/// the script, which may change a record written before it.
#[derive(Default)]
struct GroupWrites {
    /// `ZADD GT` of hubs' page counts, by bucket.
    hubs: HashMap<u32, Cmd>,
    /// `ZADD` of incoming entries, by bucket (and hub and page).
    entries: HashMap<(u32, Option<(Id, u32)>), Cmd>,
    /// `HSET` of whole atoms' records (of atoms without values), by
    /// (bucket, type code).
    records: HashMap<(u32, u32), Cmd>,
    /// `HSETNX` of members' records, one each.
    members: Vec<Cmd>,
    /// `DEL` of the values of whole atoms stored without values.
    no_values: Option<Cmd>,
    script: GroupOps,
}

/// A batch's writes, planned.
#[derive(Default)]
pub(super) struct Plan {
    /// Incoming entries, by group.
    entries: HashMap<u32, GroupWrites>,
    /// Record writes by level (nodes 0, a link one more than its highest
    /// member), then by group.
    levels: Vec<HashMap<u32, GroupWrites>>,
    /// Atoms whose record this batch writes, with their level.
    planned: HashMap<Id, usize>,
    /// Atoms (planned) whose entries are planned.
    indexed: HashSet<Id>,
    /// Hubs whose page count is planned.
    hubs: HashSet<Id>,
    /// The store held no atoms when the batch began: no old values to remove.
    fresh: bool,
}

impl Plan {
    /// The pipelines to send, wave by wave: entries, then each level.
    fn into_waves(self, write: &Script) -> Vec<Vec<Group>> {
        std::iter::once(self.entries).chain(self.levels).map(|wave| wave.into_values().map(|w| w.into_group(write)).collect()).collect()
    }

    fn writes(&mut self, buckets: Buckets, level: usize, id: Id) -> &mut GroupWrites {
        while self.levels.len() <= level {
            self.levels.push(HashMap::default());
        }
        self.levels[level].entry(Buckets::group(buckets.of(id))).or_default()
    }

    fn group(&mut self, buckets: Buckets, level: usize, id: Id) -> &mut GroupOps {
        &mut self.writes(buckets, level, id).script
    }

    /// Adds `member`'s entry saying `link` holds it at `pos`, in its
    /// bucket's index or, for a hub of `pages` pages, in its page.
    fn entry(&mut self, buckets: Buckets, member: Id, link: Ref, pos: usize, pages: Option<u32>) {
        let b = buckets.of(member);
        let group = self.entries.entry(Buckets::group(b)).or_default();
        let at = pages.map(|n| (member, page_of(link.id, n)));
        if let Some(n) = pages.filter(|_| self.hubs.insert(member)) {
            let marks = group.hubs.entry(b).or_insert_with(|| {
                let mut c = cmd_on("ZADD", buckets.hubs(member));
                c.arg("GT");
                c
            });
            marks.arg(n).arg(&hub_name(member)[..]);
        }
        let cmd = group.entries.entry((b, at)).or_insert_with(|| cmd_on("ZADD", at.map_or_else(|| buckets.incoming(member), |(m, p)| buckets.page(m, p))));
        cmd.arg(0).arg(entry(member, link, pos));
    }
}

impl GroupWrites {
    /// The pipeline of these writes.
    fn into_group(self, write: &Script) -> Group {
        let mut pipe = redis::pipe();
        let cmds = self.hubs.into_values().chain(self.entries.into_values()).chain(self.records.into_values()).chain(self.members).chain(self.no_values);
        cmds.for_each(|c| {
            pipe.add_command(c);
        });
        if !self.script.args.is_empty() {
            let mut c = redis::cmd("EVALSHA");
            c.arg(write.sha.as_str()).arg(self.script.keys.len()).arg(&self.script.keys).arg(&self.script.args);
            pipe.add_command(c);
        }
        Group { pipe }
    }
}

impl RedisStore {
    /// The content id of `h`, from the cache or worked out from its
    /// members' (a work list: links nest arbitrarily deep).
    pub(super) fn id_of(&mut self, space: &AtomSpace, h: Handle) -> Result<Id> {
        let mut work = vec![h];
        while let Some(&x) = work.last() {
            if self.ids.get(&x).is_some() {
                work.pop();
                continue;
            }
            let t = space.get_type(x).ok_or(atomweave::Error::InvalidHandle(x))?;
            let id = if t.is_link() {
                let out = space.outgoing(x).unwrap_or_default();
                let missing: Vec<Handle> = out.iter().copied().filter(|m| self.ids.get(m).is_none()).collect();
                if !missing.is_empty() {
                    work.extend(missing);
                    continue;
                }
                let mut ids: Vec<Id> = out.iter().map(|m| self.ids[m]).collect();
                Id::link(t, &mut ids)
            } else {
                Id::node(t, space.name(x).unwrap_or_default())
            };
            self.ids.insert(x, id);
            work.pop();
        }
        Ok(self.ids[&h])
    }

    /// The store's reference to `h`: its type's code (given now if the
    /// type has none) and its content id.
    pub(super) fn ref_of(&mut self, space: &AtomSpace, h: Handle) -> Result<Ref> {
        let t = space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        Ok(Ref { code: self.code_of(t)?, id: self.id_of(space, h)? })
    }

    /// The record of `h` as the space holds it.
    fn record_of(&mut self, space: &AtomSpace, h: Handle, has_values: bool) -> Result<Record> {
        let tv = space.get_tv(h).unwrap_or_default();
        let body = if space.is_link(h) {
            Body::Link(space.outgoing(h).unwrap_or_default().iter().map(|&m| self.ref_of(space, m)).collect::<Result<_>>()?)
        } else {
            Body::Node(space.name(h).unwrap_or_default().to_string())
        };
        Ok(Record { tv, has_values, body })
    }

    /// Plans `h` and its members: each one's record (written if absent,
    /// but for `h` itself when `whole`, whose record and values are
    /// replaced) and the entries indexing the links among them. Returns
    /// `h`'s level.
    fn plan_atom(&mut self, plan: &mut Plan, space: &AtomSpace, h: Handle, whole: bool) -> Result<usize> {
        let href = self.ref_of(space, h)?;
        let mut work = vec![h];
        while let Some(&x) = work.last() {
            let r = self.ref_of(space, x)?;
            if plan.planned.contains_key(&r.id) && !(x == h && whole) {
                work.pop();
                continue;
            }
            let out = space.outgoing(x).unwrap_or_default();
            let mut level = 0;
            let mut missing = false;
            for &m in out.iter() {
                match plan.planned.get(&self.ids[&m]) {
                    Some(&l) => level = level.max(l + 1),
                    None => {
                        work.push(m);
                        missing = true;
                    }
                }
            }
            if missing {
                continue;
            }
            work.pop();
            if plan.indexed.insert(r.id) {
                for (pos, &m) in out.iter().enumerate() {
                    let pages = pages_for(without_read_through(|| space.incoming_size(m)).unwrap_or(0));
                    plan.entry(self.buckets, self.ids[&m], r, pos, pages);
                }
            }
            let buckets = self.buckets;
            if x == h && whole {
                let values: Vec<(Handle, Value)> = live_values(space, x).into_iter().filter(|(k, _)| !space.is_tv_key(*k)).collect();
                let rec = self.record_of(space, x, !values.is_empty())?.encode();
                let mut fields = Vec::with_capacity(values.len() * 2);
                for (k, v) in &values {
                    let kref = self.ref_of(space, *k)?;
                    let key_level = self.plan_atom(plan, space, *k, false)?;
                    level = level.max(key_level);
                    fields.push(ref_bytes(kref));
                    fields.push(self.value_bytes(space, plan, v, &mut level)?);
                }
                if values.is_empty() {
                    // A plain write: the record, and (but into a store that
                    // was empty) whatever values it had stored before, gone.
                    let fresh = plan.fresh;
                    let w = plan.writes(buckets, level, r.id);
                    w.records
                        .entry((buckets.of(r.id), r.code))
                        .or_insert_with(|| cmd_on("HSET", buckets.records(r.id, r.code)))
                        .arg(&r.id.bytes()[..])
                        .arg(rec);
                    if !fresh {
                        w.no_values.get_or_insert_with(|| redis::cmd("DEL")).arg(buckets.values(r.id));
                    }
                } else {
                    let ops = plan.group(buckets, level, r.id);
                    let (rk, vk) = (ops.key(buckets.records(r.id, r.code)), ops.key(buckets.values(r.id)));
                    ops.args.extend([b"a".to_vec(), rk, r.id.bytes().to_vec(), rec, vk, (values.len()).to_string().into_bytes()]);
                    ops.args.extend(fields);
                }
            } else {
                let rec = self.record_of(space, x, false)?.encode();
                let mut c = cmd_on("HSETNX", buckets.records(r.id, r.code));
                c.arg(&r.id.bytes()[..]).arg(rec);
                plan.writes(buckets, level, r.id).members.push(c);
            }
            plan.planned.insert(r.id, level);
        }
        debug_assert!(plan.planned.contains_key(&href.id));
        Ok(plan.planned[&href.id])
    }

    /// A value's bytes, the atoms it holds planned first (`level` raised
    /// past theirs).
    fn value_bytes(&mut self, space: &AtomSpace, plan: &mut Plan, v: &Value, level: &mut usize) -> Result<Vec<u8>> {
        for a in v.atoms() {
            *level = (*level).max(self.plan_atom(plan, space, a, false)? + 1);
        }
        encode_value(v, |a| self.ref_of(space, a))
    }

    /// Plans one value of `h` (its truth value, or the one under `key`).
    fn plan_value(&mut self, plan: &mut Plan, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        let mut level = self.plan_atom(plan, space, h, false)?;
        let r = self.ref_of(space, h)?;
        let buckets = self.buckets;
        if space.is_tv_key(key) {
            let mut tv = Vec::new();
            let flags = tv_bytes(space.get_tv(h).unwrap_or_default(), &mut tv);
            let ops = plan.group(buckets, level, r.id);
            let rk = ops.key(buckets.records(r.id, r.code));
            ops.args.extend([b"t".to_vec(), rk, r.id.bytes().to_vec(), flags.to_string().into_bytes(), tv]);
            return Ok(());
        }
        let kref = self.ref_of(space, key)?;
        level = level.max(self.plan_atom(plan, space, key, false)?);
        let bytes = match space.get_value(h, key) {
            Some(v) => self.value_bytes(space, plan, &v, &mut level)?,
            None => Vec::new(),
        };
        let ops = plan.group(buckets, level, r.id);
        let (rk, vk) = (ops.key(buckets.records(r.id, r.code)), ops.key(buckets.values(r.id)));
        ops.args.extend([b"v".to_vec(), rk, r.id.bytes().to_vec(), vk, ref_bytes(kref), bytes]);
        Ok(())
    }

    /// Plans adding `delta` to the stored value of `h` under `key` (its
    /// truth value's count, under the truth-value key), in the store.
    fn plan_update(&mut self, plan: &mut Plan, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()> {
        let mut level = self.plan_atom(plan, space, h, false)?;
        let r = self.ref_of(space, h)?;
        let field = if space.is_tv_key(key) {
            Vec::new()
        } else {
            level = level.max(self.plan_atom(plan, space, key, false)?);
            ref_bytes(self.ref_of(space, key)?)
        };
        let buckets = self.buckets;
        let ops = plan.group(buckets, level, r.id);
        let (rk, vk) = (ops.key(buckets.records(r.id, r.code)), ops.key(buckets.values(r.id)));
        ops.args.extend([b"u".to_vec(), rk, r.id.bytes().to_vec(), vk, field, delta.len().to_string().into_bytes()]);
        ops.args.extend(delta.iter().map(|d| d.to_string().into_bytes()));
        Ok(())
    }

    /// Sends a planned batch: entries, then records a level at a time,
    /// then, with `wait=N`, waits for the replicas.
    pub(super) fn send(&mut self, plan: Plan, atoms: usize) -> Result<()> {
        let write = &self.scripts.write;
        for wave in plan.into_waves(write) {
            self.conn.run_groups(wave, &[write])?;
        }
        self.confirm(atoms)
    }

    /// With `wait=N`: waits until N replicas of every master hold what
    /// was sent, or says the batch of `atoms` writes is not replicated.
    fn confirm(&self, atoms: usize) -> Result<()> {
        if self.wait == 0 {
            return Ok(());
        }
        let reached = self.conn.wait(self.wait)?;
        if reached < self.wait {
            return Err(StoreError::Backend(format!(
                "{}: a batch of {atoms} writes is on the masters but not replicated: WAIT {} reached {reached} replica(s) within {} s",
                self.url,
                self.wait,
                self.timeout.as_secs_f64()
            )));
        }
        Ok(())
    }
}

/// A command on `key`, its arguments to follow.
fn cmd_on(name: &str, key: Vec<u8>) -> Cmd {
    let mut c = redis::cmd(name);
    c.arg(key);
    c
}

/// A reference as a value field's name.
fn ref_bytes(r: Ref) -> Vec<u8> {
    let mut out = Vec::with_capacity(18);
    r.put(&mut out);
    out
}

/// Plans a batch's [`Op`]s (through [`apply_ops`]).
struct Planner<'a> {
    store: &'a mut RedisStore,
    plan: Plan,
}

impl OpWriter for Planner<'_> {
    fn atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.store.plan_atom(&mut self.plan, space, h, true).map(drop)
    }

    fn value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.store.plan_value(&mut self.plan, space, h, key)
    }

    fn update(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()> {
        self.store.plan_update(&mut self.plan, space, h, key, delta)
    }
}

impl Batching for RedisStore {
    fn pending(&mut self) -> (&mut Vec<Op>, &mut Option<AtomSpace>) {
        (&mut self.pending, &mut self.pending_space)
    }

    fn write_batch(&mut self, space: &AtomSpace, ops: &[Op]) -> Result<()> {
        self.ids.use_space(space);
        let mut planner = Planner { store: self, plan: Plan::default() };
        apply_ops(&mut planner, space, ops)?;
        let plan = planner.plan;
        self.send(plan, ops.len()).map_err(|e| match e {
            StoreError::Backend(msg) => StoreError::Backend(format!("{msg}; the batch stays queued, and the next flush or barrier writes it again")),
            e => e,
        })
    }
}

impl RedisStore {
    /// Has no atom ever been written (no type has a code)? Then a whole
    /// space stored has no old values to remove. (Another writer starting
    /// at the same moment may write values this store then leaves.)
    fn holds_no_atoms(&self) -> Result<bool> {
        let mut c = redis::cmd("HLEN");
        c.arg(super::layout::CODES_KEY);
        Ok(matches!(self.conn.one(Call::Cmd(c))?, redis::Value::Int(0)))
    }

    /// Stores every atom of the space, a batch at a time, each with its
    /// truth value and values.
    pub(super) fn store_whole(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.ids.use_space(space);
        let all = space.one_copy_each().into_kept();
        let fresh = self.holds_no_atoms()?;
        // A new master after a failover lacks the script: sent batches
        // cannot load it midway, so it is loaded everywhere first.
        self.conn.load_scripts(&[&self.scripts.write])?;
        let mut stored = 0u64;
        // Each batch is sent while the next is planned.
        let mut sending: Option<(Sending<()>, usize)> = None;
        for chunk in all.chunks(crate::BATCH) {
            let mut plan = Plan { fresh, ..Plan::default() };
            for &h in chunk {
                self.plan_atom(&mut plan, space, h, true)?;
            }
            if let Some((s, n)) = sending.take() {
                self.conn.finish(s)?;
                self.confirm(n)?;
                stored += n as u64;
                progress(stored);
            }
            sending = Some((self.conn.send_waves(plan.into_waves(&self.scripts.write))?, chunk.len()));
        }
        if let Some((s, n)) = sending {
            self.conn.finish(s)?;
            self.confirm(n)?;
            stored += n as u64;
            progress(stored);
        }
        Ok(stored)
    }
}

//! `GET /metrics`: the server's figures for Prometheus (the OpenMetrics text
//! format Prometheus scrapes), behind the web port's token rule.
//!
//! Commands are counted by shell and outcome, and timed into a histogram
//! per shell, where they are evaluated ([`Metrics::command`]); the rest
//! (connections, atoms, memory, the store's commits and lag) is read from the
//! server's state when scraped.

use std::fmt::Write as _;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

/// The shells that evaluate commands.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub(crate) enum Shell {
    Sexpr,
    Json,
    Scm,
    /// MCP's requests at `/mcp` (not a shell, but commands as theirs are).
    Mcp,
}

#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
enum Outcome {
    Ok,
    Error,
}

// Label values as the shells are named (lower case).
impl EncodeLabelValue for Shell {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
        encoder.write_str(match self {
            Shell::Sexpr => "sexpr",
            Shell::Json => "json",
            Shell::Scm => "scm",
            Shell::Mcp => "mcp",
        })
    }
}

impl EncodeLabelValue for Outcome {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
        encoder.write_str(match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
        })
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CommandLabels {
    shell: Shell,
    outcome: Outcome,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ShellLabels {
    shell: Shell,
}

const SHELLS: [Shell; 4] = [Shell::Sexpr, Shell::Json, Shell::Scm, Shell::Mcp];

/// The registry, and handles to what commands update (made once, so that
/// a command touches two atomics and a histogram, no label lookup).
pub(crate) struct Metrics {
    registry: Registry,
    /// Per shell: (ok, error) counters and the latency histogram.
    by_shell: [(Counter, Counter, Histogram); 4],
    gauges: Gauges,
    /// One scrape at a time: each brings the counters up to the server's.
    scraping: parking_lot::Mutex<()>,
}

/// Figures read from the server's state at each scrape.
#[derive(Default)]
struct Gauges {
    open: Gauge,
    accepted: Counter,
    refused: Counter,
    timed_out: Counter,
    over_budget: Counter,
    atoms: Gauge,
    resident: Gauge,
    store_commits: Counter,
    store_errors: Counter,
    store_lag: Gauge,
}

/// What a scrape reads from the server.
pub(crate) struct Snapshot {
    pub open: u64,
    pub accepted: u64,
    pub refused: u64,
    pub timed_out: u64,
    pub over_budget: u64,
    pub atoms: u64,
    pub resident_bytes: u64,
    pub store_commits: u64,
    pub store_errors: u64,
    pub store_lag: u64,
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("atomweave");
        let commands = Family::<CommandLabels, Counter>::default();
        // 10 us to about 10 s, by factors of 4.
        let latency = Family::<ShellLabels, Histogram>::new_with_constructor(|| Histogram::new(exponential_buckets(1e-5, 4.0, 11)));
        let by_shell = SHELLS.map(|shell| {
            let count = |outcome| commands.get_or_create(&CommandLabels { shell, outcome }).clone();
            (count(Outcome::Ok), count(Outcome::Error), latency.get_or_create(&ShellLabels { shell }).clone())
        });
        registry.register("commands", "Commands evaluated, by shell and outcome", commands);
        registry.register_with_unit("command_duration", "Time to evaluate a command, by shell", Unit::Seconds, latency);
        let gauges = Gauges::default();
        registry.register("connections_open", "Connections open now (telnet and web)", gauges.open.clone());
        registry.register("connections_accepted", "Connections accepted since start", gauges.accepted.clone());
        registry.register("connections_refused", "Connections refused at the connection cap", gauges.refused.clone());
        registry.register("connections_timed_out", "Connections closed idle or slow to send their request", gauges.timed_out.clone());
        registry.register("connections_over_budget", "Connections closed over the input budget", gauges.over_budget.clone());
        registry.register("atoms", "Atoms in the server's AtomSpace", gauges.atoms.clone());
        registry.register_with_unit("resident_memory", "Resident memory of the process", Unit::Bytes, gauges.resident.clone());
        registry.register("store_commits", "Batches of writes the store made durable", gauges.store_commits.clone());
        registry.register("store_errors", "Commits the store failed", gauges.store_errors.clone());
        registry.register("store_lag_writes", "Writes handed to the store and not yet durable", gauges.store_lag.clone());
        Metrics { registry, by_shell, gauges, scraping: parking_lot::Mutex::new(()) }
    }

    /// Counts one command of `shell`, and times it if it was evaluated
    /// (`None`: refused without evaluating, which is no latency).
    pub(crate) fn command(&self, shell: Shell, ok: bool, took: Option<Duration>) {
        let (oks, errors, latency) = &self.by_shell[shell as usize];
        if ok { oks } else { errors }.inc();
        if let Some(took) = took {
            latency.observe(took.as_secs_f64());
        }
    }

    /// The page: every figure, with `now` read from the server.
    pub(crate) fn render(&self, now: Snapshot) -> String {
        let _one = self.scraping.lock();
        let g = &self.gauges;
        let set = |c: &Counter, v: u64| {
            // A counter only grows; the server's own counters do too.
            c.inc_by(v.saturating_sub(c.get()));
        };
        g.open.set(now.open as i64);
        set(&g.accepted, now.accepted);
        set(&g.refused, now.refused);
        set(&g.timed_out, now.timed_out);
        set(&g.over_budget, now.over_budget);
        g.atoms.set(now.atoms as i64);
        g.resident.set(now.resident_bytes as i64);
        set(&g.store_commits, now.store_commits);
        set(&g.store_errors, now.store_errors);
        g.store_lag.set(now.store_lag as i64);
        let mut page = String::new();
        prometheus_client::encoding::text::encode(&mut page, &self.registry).expect("writing to a String does not fail");
        page
    }
}

/// The page's content type.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

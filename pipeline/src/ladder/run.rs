//! Playing a ladder: the agents whose external needs are present, every pairing of the round
//! robin (eval's [`plan`]: pair `k` with seed `seed + 7919 k`) and the head-to-head matches, each
//! pairing with fresh agents (agent `i` seeded `seed + 101 i`), so that a pairing's games do not
//! depend on which pairings ran before it in the same process, nor on how many are played at
//! a time (`jobs`, one thread each). A pairing saved in the work folder is read back instead of
//! played; the Elo table is fitted over all of them.

use super::config::LadderConfig;
use super::limits::{describe_limits, effective_limits};
use super::record::{LadderAgent, LadderResult, LeftOut, PairLog};
use super::work::{played_specs, settings_table, WorkDir};
use super::LadderError;
use shogilab_engine::Variant;
use shogilab_eval::agent::{Agent, AgentError, Limits};
use shogilab_eval::gauntlet::{fit_table, plan, GauntletConfig, GauntletMode};
use shogilab_eval::r#match::{run_match, GameRecord, MatchConfig};
use shogilab_eval::selfplay::Evaluator;
use shogilab_eval::Openings;
use shogilab_eval::{parse_agent_spec, ExtraError, ExtraEvaluators, WithLimits};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Where and how to run.
pub struct RunOptions<'a> {
    /// The work folder (settings and saved pairings).
    pub out_dir: PathBuf,
    /// Evaluators for `mcts:NAME` beyond `uniform` and `material` (checkpoints).
    pub extra: ExtraEvaluators<'a>,
    /// Progress lines (one per pairing and per game; from several threads when `jobs` > 1).
    pub log: &'a (dyn Fn(&str) + Sync),
    /// Pairings played at a time, each on its own thread (at least 1). With agents limited by
    /// time, keep it at most the number of cores so that every game has a core.
    pub jobs: usize,
}

/// Builds the ladder's agents afresh, each evaluator loaded once.
struct Agents<'a> {
    variant: Arc<Variant>,
    names: Vec<String>,
    /// Specs without limits, and the limits each agent plays at.
    specs: Vec<String>,
    limits: Vec<Limits>,
    seed: u64,
    /// Where each agent stands in the configuration, and the configuration's file.
    config_index: Vec<usize>,
    source: PathBuf,
    extra: ExtraEvaluators<'a>,
    /// Evaluators loaded so far, by name.
    cache: Mutex<HashMap<String, Arc<dyn Evaluator>>>,
}

impl Agents<'_> {
    fn make(&self, k: usize) -> Result<Box<dyn Agent>, LadderError> {
        let extra = |name: &str| -> Option<Result<Arc<dyn Evaluator>, ExtraError>> {
            // held while loading, so that two threads never load the same checkpoint twice
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(e) = cache.get(name) {
                return Some(Ok(Arc::clone(e)));
            }
            let e = (self.extra)(name)?;
            if let Ok(e) = &e {
                cache.insert(name.to_string(), Arc::clone(e));
            }
            Some(e)
        };
        let seed = self.seed.wrapping_add(k as u64 * 101);
        let mut inner = parse_agent_spec(&self.specs[k], &self.variant, seed, &extra)
            .map_err(|e| self.refused(k, e))?;
        let limits = self.limits[k];
        if limits != Limits::default() {
            inner = Box::new(WithLimits::new(inner, limits).map_err(|e| self.refused(k, e))?);
        }
        Ok(Box::new(WithLimits::renamed(inner, self.names[k].clone())))
    }

    /// An agent that cannot be built, as an error naming the configuration key.
    fn refused(&self, k: usize, e: AgentError) -> LadderError {
        let field = match &e {
            AgentError::Limit { limit, .. } if limit.starts_with("nodes") => "nodes",
            AgentError::Limit { .. } => "movetime_ms",
            _ => "spec",
        };
        LadderError::Invalid {
            path: self.source.clone(),
            key: format!("agent[{}].{field}", self.config_index[k]),
            reason: format!("{:?}: {e}", self.names[k]),
        }
    }
}

/// Counts of pairings read back and played.
#[derive(Default)]
struct Counts {
    reused: AtomicUsize,
    played: AtomicUsize,
}

/// One pairing to play or read back: its number in its group (the saved file's name), the
/// agents' places on the ladder and the match settings.
struct Job {
    k: usize,
    pair: (usize, usize),
    mc: MatchConfig,
}

/// Where the pairings of one group are played and saved, and what reports on them.
struct Venue<'w, 'a> {
    work: &'w WorkDir,
    group: &'static str,
    agents: &'w Agents<'a>,
    log: &'w (dyn Fn(&str) + Sync),
    counts: &'w Counts,
}

/// Every job of `venue`, `jobs` at a time (each on its own thread, taking the next job when
/// it is done), in the order of `list`. The first error stops new jobs from starting and is
/// returned once the running ones end (what they finished is saved).
fn play_all(venue: &Venue<'_, '_>, list: &[Job], jobs: usize) -> Result<Vec<PairLog>, LadderError> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<PairLog, LadderError>>>> =
        list.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, list.len().max(1)) {
            s.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = list.get(n) else { break };
                let r = pairing(venue, job);
                let failed = r.is_err();
                *slots[n].lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
                if failed {
                    next.store(list.len(), Ordering::SeqCst);
                }
            });
        }
    });
    let results = slots.into_iter().map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner));
    results.flatten().collect()
}

/// One pairing: read back from the venue's work folder, or played and saved.
fn pairing(venue: &Venue<'_, '_>, job: &Job) -> Result<PairLog, LadderError> {
    let Venue { work, group, agents, log, counts } = *venue;
    let (k, (i, j), mc) = (job.k, job.pair, &job.mc);
    let (an, bn) = (&agents.names[i], &agents.names[j]);
    if let Some(saved) = work.load(group, k)? {
        if (&saved.a, &saved.b) != (an, bn) {
            return Err(LadderError::SavedMismatch {
                path: work.path().join(group).join(format!("{k:02}.json")),
                found: format!("{} vs {}", saved.a, saved.b),
                expected: format!("{an} vs {bn}"),
            });
        }
        log(&format!("== {group} {k:02}: {an} vs {bn}: reused ({})", saved.tally.describe()));
        counts.reused.fetch_add(1, Ordering::SeqCst);
        return Ok(saved);
    }
    log(&format!("== {group} {k:02}: {an} vs {bn}, {} games", mc.games));
    let (mut a, mut b) = (agents.make(i)?, agents.make(j)?);
    let t0 = Instant::now();
    let mut on_game = |g: &GameRecord| {
        log(&format!(
            "   {group} {k:02} game {:>3}: {} (black) vs {} (white): {} in {} plies",
            g.index + 1,
            g.black,
            g.white,
            g.result.describe(),
            g.result.plies
        ))
    };
    let r = run_match(a.as_mut(), b.as_mut(), &agents.variant, mc, &mut on_game)?;
    let pl = PairLog::from_match(&r, an, bn, t0.elapsed().as_secs_f64());
    work.save(group, k, &pl)?;
    log(&format!("   {group} {k:02} {an} vs {bn}: {}", pl.tally.describe()));
    counts.played.fetch_add(1, Ordering::SeqCst);
    Ok(pl)
}

/// The version of a Debian package, when `dpkg-query` knows it.
fn package_version(pkg: &str) -> Option<String> {
    let out = std::process::Command::new("dpkg-query")
        .args(["-W", "-f", "${Version}", pkg])
        .output()
        .ok()?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !v.is_empty()).then_some(v)
}

/// The agents on the ladder and those left out.
fn roster(cfg: &LadderConfig) -> (Vec<usize>, Vec<LeftOut>) {
    let (on, off) = cfg.split_available();
    let left_out = off
        .into_iter()
        .map(|(i, need)| {
            let x = &cfg.external[&need];
            LeftOut {
                name: cfg.agents[i].display_name().to_string(),
                reason: format!("{} is missing ({})", x.path, x.hint),
            }
        })
        .collect();
    (on, left_out)
}

/// The external things the agents on the ladder use, with package versions.
fn externals(cfg: &LadderConfig, on: &[usize]) -> Vec<(String, String)> {
    let mut used: Vec<&String> = on.iter().flat_map(|&i| &cfg.agents[i].needs).collect();
    used.sort();
    used.dedup();
    used.into_iter()
        .map(|n| {
            let x = &cfg.external[n];
            let version = x.package.as_deref().map(|p| match package_version(p) {
                Some(v) => format!("Debian package `{p}` {v}"),
                None => format!("Debian package `{p}`, version unknown"),
            });
            let text = match version {
                Some(v) => format!("`{}` ({v})", x.path),
                None => format!("`{}`", x.path),
            };
            (n.clone(), text)
        })
        .collect()
}

impl<'a> Agents<'a> {
    /// The agents `on` of `cfg`, at the limits they play at.
    fn new(
        cfg: &LadderConfig,
        on: &[usize],
        variant: Arc<Variant>,
        extra: ExtraEvaluators<'a>,
    ) -> Self {
        let agents = on.iter().map(|&i| &cfg.agents[i]);
        Agents {
            variant,
            names: agents.clone().map(|a| a.display_name().to_string()).collect(),
            specs: agents.clone().map(|a| a.spec.clone()).collect(),
            limits: agents.map(|a| effective_limits(&a.spec, &a.limits())).collect(),
            seed: cfg.seed,
            config_index: on.to_vec(),
            source: cfg.source.clone(),
            extra,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The agents as the report lists them.
    fn described(&self, cfg: &LadderConfig) -> Vec<LadderAgent> {
        (0..self.names.len())
            .map(|k| LadderAgent {
                name: self.names[k].clone(),
                spec: self.specs[k].clone(),
                limits: describe_limits(&self.specs[k], &self.limits[k]),
                note: cfg.agents[self.config_index[k]].note.clone(),
            })
            .collect()
    }
}

/// The head-to-head matches of `cfg` whose agents are both on the ladder (as jobs); the others
/// are added to `left_out`.
fn head_to_head(cfg: &LadderConfig, names: &[String], left_out: &mut Vec<LeftOut>) -> Vec<Job> {
    let mut h2h = Vec::new();
    for (k, h) in cfg.h2h.iter().enumerate() {
        let pos = |n: &str| names.iter().position(|x| x == n);
        let (Some(i), Some(j)) = (pos(&h.a), pos(&h.b)) else {
            let reason = "an agent of it is not on the ladder (see above)".to_string();
            left_out.push(LeftOut { name: format!("head-to-head {} vs {}", h.a, h.b), reason });
            continue;
        };
        let mc = MatchConfig { games: h.games, seed: cfg.h2h_seed(), ..per_pair_of(cfg) };
        h2h.push(Job { k, pair: (i, j), mc });
    }
    h2h
}

/// Play (or read back) the ladder of `cfg` in `opts.out_dir`.
pub fn run_ladder(cfg: &LadderConfig, opts: RunOptions<'_>) -> Result<LadderResult, LadderError> {
    let variant = Variant::load(&cfg.variant, &[])
        .map_err(|source| LadderError::Variant { variant: cfg.variant.clone(), source })?;
    let (on, mut left_out) = roster(cfg);
    if on.len() < 2 {
        let missing = left_out.iter().map(|l| format!("{}: {}", l.name, l.reason));
        return Err(LadderError::TooFewAgents {
            left: on.len(),
            missing: missing.collect::<Vec<_>>().join("; "),
        });
    }
    let agents = Agents::new(cfg, &on, variant, opts.extra);
    for k in 0..on.len() {
        agents.make(k)?; // every spec and limit is checked before the first game
    }
    let work = WorkDir::open(&opts.out_dir, &settings_table(cfg, &on, &played_specs(cfg, &on)))?;
    let counts = Counts::default();
    let venue =
        |group| Venue { work: &work, group, agents: &agents, log: opts.log, counts: &counts };
    let per_pair = per_pair_of(cfg);
    let plan = plan(on.len(), &GauntletConfig { mode: GauntletMode::RoundRobin, per_pair });
    let round: Vec<Job> =
        plan.into_iter().enumerate().map(|(k, (i, j, mc))| Job { k, pair: (i, j), mc }).collect();
    let pairs = play_all(&venue("pairs"), &round, opts.jobs)?;
    let tallies: Vec<_> =
        round.iter().zip(&pairs).map(|(r, p)| (r.pair.0, r.pair.1, p.tally)).collect();
    let (mut table, regularized) = fit_table(&agents.names, &tallies)?;
    table.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let h2h = play_all(&venue("h2h"), &head_to_head(cfg, &agents.names, &mut left_out), opts.jobs)?;
    Ok(LadderResult {
        variant: agents.variant.name.clone(),
        anchor: agents.names[0].clone(),
        agents: agents.described(cfg),
        left_out,
        table,
        regularized,
        pairs,
        h2h,
        reused: counts.reused.into_inner(),
        played: counts.played.into_inner(),
        externals: externals(cfg, &on),
    })
}

/// The match settings every pairing shares (games and seed set per use).
fn per_pair_of(cfg: &LadderConfig) -> MatchConfig {
    MatchConfig {
        games: cfg.games_per_pair,
        max_plies: cfg.max_plies,
        limits: Limits::default(),
        openings: Openings::Random { plies: cfg.opening_plies, still_royals: cfg.still_royals },
        seed: cfg.seed,
        sprt: None,
        task: None,
    }
}

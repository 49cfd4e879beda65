//! Agent spec strings, shared by `shogilab match`, `gauntlet`, `usi` and `xboard`:
//!
//! | spec | agent |
//! |---|---|
//! | `random` | uniformly random legal moves |
//! | `greedy` | captures the most valuable piece (mobility piece values), else random |
//! | `alphabeta[:DEPTH][:noq]` | negamax alpha-beta, depth 2 by default, quiescence unless `noq` |
//! | `imbalance[:DEPTH][:each]` | the engine of `shogilab values`' imbalance games, depth 1 by default; `each`: a node budget per root move (required from depth 2) |
//! | `mcts:EVAL[:SIMS][:q=SCALE][:batch=K][:screen=DEPTH[:margin=CP][:top=K][:trade=W][:approach=CP][:hunt=CP][:guard=CP][:decisive=CP]]` | MCTS with `uniform`, `material` (mobility values), `material=TABLE.toml` or a checkpoint, 64 simulations by default (with a move time: as many as the time allows, at most SIMS); `q=SCALE`: each leaf's value corrected by its capture search at that logistic scale in centipawns ([`crate::leaf_quiescence`]); `batch=K`: up to K leaves evaluated together under virtual loss ([`shogilab_selfplay::Search::gather`]); `screen=DEPTH`: only the root moves that a material alpha-beta of that depth scores within `margin` centipawns (default 50, the pawn is 100) of its best, in half the move time ([`crate::root_screen`]); `top=K`: the screen searches only the policy's K most probable moves, the captures and the moves of attacked pieces ([`crate::root_screen::candidates`]), and the others are not played; `trade=W`: the screen's material weighs a lead up as pieces leave the board, so that the side ahead prefers even exchanges ([`crate::trade_down`]); `approach=CP`: each non-royal piece worth CP centipawns more per square nearer the enemy's nearest royal; `hunt=CP`: each square of the zone of the enemy's last royal (its square and the eight around it) that a side attacks worth CP centipawns, a piece that may capture anywhere left out; `guard=CP`: each piece that protects a side's last royal (could capture on its square) costs that side CP centipawns; `decisive=CP`: where the side to move leads the screen's material by CP centipawns or more, the margin is 0 (the screen's own best moves, the network breaking ties) and the `trade`, `approach`, `hunt` and `guard` terms count only there |
//! | `usi:PATH[\|NAME=VALUE...]` | an external USI engine (`setoption` for each pair) |
//! | `xboard:PATH[\|sd=N][\|memory=MB]` | an external XBoard engine (HaChu: `/usr/games/hachu`) |
//!
//! Any spec may end in `@LIMITS`, the agent's own per-move limits (`nodes=N`, `movetime=MS`,
//! comma-separated), which replace the match's `--nodes`/`--movetime` for that agent, so agents
//! at different time or node limits share one gauntlet: `xboard:/usr/games/hachu@movetime=500`,
//! `mcts:net.ot@nodes=128`. The limits become part of the agent's name. An agent that cannot
//! play at a limit refuses it here, naming the agent and the limit ([`check_limits`]):
//!
//! | agent | `nodes` | `movetime` |
//! |---|---|---|
//! | `random`, `greedy` | no search: refused in `@`, harmless from the match | the same |
//! | `alphabeta` | node budget | iterative deepening stops at the deadline |
//! | `imbalance` | refused (its budget is part of the engine) | refused |
//! | `mcts` | simulations (a timed search's cap) | searches until the time is spent |
//! | `usi` | `go nodes` | `go byoyomi` |
//! | `xboard` | refused (the protocol has no node limit) | `st` |
//!
//! Piece values are derived from mobility ([`PieceValues::mobility`]).

use crate::agent::{
    check_limits, Agent, AgentError, Choice, GreedyAgent, LimitSource, LimitSupport, Limits,
    RandomAgent,
};
use crate::alphabeta::AlphaBetaAgent;
use crate::leaf_quiescence::QuiescenceCorrected;
use crate::mcts_agent::{MctsAgent, MAX_LEAF_BATCH, MAX_SIMULATIONS};
use crate::root_screen::{RootScreen, DEFAULT_MARGIN, MAX_SCREEN_DEPTH, MAX_TOP};
use crate::trade_down::{MAX_APPROACH, MAX_GUARD, MAX_HUNT, MAX_TRADE_WEIGHT};
use crate::usi_client::{UsiAgent, UsiConfig};
use crate::values::agent::ImbalanceAgent;
use crate::values::imbalance::ImbalanceConfig;
use crate::xboard_client::{XBoardAgent, XBoardConfig};
use shogilab_engine::{Game, Variant};
use shogilab_selfplay::{Evaluator, Material, PieceValues, Uniform};
use std::sync::Arc;

/// The MCTS agent's spec syntax, for the help text and its errors.
macro_rules! mcts_syntax {
    () => {
        "mcts:EVAL[:SIMS][:q=SCALE][:batch=K]\
         [:screen=DEPTH[:margin=CP][:top=K][:trade=W][:approach=CP][:hunt=CP][:guard=CP][:decisive=CP]]"
    };
}

/// Help text listing the accepted specs.
pub const AGENT_SPEC_HELP: &str = concat!(
    "random | greedy | alphabeta[:DEPTH][:noq] | imbalance[:DEPTH][:each] | ",
    "search[:EVAL.psq|material][:depth=N][:hash=MB][:off=null+lmr+futility+aspiration+see+check] | ",
    mcts_syntax!(),
    " (EVAL: uniform, material, or a checkpoint) | usi:PATH[|NAME=VALUE...] | ",
    "xboard:PATH[|sd=N][|memory=MB]; any of them may end in @nodes=N,movetime=MS (its own limits)"
);

fn bad(spec: &str, reason: impl Into<String>) -> AgentError {
    AgentError::Spec { spec: spec.to_string(), reason: reason.into() }
}

fn parse_num<T: std::str::FromStr>(spec: &str, what: &str, s: &str) -> Result<T, AgentError> {
    s.parse().map_err(|_| bad(spec, format!("{what} {s:?} is not a number")))
}

/// An agent that plays at its own limits, whatever the match gives ([`WithLimits::new`]), or
/// only under another name, at the match's limits ([`WithLimits::renamed`]).
pub struct WithLimits {
    inner: Box<dyn Agent>,
    limits: Option<Limits>,
    name: String,
}

impl WithLimits {
    /// `inner` at `limits`; refused when `inner` cannot play at them ([`check_limits`]).
    pub fn new(inner: Box<dyn Agent>, limits: Limits) -> Result<WithLimits, AgentError> {
        check_limits(inner.as_ref(), &limits, LimitSource::Own)?;
        let mut parts = Vec::new();
        if let Some(n) = limits.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(ms) = limits.movetime_ms {
            parts.push(format!("movetime={ms}"));
        }
        let name = format!("{}@{}", inner.name(), parts.join(","));
        Ok(WithLimits { inner, limits: Some(limits), name })
    }

    /// `inner` under the name `name`, at the limits the match gives.
    pub fn renamed(inner: Box<dyn Agent>, name: String) -> WithLimits {
        WithLimits { inner, limits: None, name }
    }
}

impl Agent for WithLimits {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, game: &Game) -> Result<(), AgentError> {
        self.inner.new_game(game)
    }
    fn reseed(&mut self, seed: u64) {
        self.inner.reseed(seed);
    }

    fn choose(&mut self, game: &Game, match_limits: &Limits) -> Result<Choice, AgentError> {
        self.inner.choose(game, self.limits.as_ref().unwrap_or(match_limits))
    }
    fn last_nodes(&self) -> Option<u64> {
        self.inner.last_nodes()
    }

    /// Own limits replace the match's, so any of them is accepted; a renamed agent supports
    /// what it supports.
    fn limit_support(&self) -> LimitSupport {
        match self.limits {
            Some(_) => LimitSupport::ALL,
            None => self.inner.limit_support(),
        }
    }
}

/// The evaluator of `mcts:EVAL`.
fn mcts_evaluator(
    spec: &str,
    ev: &str,
    variant: &Arc<Variant>,
    extra: ExtraEvaluators<'_>,
) -> Result<Arc<dyn Evaluator>, AgentError> {
    if ev == "uniform" {
        return Ok(Arc::new(Uniform));
    }
    if let Some(m) = Material::from_name(variant, ev) {
        return Ok(Arc::new(m.map_err(|e| bad(spec, e.to_string()))?));
    }
    match extra(ev) {
        Some(Ok(e)) => match e.variant() {
            Some(made_for) if made_for != variant.name => Err(bad(
                spec,
                format!("{ev} is a network of {made_for}; this game is {}", variant.name),
            )),
            _ => Ok(e),
        },
        Some(Err(e)) => Err(bad(spec, e.to_string())),
        None => Err(bad(
            spec,
            format!(
                "unknown evaluator {ev:?} (uniform, material, material=TABLE.toml, or a \
                 checkpoint)"
            ),
        )),
    }
}

/// The `@LIMITS` tail of a spec: `nodes=N`, `movetime=MS`, comma-separated, at least one.
fn parse_limits(spec: &str, tail: &str) -> Result<Limits, AgentError> {
    let mut limits = Limits::default();
    for part in tail.split(',').map(str::trim) {
        match part.split_once('=') {
            Some(("nodes", n)) => limits.nodes = Some(parse_num(spec, "nodes", n)?),
            Some(("movetime", n)) => limits.movetime_ms = Some(parse_num(spec, "movetime", n)?),
            _ => {
                return Err(bad(
                    spec,
                    format!("limit {part:?}: expected nodes=N or movetime=MS after @"),
                ))
            }
        }
    }
    if limits.nodes == Some(0) || limits.movetime_ms == Some(0) {
        return Err(bad(spec, "limits must be positive"));
    }
    Ok(limits)
}

/// Why an `extra` evaluator could not be loaded (a checkpoint's own error).
pub type ExtraError = Box<dyn std::error::Error + Send + Sync>;

/// Evaluators beyond `uniform` and `material` for `mcts:NAME` (checkpoints): `None` for a name
/// it does not know, else the evaluator or why it could not be loaded.
/// `Sync`, so that agents can be built on several threads (the ladder's `--jobs`).
pub type ExtraEvaluators<'a> =
    &'a (dyn Fn(&str) -> Option<Result<Arc<dyn Evaluator>, ExtraError>> + Sync);

/// Build an agent from a spec. `extra(name)` supplies evaluators beyond `uniform` and
/// `material` (checkpoints) for `mcts:NAME`. A spec ending in `@LIMITS` gives an agent that
/// plays at those limits ([`WithLimits`]); limits the agent cannot play at are refused.
pub fn parse_agent_spec(
    spec: &str,
    variant: &Arc<Variant>,
    seed: u64,
    extra: ExtraEvaluators<'_>,
) -> Result<Box<dyn Agent>, AgentError> {
    let spec = spec.trim();
    if let Some((base, tail)) = spec.rsplit_once('@') {
        let limits = parse_limits(spec, tail)?;
        let inner = parse_agent_spec(base, variant, seed, extra)?;
        let limited = WithLimits::new(inner, limits).map_err(|e| match e {
            AgentError::Limit { limit, reason, .. } => {
                bad(spec, format!("cannot play at {limit}: {reason}"))
            }
            other => other,
        })?;
        return Ok(Box::new(limited));
    }
    let (kind, rest) = match spec.split_once(':') {
        Some((k, r)) => (k, Some(r)),
        None => (spec, None),
    };
    let no_arguments = |agent: Box<dyn Agent>| match rest {
        Some(_) => Err(bad(spec, format!("`{kind}` takes no arguments"))),
        None => Ok(agent),
    };
    match kind {
        "random" => no_arguments(Box::new(RandomAgent::new(seed))),
        "greedy" => no_arguments(Box::new(GreedyAgent::new(
            PieceValues::mobility(Arc::clone(variant)),
            seed,
        ))),
        "alphabeta" | "ab" => alphabeta(spec, rest, variant),
        "search" => Ok(Box::new(crate::search_agent::parse(spec, rest, variant)?)),
        "imbalance" => imbalance(spec, rest, variant, seed),
        "mcts" => mcts(spec, rest, variant, seed, extra),
        "usi" => usi(spec, rest, variant),
        "xboard" => xboard(spec, rest, variant),
        other => Err(bad(spec, format!("unknown agent {other:?}; expected {AGENT_SPEC_HELP}"))),
    }
}

/// `alphabeta[:DEPTH][:noq]`.
fn alphabeta(
    spec: &str,
    rest: Option<&str>,
    variant: &Arc<Variant>,
) -> Result<Box<dyn Agent>, AgentError> {
    let mut depth = 2u32;
    let mut quiescence = true;
    for part in rest.into_iter().flat_map(|r| r.split(':')) {
        match part {
            "noq" => quiescence = false,
            "q" => quiescence = true,
            d => depth = parse_num(spec, "depth", d)?,
        }
    }
    if !(1..=64).contains(&depth) {
        return Err(bad(spec, format!("depth {depth} must be 1..64")));
    }
    let values = PieceValues::mobility(Arc::clone(variant));
    Ok(Box::new(AlphaBetaAgent::new(values, depth, quiescence)))
}

/// `imbalance[:DEPTH][:each]`.
fn imbalance(
    spec: &str,
    rest: Option<&str>,
    variant: &Arc<Variant>,
    seed: u64,
) -> Result<Box<dyn Agent>, AgentError> {
    let mut cfg = ImbalanceConfig::default();
    for part in rest.into_iter().flat_map(|r| r.split(':')) {
        match part {
            "each" => cfg.root_budget = true,
            d => cfg.depth = parse_num(spec, "depth", d)?,
        }
    }
    if !(1..=8).contains(&cfg.depth) {
        return Err(bad(spec, format!("depth {} must be 1..8", cfg.depth)));
    }
    cfg.check().map_err(|e| bad(spec, format!("{e}: add `:each`")))?;
    Ok(Box::new(ImbalanceAgent::new(variant, cfg, seed, spec.to_string())))
}

/// `mcts:EVAL[:SIMS][:q=SCALE][:batch=K][:screen=DEPTH[:margin=CP][:top=K][:trade=W][:approach=CP][:hunt=CP][:guard=CP][:decisive=CP]]`.
fn mcts(
    spec: &str,
    rest: Option<&str>,
    variant: &Arc<Variant>,
    seed: u64,
    extra: ExtraEvaluators<'_>,
) -> Result<Box<dyn Agent>, AgentError> {
    let rest = rest.ok_or_else(|| bad(spec, concat!("expected ", mcts_syntax!())))?;
    let (rest, tail) = mcts_tail(spec, rest)?;
    let (ev, sims) = match rest.rsplit_once(':') {
        Some((e, n)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => {
            (e, Some(parse_num::<u32>(spec, "simulations", n)?))
        }
        _ => (rest, None),
    };
    if let Some(n) = sims.filter(|n| !(1..=MAX_SIMULATIONS).contains(n)) {
        return Err(bad(spec, format!("simulations {n} must be 1..{MAX_SIMULATIONS}")));
    }
    let mut evaluator = mcts_evaluator(spec, ev, variant, extra)?;
    if let Some(k) = tail.q_scale {
        evaluator = Arc::new(QuiescenceCorrected::new(evaluator, variant, k));
    }
    let mut agent = match sims {
        Some(n) => MctsAgent::new(evaluator, n, seed),
        None => MctsAgent::timed(evaluator, seed),
    };
    if let Some(screen) = root_screen(spec, variant, &tail)? {
        agent = agent.with_screen(screen);
    }
    Ok(Box::new(agent.with_leaf_batch(tail.batch.unwrap_or(1)).with_name(spec.to_string())))
}

/// The root screen of an MCTS spec's `tail`, if it has `screen=DEPTH`; the screen's other
/// settings without it are refused.
fn root_screen(
    spec: &str,
    variant: &Arc<Variant>,
    tail: &MctsTail,
) -> Result<Option<RootScreen>, AgentError> {
    let Some(depth) = tail.screen else {
        let screen_settings = tail.margin.is_some()
            || tail.top.is_some()
            || tail.trade.is_some()
            || tail.approach.is_some()
            || tail.hunt.is_some()
            || tail.guard.is_some()
            || tail.decisive.is_some();
        if screen_settings {
            let need = "margin=CP, top=K, trade=W, approach=CP, hunt=CP, guard=CP and \
                        decisive=CP need screen=DEPTH";
            return Err(bad(spec, need));
        }
        return Ok(None);
    };
    let mut screen = RootScreen::new(variant, depth, tail.margin.unwrap_or(DEFAULT_MARGIN));
    if let Some(k) = tail.top {
        screen = screen.with_top(k);
    }
    if let Some(w) = tail.trade {
        screen = screen.with_trade(w);
    }
    if let Some(cp) = tail.approach {
        screen = screen.with_approach(cp);
    }
    if let Some(cp) = tail.hunt {
        screen = screen.with_hunt(cp);
    }
    if let Some(cp) = tail.guard {
        screen = screen.with_guard(cp);
    }
    if let Some(cp) = tail.decisive {
        screen = screen.with_decisive(cp);
    }
    Ok(Some(screen))
}

/// The `:q=SCALE`, `:batch=K`, `:screen=DEPTH`, `:margin=CP`, `:top=K`, `:trade=W`,
/// `:approach=CP`, `:hunt=CP`, `:guard=CP` and `:decisive=CP` settings at the end of an MCTS spec.
#[derive(Default)]
struct MctsTail {
    q_scale: Option<f64>,
    batch: Option<usize>,
    screen: Option<u32>,
    margin: Option<i32>,
    top: Option<usize>,
    trade: Option<f32>,
    approach: Option<f32>,
    hunt: Option<f32>,
    guard: Option<f32>,
    decisive: Option<i32>,
}

/// Split the trailing `q=`, `batch=`, `screen=`, `margin=`, `top=`, `trade=`, `approach=`,
/// `hunt=`, `guard=` and `decisive=` settings (any order, each at most once) off `rest`.
fn mcts_tail<'a>(spec: &str, mut rest: &'a str) -> Result<(&'a str, MctsTail), AgentError> {
    let mut tail = MctsTail::default();
    while let Some((head, last)) = rest.rsplit_once(':') {
        if let Some(q) = last.strip_prefix("q=").filter(|_| tail.q_scale.is_none()) {
            let k = parse_num::<f64>(spec, "quiescence scale", q)?;
            if !(k.is_finite() && k > 0.0) {
                return Err(bad(spec, format!("quiescence scale {k} must be a positive number")));
            }
            tail.q_scale = Some(k);
        } else if let Some(b) = last.strip_prefix("batch=").filter(|_| tail.batch.is_none()) {
            let k = parse_num::<usize>(spec, "leaf batch", b)?;
            if !(1..=MAX_LEAF_BATCH).contains(&k) {
                return Err(bad(spec, format!("leaf batch {k} must be 1..{MAX_LEAF_BATCH}")));
            }
            tail.batch = Some(k);
        } else if let Some(d) = last.strip_prefix("screen=").filter(|_| tail.screen.is_none()) {
            let d = parse_num::<u32>(spec, "screen depth", d)?;
            if !(1..=MAX_SCREEN_DEPTH).contains(&d) {
                return Err(bad(spec, format!("screen depth {d} must be 1..{MAX_SCREEN_DEPTH}")));
            }
            tail.screen = Some(d);
        } else if let Some(c) = last.strip_prefix("margin=").filter(|_| tail.margin.is_none()) {
            tail.margin = Some(parse_centipawns(spec, "screen margin", c)?);
        } else if let Some(c) = last.strip_prefix("decisive=").filter(|_| tail.decisive.is_none()) {
            tail.decisive = Some(parse_centipawns(spec, "screen decisive lead", c)?);
        } else if let Some(k) = last.strip_prefix("top=").filter(|_| tail.top.is_none()) {
            let k = parse_num::<usize>(spec, "screen candidates", k)?;
            if !(1..=MAX_TOP).contains(&k) {
                return Err(bad(spec, format!("screen candidates top={k} must be 1..{MAX_TOP}")));
            }
            tail.top = Some(k);
        } else if let Some(w) = last.strip_prefix("trade=").filter(|_| tail.trade.is_none()) {
            tail.trade =
                Some(parse_weight(spec, "screen exchange weight trade", w, MAX_TRADE_WEIGHT)?);
        } else if let Some(k) = last.strip_prefix("approach=").filter(|_| tail.approach.is_none()) {
            tail.approach =
                Some(parse_weight(spec, "screen approach weight approach", k, MAX_APPROACH)?);
        } else if let Some(k) = last.strip_prefix("hunt=").filter(|_| tail.hunt.is_none()) {
            tail.hunt = Some(parse_weight(spec, "screen hunt weight hunt", k, MAX_HUNT)?);
        } else if let Some(k) = last.strip_prefix("guard=").filter(|_| tail.guard.is_none()) {
            tail.guard = Some(parse_weight(spec, "screen guard weight guard", k, MAX_GUARD)?);
        } else {
            break;
        }
        rest = head;
    }
    Ok((rest, tail))
}

/// A number of centipawns `value`, 0 or more, of the setting `what`.
fn parse_centipawns(spec: &str, what: &str, value: &str) -> Result<i32, AgentError> {
    let c = parse_num::<i32>(spec, what, value)?;
    if c < 0 {
        return Err(bad(spec, format!("{what} {c} must be 0 or more centipawns")));
    }
    Ok(c)
}

/// A weight `value` of the setting `what` (its name ends with the key), in `0..=max`.
fn parse_weight(spec: &str, what: &str, value: &str, max: f32) -> Result<f32, AgentError> {
    let w = parse_num::<f32>(spec, what, value)?;
    if !(0.0..=max).contains(&w) {
        return Err(bad(spec, format!("{what}={w} must be 0..{max}")));
    }
    Ok(w)
}

/// `NAME=VALUE` settings of an external engine's spec, in order.
type Settings<'a> = Vec<(&'a str, &'a str)>;

/// The `PATH|NAME=VALUE|...` tail of an external engine's spec (`kind` is `usi` or `xboard`):
/// the engine's path and its settings in order.
fn engine_settings<'a>(
    spec: &str,
    rest: Option<&'a str>,
    kind: &str,
) -> Result<(&'a str, Settings<'a>), AgentError> {
    let rest =
        rest.filter(|r| !r.is_empty()).ok_or_else(|| bad(spec, format!("expected {kind}:PATH")))?;
    let mut parts = rest.split('|');
    let path = parts.next().unwrap_or_default();
    let settings = parts
        .map(|p| {
            p.split_once('=').ok_or_else(|| bad(spec, format!("option {p:?}: expected NAME=VALUE")))
        })
        .collect::<Result<_, _>>()?;
    Ok((path, settings))
}

/// `usi:PATH[|NAME=VALUE...]`.
fn usi(
    spec: &str,
    rest: Option<&str>,
    variant: &Arc<Variant>,
) -> Result<Box<dyn Agent>, AgentError> {
    let (path, settings) = engine_settings(spec, rest, "usi")?;
    let mut cfg = UsiConfig::new(path);
    cfg.options = settings.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Ok(Box::new(UsiAgent::new(cfg, Arc::clone(variant))))
}

/// `xboard:PATH[|sd=N][|memory=MB]`.
fn xboard(
    spec: &str,
    rest: Option<&str>,
    variant: &Arc<Variant>,
) -> Result<Box<dyn Agent>, AgentError> {
    let (path, settings) = engine_settings(spec, rest, "xboard")?;
    let mut cfg = XBoardConfig::new(path);
    for (k, n) in settings {
        match k {
            "sd" => cfg.depth = Some(parse_num(spec, "sd", n)?),
            "memory" => cfg.memory_mb = parse_num(spec, "memory", n)?,
            _ => return Err(bad(spec, format!("unknown setting {k:?} (sd=N, memory=MB)"))),
        }
    }
    Ok(Box::new(XBoardAgent::new(cfg, Arc::clone(variant))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec that parses, whatever agent it gives.
    fn parses(s: &str) -> Result<Box<dyn Agent>, AgentError> {
        let v = Variant::builtin("shogi").unwrap();
        parse_agent_spec(s, &v, 1, &|_: &str| None)
    }

    /// `s` is refused as a bad spec (not as some other fault).
    fn assert_refused(s: &str) {
        let e = parses(s).err().expect(s);
        assert!(matches!(e, AgentError::Spec { .. }), "{s}: {e}");
    }

    #[test]
    fn accepted_specs() {
        for s in [
            "random",
            "greedy",
            "alphabeta:3",
            "alphabeta",
            "mcts:uniform:8",
            "mcts:material",
            "mcts:material:8:q=2812",
            "mcts:uniform:q=300.5",
            "mcts:material:8:batch=8",
            "mcts:material:batch=4:q=2812",
            "mcts:material:q=2812:batch=4",
            "mcts:material:screen=2",
            "mcts:material:64:batch=8:screen=1:margin=0",
            "mcts:material:margin=120:screen=3",
            "mcts:material:batch=8:screen=2:top=24",
            "mcts:material:top=1:screen=2:margin=0",
            "mcts:material:screen=2:trade=0.5",
            "mcts:material:trade=0:top=8:screen=3",
            "mcts:material:screen=2:approach=3:trade=0.25",
            "mcts:material:screen=2:decisive=0",
            "mcts:material:decisive=2000:screen=8:top=16:trade=0.25:approach=3",
            "mcts:material:screen=2:hunt=200",
            "mcts:material:hunt=50:decisive=2000:screen=8:approach=3",
            "mcts:material:screen=2:guard=100",
            "mcts:material:guard=50:hunt=300:decisive=2000:screen=8",
        ] {
            assert!(parses(s).is_ok(), "{s}");
        }
        assert_eq!(parses("alphabeta:3").unwrap().name(), "alphabeta:3");
    }

    #[test]
    fn imbalance_specs_name_themselves_or_are_refused() {
        for s in ["imbalance", "imbalance:1", "imbalance:2:each", "imbalance:each:3"] {
            assert_eq!(parses(s).map(|a| a.name()).ok().as_deref(), Some(s));
        }
        for s in ["imbalance:2", "imbalance:0", "imbalance:9:each", "imbalance:x"] {
            assert_refused(s);
        }
    }

    #[test]
    fn refused_specs() {
        for s in
            ["rand", "alphabeta:x", "mcts", "mcts:net:4", "usi:", "xboard:/x|foo=1", "random:1"]
                .into_iter()
                .chain(["mcts:material:q=0", "mcts:material:q=x", "mcts:material:q=-5"])
                .chain(["mcts:material:batch=0", "mcts:material:batch=999", "mcts:uniform:batch=x"])
                .chain(["mcts:material:batch=2:batch=4", "mcts:material:q=5:q=6"])
                .chain([
                    "mcts:material:screen=0",
                    "mcts:material:screen=9",
                    "mcts:material:screen=x",
                ])
                .chain(["mcts:material:margin=50", "mcts:material:screen=2:margin=-1"])
                .chain(["mcts:material:top=8", "mcts:material:screen=2:top=0"])
                .chain(["mcts:material:screen=2:top=257", "mcts:material:screen=2:top=x"])
                .chain(["mcts:material:trade=1", "mcts:material:screen=2:trade=-1"])
                .chain(["mcts:material:screen=2:trade=11", "mcts:material:screen=2:trade=NaN"])
                .chain(["mcts:material:approach=3", "mcts:material:screen=2:approach=-1"])
                .chain(["mcts:material:decisive=100", "mcts:material:screen=2:decisive=-1"])
                .chain(["mcts:material:screen=2:decisive=x"])
                .chain(["mcts:material:hunt=100", "mcts:material:screen=2:hunt=-1"])
                .chain(["mcts:material:screen=2:hunt=20000", "mcts:material:screen=2:hunt=x"])
                .chain(["mcts:material:guard=100", "mcts:material:screen=2:guard=-1"])
                .chain(["mcts:material:screen=2:guard=20000", "mcts:material:screen=2:guard=x"])
                .chain(["mcts:material:screen=2:decisive=1:decisive=2"])
                .chain(["greedy@", "greedy@nodes=x", "greedy@depth=3", "greedy@nodes=0"])
                .chain(["rand@nodes=5"])
        {
            assert_refused(s);
        }
        let e = parses("stockfish").err().unwrap().to_string();
        assert!(e.contains("unknown agent"), "{e}");
    }

    /// An agent that records the limits it was asked to play at.
    struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<Limits>>>);

    impl Agent for Recorder {
        fn name(&self) -> String {
            "recorder".into()
        }
        fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
            self.0.lock().unwrap().push(*limits);
            game.legal().first().map(|&m| Choice::Move(m)).ok_or(AgentError::NoLegalMove)
        }
        fn limit_support(&self) -> LimitSupport {
            LimitSupport::ALL
        }
    }

    #[test]
    fn own_limits_replace_the_match_limits() {
        let v = Variant::builtin("shogi").unwrap();
        let none = |_: &str| None;
        let a = parse_agent_spec("alphabeta:3@nodes=500,movetime=20", &v, 1, &none).unwrap();
        assert_eq!(a.name(), "alphabeta:3@nodes=500,movetime=20");
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let own = Limits { nodes: Some(7), movetime_ms: None };
        let mut w = WithLimits::new(Box::new(Recorder(seen.clone())), own).unwrap();
        let game = Game::new(shogilab_engine::Position::start(&v));
        let match_limits = Limits { nodes: None, movetime_ms: Some(1000) };
        assert!(matches!(w.choose(&game, &match_limits), Ok(Choice::Move(_))));
        assert_eq!(seen.lock().unwrap().as_slice(), &[own]);
        assert_eq!(w.name(), "recorder@nodes=7");
    }

    #[test]
    fn the_imbalance_engine_plays_legal_moves_in_a_game() {
        let v = Variant::builtin("chu").unwrap();
        let none = |_: &str| None;
        let mut a = parse_agent_spec("imbalance:2:each", &v, 5, &none).unwrap();
        let mut game = Game::new(shogilab_engine::Position::start(&v));
        a.new_game(&game).unwrap();
        for _ in 0..12 {
            let Ok(Choice::Move(m)) = a.choose(&game, &Limits::default()) else {
                panic!("no move")
            };
            assert!(game.legal().contains(&m));
            game.play(m);
        }
        assert_eq!(game.plies(), 12);
    }

    #[test]
    fn material_tables_by_path() {
        let chu = Variant::builtin("chu").unwrap();
        let none = |_: &str| None;
        let table = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/values/chu-gcsa.toml");
        let spec = format!("mcts:material={table}:8");
        assert!(parse_agent_spec(&spec, &chu, 1, &none).is_ok(), "{spec}");
        // a table for another variant lacks values for some of shogi's pieces
        let shogi = Variant::builtin("shogi").unwrap();
        let e = parse_agent_spec(&spec, &shogi, 1, &none).err().unwrap().to_string();
        assert!(e.contains("chu-gcsa.toml") && e.contains("no value for"), "{e}");
        let e = parse_agent_spec("mcts:material=no/such.toml", &chu, 1, &none).err().unwrap();
        assert!(e.to_string().contains("no/such.toml"), "{e}");
    }
}

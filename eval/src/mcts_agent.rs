//! An agent around the self-play MCTS ([`Search`]) and any [`Evaluator`], without Gumbel noise
//! (deterministic for a deterministic evaluator with a node limit).
//!
//! Limits: `nodes` is the number of simulations per move, or with a move time their cap; a
//! `movetime` searches until the time is spent (checked after every evaluation). Without
//! limits the agent plays its own simulation count. The simulation count given at construction
//! ([`MctsAgent::new`], `mcts:EVAL:SIMS`) also caps a timed search, so that a name such as
//! `mcts:net.ot:64@movetime=500` says what the agent did; without one ([`MctsAgent::timed`],
//! `mcts:EVAL`) a timed search stops at [`MAX_SIMULATIONS`].
//!
//! With a leaf batch above one ([`MctsAgent::with_leaf_batch`], `mcts:EVAL:batch=K`) the search
//! gathers up to K leaves under virtual loss and evaluates them as one batch
//! ([`Search::gather`]), which a network on a CPU evaluates faster per leaf.
//!
//! With a root screen ([`MctsAgent::with_screen`], `mcts:EVAL:screen=DEPTH`) a material
//! alpha-beta first keeps the root moves that hold the material at that depth
//! ([`crate::root_screen`]), using up to [`SCREEN_SHARE`] of a move time, and the search chooses
//! among those in the time left. A screen of candidates (`screen=DEPTH:top=K`) first asks the
//! evaluator for the root's policy (one evaluation more a move) to choose them.
//!
//! The tree scores a repeated position as a draw; where the game's rules decide a repetition
//! ([`crate::root_rules`]: chu's attacker loses, shogi's perpetual check loses), a root move
//! that wins by them is played at once and the moves that lose by them are not searched.

use crate::agent::{Agent, AgentError, Choice, LimitSupport, Limits};
use crate::root_rules::RuleVerdicts;
use crate::root_screen::{candidates, RootScreen, SCREEN_SHARE};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use shogilab_engine::{Game, Move};
use shogilab_selfplay::mcts::Step;
use shogilab_selfplay::{EvalOutput, EvalRequest, Evaluator, Search, SearchConfig, SearchResult};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Simulations per move when neither the agent nor the limits give a number.
pub const DEFAULT_SIMULATIONS: u32 = 64;
/// The most simulations of one move (a timed search stops here; the tree grows with it).
pub const MAX_SIMULATIONS: u32 = 100_000;
/// Simulations of the first timed move before the agent knows its speed.
const FIRST_TIMED_BUDGET: u32 = 16;
/// The largest leaf batch (`batch=K`).
pub const MAX_LEAF_BATCH: usize = 256;

/// MCTS agent.
pub struct MctsAgent {
    evaluator: Arc<dyn Evaluator>,
    cfg: SearchConfig,
    /// The simulation count given at construction (also the cap of a timed search).
    fixed: Option<u32>,
    search: Option<Search>,
    rng: SmallRng,
    name: String,
    out: Vec<EvalOutput>,
    /// Simulations per second measured on the last timed move.
    rate: Option<f64>,
    last_simulations: u32,
    /// Leaves evaluated together (1: one at a time).
    leaf_batch: usize,
    /// The tactical screen of the root moves, if any.
    screen: Option<RootScreen>,
}

/// How one move is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Budget {
    Simulations(u32),
    Timed { cap: u32, time: Duration },
}

impl MctsAgent {
    /// `simulations` per move (when the limits give no node count; the cap of a timed search).
    pub fn new(evaluator: Arc<dyn Evaluator>, simulations: u32, seed: u64) -> MctsAgent {
        let sims = simulations.clamp(1, MAX_SIMULATIONS);
        let mut a = MctsAgent::timed(evaluator, seed);
        a.fixed = Some(sims);
        a.name = format!("mcts:{}:{sims}", a.evaluator.id());
        a
    }

    /// An agent without its own simulation count: [`DEFAULT_SIMULATIONS`] per move without
    /// limits, up to [`MAX_SIMULATIONS`] in a timed search.
    pub fn timed(evaluator: Arc<dyn Evaluator>, seed: u64) -> MctsAgent {
        let cfg = SearchConfig {
            simulations: DEFAULT_SIMULATIONS,
            gumbel_noise: false,
            ..SearchConfig::default()
        };
        let name = format!("mcts:{}", evaluator.id());
        MctsAgent {
            evaluator,
            cfg,
            fixed: None,
            search: None,
            rng: SmallRng::seed_from_u64(seed),
            name,
            out: Vec::new(),
            rate: None,
            last_simulations: 0,
            leaf_batch: 1,
            screen: None,
        }
    }

    /// Search only among the root moves that `screen` allows.
    pub fn with_screen(mut self, screen: RootScreen) -> MctsAgent {
        self.screen = Some(screen);
        self
    }

    /// Evaluate up to `k` leaves of the search at once (clamped to 1..=[`MAX_LEAF_BATCH`]).
    pub fn with_leaf_batch(mut self, k: usize) -> MctsAgent {
        self.leaf_batch = k.clamp(1, MAX_LEAF_BATCH);
        self
    }

    /// Replace the display name (the spec string).
    pub fn with_name(mut self, name: String) -> MctsAgent {
        self.name = name;
        self
    }

    /// Simulations of the last searched move.
    pub fn last_simulations(&self) -> u32 {
        self.last_simulations
    }

    fn budget(&self, limits: &Limits) -> Budget {
        let count = limits.nodes.map(|n| n.clamp(1, MAX_SIMULATIONS as u64) as u32).or(self.fixed);
        match limits.movetime_ms {
            None => Budget::Simulations(count.unwrap_or(DEFAULT_SIMULATIONS)),
            Some(ms) => Budget::Timed {
                cap: count.unwrap_or(MAX_SIMULATIONS),
                time: Duration::from_millis(ms),
            },
        }
    }

    /// The evaluator's probabilities over the game's legal moves.
    fn root_policy(&mut self, game: &Game) -> Result<Vec<f32>, AgentError> {
        let (pos, moves) = (game.position(), game.legal());
        let req = EvalRequest { pos, moves, repetitions: 0, plies: game.plies() as u32 };
        let e = evaluate_one(self.evaluator.as_ref(), req, &mut self.out)?;
        if e.policy.len() != moves.len() {
            return Err(AgentError::Unsupported("the evaluator returned no root policy".into()));
        }
        Ok(e.policy.clone())
    }

    /// Run the search until it completes its budget or, past `deadline` (after at least one
    /// simulation), stops; `true` when it completed.
    fn run(
        &mut self,
        search: &mut Search,
        plies: u32,
        deadline: Option<Instant>,
    ) -> Result<bool, AgentError> {
        if self.leaf_batch > 1 {
            return self.run_batched(search, plies, deadline);
        }
        while search.advance(&mut self.rng) == Step::NeedEval {
            let req = EvalRequest {
                pos: search.position(),
                moves: &search.leaf_moves,
                repetitions: 0,
                plies,
            };
            search.deliver(evaluate_one(self.evaluator.as_ref(), req, &mut self.out)?);
            if deadline.is_some_and(|d| Instant::now() >= d) && search.simulations_done() > 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`MctsAgent::run`] with up to `leaf_batch` leaves evaluated at a time.
    fn run_batched(
        &mut self,
        search: &mut Search,
        plies: u32,
        deadline: Option<Instant>,
    ) -> Result<bool, AgentError> {
        while search.gather(&mut self.rng, self.leaf_batch) > 0 {
            let requests: Vec<EvalRequest<'_>> = search
                .gathered()
                .map(|(pos, moves)| EvalRequest { pos, moves, repetitions: 0, plies })
                .collect();
            self.evaluator.evaluate(&requests, &mut self.out);
            if self.out.len() < requests.len() {
                return Err(AgentError::Unsupported(
                    "the evaluator returned too few outputs".into(),
                ));
            }
            drop(requests);
            search.deliver_gathered(&self.out);
            if deadline.is_some_and(|d| Instant::now() >= d) && search.simulations_done() > 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A timed search: budgets from the measured speed, raised while time remains, and a hard
    /// stop at the deadline.
    fn run_timed(
        &mut self,
        search: &mut Search,
        plies: u32,
        cap: u32,
        time: Duration,
    ) -> Result<(), AgentError> {
        let t0 = Instant::now();
        let deadline = t0 + time;
        let guess = self.rate.map_or(FIRST_TIMED_BUDGET as f64, |r| r * time.as_secs_f64());
        search.extend((guess as u32).clamp(1, cap));
        loop {
            let before = search.simulations_done();
            let completed = self.run(search, plies, Some(deadline))?;
            let (done, elapsed) = (search.simulations_done(), t0.elapsed());
            // stopped by the clock, at the cap, or nothing left to search (a decided root)
            if !completed || done >= cap || done == before {
                break;
            }
            let Some(left) = time.checked_sub(elapsed) else { break };
            let rate = done as f64 / elapsed.as_secs_f64().max(1e-6);
            let more = (rate * left.as_secs_f64() * 0.9).max(1.0) as u32;
            search.extend(done.saturating_add(more).min(cap));
        }
        let secs = t0.elapsed().as_secs_f64().max(1e-6);
        self.rate = Some(search.simulations_done() as f64 / secs);
        Ok(())
    }

    /// The root moves the screen allows (all: empty), searched within its share of a move time
    /// (the root policy of a screen of candidates included).
    fn screened(
        &mut self,
        game: &Game,
        budget: Budget,
        t0: Instant,
    ) -> Result<Vec<Move>, AgentError> {
        let Some(top) = self.screen.as_ref().map(RootScreen::top) else { return Ok(Vec::new()) };
        let among = match top {
            Some(k) => candidates(game.position(), game.legal(), &self.root_policy(game)?, k),
            None => Vec::new(),
        };
        let deadline = match budget {
            Budget::Timed { time, .. } => Some(t0 + time.mul_f64(SCREEN_SHARE)),
            Budget::Simulations(_) => None,
        };
        Ok(self.screen.as_mut().map_or_else(Vec::new, |s| s.allowed_among(game, &among, deadline)))
    }

    /// Search among the root moves that the screen allows and that do not lose by the game's
    /// rules at once (`verdicts`), the move's clock started at `t0`.
    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        verdicts: &RuleVerdicts,
        t0: Instant,
    ) -> Result<SearchResult, AgentError> {
        let budget = self.budget(limits);
        let allowed = verdicts.restrict(game.legal(), self.screened(game, budget, t0)?);
        let mut search = self
            .search
            .take()
            .unwrap_or_else(|| Search::new(self.cfg.clone(), game.position().clone()));
        search.cfg = self.cfg.clone();
        search.reset(game.position());
        search.set_history(game.position_hashes());
        search.screen_root(&allowed);
        let plies = game.plies() as u32;
        let outcome = match budget {
            Budget::Simulations(n) => {
                search.extend(n);
                self.run(&mut search, plies, None).map(|_| ())
            }
            Budget::Timed { cap, time } => {
                self.run_timed(&mut search, plies, cap, time.saturating_sub(t0.elapsed()))
            }
        };
        self.last_simulations = search.simulations_done();
        let result = outcome.map(|()| search.result());
        self.search = Some(search);
        result
    }
}

/// `evaluator`'s output for the one request `req` (kept in `out`).
fn evaluate_one<'o>(
    evaluator: &dyn Evaluator,
    req: EvalRequest<'_>,
    out: &'o mut Vec<EvalOutput>,
) -> Result<&'o EvalOutput, AgentError> {
    evaluator.evaluate(std::slice::from_ref(&req), out);
    out.first().ok_or_else(|| AgentError::Unsupported("the evaluator returned no output".into()))
}

/// The search's move if the game allows it, else the allowed move with the highest policy
/// (the tree does not know every repetition rule of the game).
fn allowed_best(r: &SearchResult, legal: &[Move]) -> Move {
    if legal.contains(&r.best) {
        return r.best;
    }
    let mut best: Option<(f32, Move)> = None;
    for (m, p) in r.moves.iter().zip(&r.policy) {
        if legal.contains(m) && !matches!(best, Some((bp, _)) if *p <= bp) {
            best = Some((*p, *m));
        }
    }
    best.map(|b| b.1).unwrap_or(legal[0])
}

impl Agent for MctsAgent {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }
    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
        let legal = game.legal();
        if legal.is_empty() {
            return Err(AgentError::NoLegalMove);
        }
        let t0 = Instant::now();
        let verdicts = RuleVerdicts::of(game);
        if let Some(m) = verdicts.win.or((legal.len() == 1).then(|| legal[0])) {
            self.last_simulations = 0;
            return Ok(Choice::Move(m));
        }
        let r = self.search(game, limits, &verdicts, t0)?;
        Ok(Choice::Move(allowed_best(&r, legal)))
    }
    fn last_nodes(&self) -> Option<u64> {
        Some(self.last_simulations as u64)
    }
    fn limit_support(&self) -> LimitSupport {
        LimitSupport::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root_screen::tests::ATTACKED_ROOK;
    use crate::root_screen::DEFAULT_MARGIN;
    use shogilab_engine::{Position, Variant};
    use shogilab_selfplay::Uniform;

    #[test]
    fn the_agent_plays_a_win_by_the_rules_at_once_and_never_a_loss_by_them() {
        use crate::root_rules::tests::chase;
        let lost = chase("b", 11);
        let losing = lost.position().parse_usi("10e9e").unwrap();
        for seed in 0..4 {
            let mut agent = MctsAgent::new(Arc::new(Uniform), 16, seed);
            let Choice::Move(m) = agent.choose(&lost, &Limits::default()).unwrap() else {
                panic!("no move")
            };
            assert_ne!(m, losing, "seed {seed}");
            assert_eq!(agent.last_simulations(), 16);
        }
        let won = chase("w", 11);
        let mut agent = MctsAgent::new(Arc::new(Uniform), 16, 1);
        let winning = won.position().parse_usi("7l6l").unwrap();
        assert_eq!(agent.choose(&won, &Limits::default()), Ok(Choice::Move(winning)));
        assert_eq!(agent.last_simulations(), 0, "played without a search");
    }

    /// A policy that all but ignores the moves from one square; a level value.
    struct Ignores(u16);

    impl Evaluator for Ignores {
        fn id(&self) -> String {
            "ignores".into()
        }
        fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut Vec<EvalOutput>) {
            out.resize_with(batch.len(), EvalOutput::default);
            for (r, o) in batch.iter().zip(out.iter_mut()) {
                let w: Vec<f32> =
                    r.moves.iter().map(|m| if m.from == self.0 { 0.001 } else { 1.0 }).collect();
                let sum: f32 = w.iter().sum();
                o.policy = w.iter().map(|x| x / sum).collect();
                o.wdl = [0.0, 1.0, 0.0];
            }
        }
    }

    /// The square of the move that `agent` chooses in the attacked-rook position.
    fn chosen_from(agent: &mut MctsAgent, game: &Game) -> u16 {
        match agent.choose(game, &Limits::default()) {
            Ok(Choice::Move(m)) => m.from,
            other => panic!("the agent chose no move: {other:?}"),
        }
    }

    #[test]
    fn a_screen_of_candidates_saves_the_rook_that_the_policy_ignores() {
        let v = Variant::builtin("shogi").expect("shogi is built in");
        let game = Game::new(Position::from_sfen(&v, ATTACKED_ROOK).expect("a valid SFEN"));
        let rook = v.parse_square("5d").expect("a square");
        for seed in 0..4 {
            let mut plain = MctsAgent::new(Arc::new(Ignores(rook)), 32, seed);
            assert_ne!(chosen_from(&mut plain, &game), rook, "seed {seed}: unscreened");
            let screen = RootScreen::new(&v, 2, DEFAULT_MARGIN).with_top(4);
            let mut agent = MctsAgent::new(Arc::new(Ignores(rook)), 32, seed).with_screen(screen);
            assert_eq!(chosen_from(&mut agent, &game), rook, "seed {seed}: screened");
        }
    }
}

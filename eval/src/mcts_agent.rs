//! An agent around the self-play MCTS ([`Search`]) and any [`Evaluator`], without Gumbel noise
//! (deterministic for a deterministic evaluator). Simulations come from `Limits::nodes`, or the
//! agent's default.

use crate::agent::{Agent, AgentError, Choice, Limits};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use shogilab_engine::{Game, Move};
use shogilab_selfplay::mcts::Step;
use shogilab_selfplay::{EvalOutput, EvalRequest, Evaluator, Search, SearchConfig};
use std::sync::Arc;

/// MCTS agent.
pub struct MctsAgent {
    evaluator: Arc<dyn Evaluator>,
    cfg: SearchConfig,
    search: Option<Search>,
    rng: SmallRng,
    name: String,
    out: Vec<EvalOutput>,
}

impl MctsAgent {
    /// `simulations`: the default per move when the limits give no node count.
    pub fn new(evaluator: Arc<dyn Evaluator>, simulations: u32, seed: u64) -> MctsAgent {
        let cfg = SearchConfig {
            simulations: simulations.clamp(1, 100_000),
            gumbel_noise: false,
            ..SearchConfig::default()
        };
        let name = format!("mcts:{}:{}", evaluator.id(), cfg.simulations);
        MctsAgent {
            evaluator,
            cfg,
            search: None,
            rng: SmallRng::seed_from_u64(seed),
            name,
            out: Vec::new(),
        }
    }

    /// Replace the display name (the spec string).
    pub fn with_name(mut self, name: String) -> MctsAgent {
        self.name = name;
        self
    }
}

impl Agent for MctsAgent {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        Ok(())
    }
    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
        let legal = game.legal();
        if legal.is_empty() {
            return Err(AgentError::NoLegalMove);
        }
        if legal.len() == 1 {
            return Ok(Choice::Move(legal[0]));
        }
        let mut cfg = self.cfg.clone();
        if let Some(n) = limits.nodes {
            cfg.simulations = n.clamp(1, 100_000) as u32;
        }
        let search =
            self.search.get_or_insert_with(|| Search::new(cfg.clone(), game.position().clone()));
        search.cfg = cfg;
        search.reset(game.position());
        search.set_history(game.position_hashes());
        let plies = game.plies() as u32;
        while search.advance(&mut self.rng) == Step::NeedEval {
            let req = EvalRequest {
                pos: search.position(),
                moves: &search.leaf_moves,
                repetitions: 0,
                plies,
            };
            self.evaluator.evaluate(std::slice::from_ref(&req), &mut self.out);
            let e = self.out.first().ok_or_else(|| {
                AgentError::Unsupported("the evaluator returned no output".into())
            })?;
            search.deliver(e);
        }
        let r = search.result();
        if legal.contains(&r.best) {
            return Ok(Choice::Move(r.best));
        }
        // The tree does not know the game's repetition rule: take the best allowed move.
        let mut best: Option<(f32, Move)> = None;
        for (m, p) in r.moves.iter().zip(&r.policy) {
            if legal.contains(m) && !matches!(best, Some((bp, _)) if *p <= bp) {
                best = Some((*p, *m));
            }
        }
        Ok(Choice::Move(best.map(|b| b.1).unwrap_or(legal[0])))
    }
}

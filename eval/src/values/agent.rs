//! The imbalance engine ([`Searcher`]) as a match agent, spec `imbalance[:DEPTH][:each]`, so
//! the engine whose games measure the piece values can be placed on the strength ladder and
//! set against itself at another depth. It plays exactly as in the imbalance games: the same
//! evaluation, root jitter and repeat penalty ([`ImbalanceConfig`] defaults), the positions
//! of the game so far counting as seen.

use super::imbalance::ImbalanceConfig;
use super::searcher::Searcher;
use crate::agent::{Agent, AgentError, Choice, Limits};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use shogilab_engine::{Game, Variant};
use std::collections::HashSet;
use std::sync::Arc;

/// The imbalance engine at a given depth and budget mode.
pub struct ImbalanceAgent {
    searcher: Searcher,
    cfg: ImbalanceConfig,
    rng: SmallRng,
    seen: HashSet<u64>,
    name: String,
}

impl ImbalanceAgent {
    /// `cfg` gives the engine (depth, budget, jitter, repeat penalty); `name` is the spec.
    pub fn new(v: &Arc<Variant>, cfg: ImbalanceConfig, seed: u64, name: String) -> ImbalanceAgent {
        ImbalanceAgent {
            searcher: Searcher::new(v, &cfg),
            cfg,
            rng: SmallRng::seed_from_u64(seed),
            seen: HashSet::new(),
            name,
        }
    }
}

impl Agent for ImbalanceAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn choose(&mut self, game: &Game, _limits: &Limits) -> Result<Choice, AgentError> {
        self.seen.clear();
        self.seen.extend(game.position_hashes());
        self.seen.insert(game.position().hash());
        let (noise, penalty) = (self.cfg.noise_cp, self.cfg.repeat_penalty_cp);
        self.searcher
            .choose(game, &self.seen, noise, penalty, &mut self.rng)
            .map(Choice::Move)
            .ok_or(AgentError::NoLegalMove)
    }
}

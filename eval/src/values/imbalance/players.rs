//! Who plays the imbalance games on one thread: the imbalance engine ([`Searcher`], whose
//! logged games replay move for move under its engine id), or two instances of any match
//! agent ([`AgentEngine`], e.g. a network's MCTS at a fixed time), one per side, refereed by
//! [`play_game`]. An agent engine measures piece values with a stronger player than the
//! alpha-beta engine; its games are logged under an id made of its spec and the digests of
//! the checkpoints it loads, so that a log never pools two networks under one name.

use super::{ImbalanceConfig, ImbalanceError};
use crate::agent::{Agent, AgentError, Limits};
use crate::play::play_game;
use crate::values::searcher::Searcher;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use shogilab_engine::{Game, Position, Status, Variant};
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// Builds one instance of an agent from a seed.
pub type BuildAgent = dyn Fn(u64) -> Result<Box<dyn Agent>, AgentError> + Send + Sync;

/// Any match agent as the player of the imbalance games (`shogilab values --engine SPEC`).
#[derive(Clone)]
pub struct AgentEngine {
    /// The agent spec as given, limits included (`mcts:models/chu.ot@movetime=100`).
    pub spec: String,
    /// What the spec does not say about the engine: the digests of the checkpoints it loads
    /// (`chu.ot=1a2b3c4d5e6f`, comma-separated; empty when it loads none).
    pub fingerprint: String,
    /// One instance per side and thread.
    pub build: Arc<BuildAgent>,
}

impl fmt::Debug for AgentEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentEngine")
            .field("spec", &self.spec)
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

impl AgentEngine {
    /// The engine part of the logged games' id (the ply cap follows it).
    pub fn id(&self) -> String {
        match self.fingerprint.as_str() {
            "" => format!("agent[{}]", self.spec),
            f => format!("agent[{}|{f}]", self.spec),
        }
    }
}

/// The players of one thread.
pub enum Players {
    /// The imbalance engine.
    Engine(Box<Searcher>),
    /// An agent engine: Black's instance, then White's.
    Agents([Box<dyn Agent>; 2]),
}

impl Players {
    /// The players that `cfg` names (an agent engine is built twice, once per side).
    pub fn new(v: &Arc<Variant>, cfg: &ImbalanceConfig) -> Result<Players, ImbalanceError> {
        let Some(engine) = &cfg.agent else {
            return Ok(Players::Engine(Box::new(Searcher::new(v, cfg))));
        };
        let build = |side: u64| {
            (engine.build)(cfg.seed ^ side)
                .map_err(|source| ImbalanceError::Agent { spec: engine.spec.clone(), source })
        };
        Ok(Players::Agents([build(0)?, build(1)?]))
    }
}

/// How one game went, before it becomes a [`GameLine`].
pub(super) struct Played {
    pub status: Status,
    pub plies: u32,
    /// USI, space-separated.
    pub moves: String,
}

/// Play the game of `setup`/`swap` from `pos` with `seed` (the game's own random stream).
pub(super) fn play(
    players: &mut Players,
    cfg: &ImbalanceConfig,
    pos: Position,
    (setup, swap, seed): (usize, u8, u64),
) -> Result<Played, ImbalanceError> {
    match players {
        Players::Engine(searcher) => Ok(engine_game(searcher, cfg, pos, seed)),
        Players::Agents(agents) => {
            let [black, white] = agents;
            black.reseed(seed);
            white.reseed(seed ^ 1);
            let r = play_game([&mut **black, &mut **white], pos, &[], cfg.max_plies, &NO_LIMITS)
                .map_err(|e| ImbalanceError::Forfeit { setup, swap, why: e.to_string() })?;
            if let Some((_, why)) = r.forfeit {
                return Err(ImbalanceError::Forfeit { setup, swap, why });
            }
            Ok(Played { status: r.status, plies: r.plies as u32, moves: r.moves.join(" ") })
        }
    }
}

/// The agents play at their own limits (the spec's `@...`), or their defaults.
const NO_LIMITS: Limits = Limits { nodes: None, movetime_ms: None };

/// A game of the imbalance engine against itself: the root jitter drawn from `seed`, moves to
/// a position seen before in the game penalised.
fn engine_game(searcher: &mut Searcher, cfg: &ImbalanceConfig, pos: Position, seed: u64) -> Played {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(pos);
    if cfg.max_plies > 0 {
        game.set_max_plies(cfg.max_plies);
    }
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(game.position().hash());
    let mut moves = String::new();
    while !game.status().is_over() {
        let Some(m) = searcher.choose(&game, &seen, cfg.noise_cp, cfg.repeat_penalty_cp, &mut rng)
        else {
            break;
        };
        if !moves.is_empty() {
            moves.push(' ');
        }
        moves.push_str(&game.position().move_to_usi(m));
        game.play(m);
        seen.insert(game.position().hash());
    }
    Played { status: game.status(), plies: game.plies() as u32, moves }
}

//! shogilab's searching engine: a principal-variation alpha-beta search ([`searcher`]) with a
//! transposition table ([`tt`]), move ordering and exchange estimates ([`ordering`]), a time
//! manager ([`time`]) and an integer piece-square evaluator updated incrementally
//! ([`evaluator`]), for every variant the rules engine plays.
//!
//! ```no_run
//! use shogilab_engine::{Game, Position, Variant};
//! use shogilab_search::{evaluator::Psq, Engine, Limits, Options};
//! use std::sync::Arc;
//! let v = Variant::builtin("chu").unwrap();
//! let values = vec![1.0; v.types.len()];
//! let psq = Arc::new(Psq::from_values(Arc::clone(&v), &values, 600.0));
//! let mut engine = Engine::new(psq, Options::default());
//! let game = Game::new(Position::start(&v));
//! let limits = Limits { depth: Some(4), ..Limits::default() };
//! let outcome = engine.search(&game, limits, &mut |line| println!("{}", line.to_usi(game.position())));
//! ```

pub mod analysis;
pub mod evaluator;
pub mod limits;
pub mod ordering;
pub mod report;
pub mod score;
pub mod searcher;
pub mod time;
pub mod tt;

pub use limits::{Limits, Options};
pub use report::{Line, Outcome};
pub use searcher::Engine;
pub use time::{TimeControl, TimeError, TimeManager};

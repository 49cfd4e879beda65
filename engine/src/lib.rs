//! shogilab-engine: a data-driven rules engine for shogi variants.
//!
//! Variants are TOML data ([`spec`], [`resolve`]) compiled into tables ([`variant`]) and
//! loaded by name or path ([`load`]); [`cell`] holds the board vocabulary (colours, cells). A
//! [`position::Position`] is a padded mailbox with piece lists; [`movegen`] generates legal
//! moves into caller-owned lists; [`game::Game`] adds history and the game-end rules.
//! Notation: [`sfen`] and [`usi`]. [`perft`] counts move trees.
//!
//! ```
//! use shogilab_engine::{Variant, Position, MoveList};
//! let v = Variant::builtin("shogi").unwrap();
//! let pos = Position::start(&v);
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 30);
//! ```

pub mod attack;
pub mod betza;
pub mod cell;
pub mod error;
pub mod game;
pub mod load;
pub mod material;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod position;
pub mod reference;
pub mod resolve;
pub mod sfen;
pub mod spec;
pub mod usi;
pub mod variant;

pub use error::{ConsistencyError, EngineError, Result};
pub use game::{Game, Status, Termination};
pub use movegen::Convention;
pub use moves::{Move, MoveList};
pub use perft::Perft;
pub use position::{NullUndo, Position};
pub use variant::{Color, Variant};

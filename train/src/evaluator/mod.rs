//! Training the searching engine's evaluator (`shogilab-search`'s piece-square table), as a
//! loop: [`data`] plays the engine against itself and writes each position with its search
//! score and the game's result (Parquet); [`fit`] fits the table to them with tch, on a
//! held-out split by game, after fitting the logistic scale that turns a score into a winning
//! chance; the fitted table is exported in the engine's integer file format, and the next
//! round's games are played with it.

pub mod data;
pub mod fit;

//! Training examples: stored samples decoded into positions with their legal moves and
//! targets, and the held-out split by game.
//!
//! * Policy target: the stored search policy spread over the legal moves (moves absent from it
//!   get 0), renormalised.
//! * Value target: win/draw/loss probabilities, `(1 - value_mix)` of the game result plus
//!   `value_mix` of the search value `q` as `((1 + q) / 2, 0, (1 - q) / 2)`.

use crate::batch::EncodedInput;
use rayon::prelude::*;
use shogilab_engine::{Move, MoveList, Position};
use shogilab_selfplay::dataset::Sample;
use shogilab_selfplay::encode::Encoder;
use std::collections::HashMap;

/// A stored sample that cannot become a training example.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The sample's SFEN does not parse for the variant.
    #[error("sample {index}: {source}")]
    Sfen {
        /// Row of the sample.
        index: usize,
        /// What the SFEN parser said.
        #[source]
        source: shogilab_engine::EngineError,
    },
    /// None of the moves of the stored search policy is legal in the position.
    #[error("sample {index} ({sfen}): no stored policy move is legal")]
    NoLegalPolicyMove {
        /// Row of the sample.
        index: usize,
        /// Its position.
        sfen: String,
    },
}

/// A decoded training example: the network's inputs (encoded once) and its targets.
pub struct Example {
    pub input: EncodedInput,
    /// Probability of each legal move, in the order of the input's moves.
    pub target: Vec<f32>,
    /// Win, draw, loss probabilities for the side to move.
    pub value: [f32; 3],
}

impl Example {
    /// An example of a position, its legal moves and targets.
    pub fn new(
        enc: &Encoder,
        pos: &Position,
        moves: &[Move],
        plies: u32,
        target: Vec<f32>,
        value: [f32; 3],
    ) -> Example {
        Example { input: EncodedInput::new(enc, pos, moves, plies), target, value }
    }
}

/// The value target of a result (1 win, 0 draw, -1 loss) mixed with a search value.
pub fn value_target(result: i8, root_value: f32, value_mix: f32) -> [f32; 3] {
    let mut t = match result {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    };
    let q = root_value.clamp(-1.0, 1.0);
    if value_mix > 0.0 && q.is_finite() {
        let s = [(1.0 + q) / 2.0, 0.0, (1.0 - q) / 2.0];
        for (a, b) in t.iter_mut().zip(s) {
            *a = (1.0 - value_mix) * *a + value_mix * b;
        }
    }
    t
}

/// Decode samples: positions from SFEN, every legal move with its target probability. Errors
/// name the sample; positions without a legal move are skipped. Samples are decoded on every
/// core (rayon) and kept in their order.
pub fn decode(
    enc: &Encoder,
    samples: &[Sample],
    value_mix: f32,
) -> Result<Vec<Example>, DecodeError> {
    let decoded: Result<Vec<Option<Example>>, DecodeError> = samples
        .par_iter()
        .enumerate()
        .map_init(MoveList::new, |legal, (i, s)| decode_one(enc, legal, i, s, value_mix))
        .collect();
    Ok(decoded?.into_iter().flatten().collect())
}

/// One sample as an example (`None` when its position has no legal move).
fn decode_one(
    enc: &Encoder,
    legal: &mut MoveList,
    index: usize,
    s: &Sample,
    value_mix: f32,
) -> Result<Option<Example>, DecodeError> {
    let pos = Position::from_sfen(&enc.variant, &s.sfen)
        .map_err(|source| DecodeError::Sfen { index, source })?;
    legal.clear();
    pos.legal_moves(legal);
    if legal.is_empty() {
        return Ok(None);
    }
    let probs: HashMap<&str, f32> =
        s.policy_moves.iter().map(String::as_str).zip(s.policy_probs.iter().copied()).collect();
    let mut target: Vec<f32> = legal
        .iter()
        .map(|m| probs.get(pos.move_to_usi(*m).as_str()).copied().unwrap_or(0.0))
        .collect();
    let sum: f32 = target.iter().sum();
    if sum <= 0.0 {
        return Err(DecodeError::NoLegalPolicyMove { index, sfen: s.sfen.clone() });
    }
    target.iter_mut().for_each(|p| *p /= sum);
    let value = value_target(s.result, s.root_value, value_mix);
    Ok(Some(Example::new(enc, &pos, legal, s.ply, target, value)))
}

/// FNV-1a of a game id: a hash that stays the same across builds and platforms.
fn stable_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Whether a game belongs to the held-out set (`percent` of games, chosen by a hash of the
/// game id, so every position of a game lands on the same side and reruns agree).
pub fn held_out(game_id: &str, percent: f64) -> bool {
    ((stable_hash(game_id) % 10_000) as f64) < percent * 100.0
}

/// Split samples into (training, held-out) by game.
pub fn split_by_game(samples: Vec<Sample>, percent: f64) -> (Vec<Sample>, Vec<Sample>) {
    samples.into_iter().partition(|s| !held_out(&s.game_id, percent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_target_mixes_result_and_search_value() {
        assert_eq!(value_target(1, -1.0, 0.0), [1.0, 0.0, 0.0]);
        let t = value_target(-1, 0.5, 0.5);
        assert!((t[0] - 0.375).abs() < 1e-6 && t[1] == 0.0 && (t[2] - 0.625).abs() < 1e-6);
        let d = value_target(0, 1.0, 0.25);
        assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-6 && (d[1] - 0.75).abs() < 1e-6);
    }

    #[test]
    fn held_out_split_is_by_game_and_near_its_percent() {
        let ids: Vec<String> = (0..20_000).map(|i| format!("3-{i}")).collect();
        let n = ids.iter().filter(|g| held_out(g, 5.0)).count();
        assert!((800..1200).contains(&n), "{n} of 20000 held out at 5%");
        assert!(!ids.iter().any(|g| held_out(g, 0.0)));
        assert!(ids.iter().all(|g| held_out(g, 100.0)));
        assert_eq!(held_out("0-17", 5.0), held_out("0-17", 5.0));
    }
}

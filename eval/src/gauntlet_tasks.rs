//! A gauntlet split into tasks (`shogilab gauntlet --task-index I --task-count N --out URL`).
//!
//! Task I of N plays, for every pairing k of the plan ([`crate::gauntlet::plan`]), that
//! pairing's match task I of N (the openings o with o % N == I, each with the colours swapped;
//! [`crate::match_tasks`]) and stores it under `<out>/pair-KK/`: one immutable object per task
//! and pairing, so a task rerun after a kill skips the pairings it already stored and plays the
//! rest. [`merge`] reads every pairing's parts, checks them (one gauntlet's settings, one task
//! count, every task present) and fits one table over the merged tallies: the games, tallies
//! and table of one process playing the whole gauntlet.

use crate::gauntlet::{fit_table, EloRow, GauntletError};
use crate::match_tasks::{self, MatchTaskError};
use crate::record::{GameLines, MatchRecord};
use shogilab_store::{Store, StoreError};

/// Why a gauntlet's parts could not be stored or merged, naming the location.
#[derive(Debug, thiserror::Error)]
pub enum GauntletTaskError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Parts(#[from] MatchTaskError),
    #[error(transparent)]
    Fit(#[from] GauntletError),
    #[error(
        "{url}: no task parts of pairing {a} vs {b} while other pairings have theirs (the \
         gauntlet's tasks are not all done)"
    )]
    MissingPair { url: String, a: String, b: String },
}

/// Where pairing `k`'s parts go: `<out>/pair-KK`.
pub fn pair_store(out: &Store, k: usize) -> Result<Store, StoreError> {
    Store::open(&format!("{}/pair-{k:02}", out.url().trim_end_matches('/')))
}

/// The settings recorded in each part of pairing `k` (a part of another gauntlet or pairing is
/// refused): the gauntlet's settings, the pairing's index and its two agents.
pub fn pair_settings(
    gauntlet: &serde_json::Value,
    k: usize,
    a: &str,
    b: &str,
) -> serde_json::Value {
    serde_json::json!({ "gauntlet": gauntlet, "pair": k, "a": a, "b": b })
}

/// One pairing, merged from its tasks' parts.
#[derive(Debug, Clone)]
pub struct MergedPair {
    pub i: usize,
    pub j: usize,
    pub record: MatchRecord,
    /// The games in opening order, each JSON object with its `pair`.
    pub games: GameLines,
}

/// A gauntlet merged from its tasks' parts.
#[derive(Debug, Clone)]
pub struct Merged {
    pub pairs: Vec<MergedPair>,
    pub table: Vec<EloRow>,
    pub regularized: bool,
}

/// Merge the parts of every pairing `(i, j)` of `pairs` (in plan order) among the agents
/// `names`, under the gauntlet's `settings`. `Ok(None)` when no pairing has parts (nothing to
/// merge); an error when some pairings have parts and others none, or a pairing's parts are
/// incomplete or of another gauntlet.
pub fn merge(
    out: &Store,
    names: &[String],
    pairs: &[(usize, usize)],
    settings: &serde_json::Value,
) -> Result<Option<Merged>, GauntletTaskError> {
    let (mut merged, mut missing) = (Vec::new(), None);
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let at = pair_store(out, k)?;
        match match_tasks::merge(&at, &pair_settings(settings, k, &names[i], &names[j]))? {
            Some((record, mut games)) => {
                for g in &mut games.json {
                    g["pair"] = serde_json::json!([i, j]);
                }
                merged.push(MergedPair { i, j, record, games });
            }
            None => {
                missing.get_or_insert((at.url().to_string(), i, j));
            }
        }
    }
    if merged.is_empty() {
        return Ok(None);
    }
    if let Some((url, i, j)) = missing {
        return Err(GauntletTaskError::MissingPair {
            url,
            a: names[i].clone(),
            b: names[j].clone(),
        });
    }
    let tallies: Vec<_> = merged.iter().map(|p| (p.i, p.j, p.record.tally())).collect();
    let (table, regularized) = fit_table(names, &tallies)?;
    Ok(Some(Merged { pairs: merged, table, regularized }))
}

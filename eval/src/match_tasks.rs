//! A match split into tasks ([`Task`]: task I plays the openings k with k % N == I, each
//! twice with colours swapped) and the merge of their parts.
//!
//! Each task stores one object, `match-IIIII-of-NNNNN.json` ([`MatchPart`]): the match's
//! settings, the task's [`MatchRecord`] (tallies with the forfeits apart, search sizes as
//! sums) and its games' lines. [`merge`] reads every part of a location, checks that the parts
//! are of one match (same settings, one task count, every task present) and adds them up into
//! the record and game files of the whole match, as if one process had played it.

use crate::r#match::{MatchResult, Tally};
use crate::record::{GameLines, MatchRecord};
use serde::{Deserialize, Serialize};
use shogilab_store::{Store, StoreError, Task};

/// The stem of task part names.
const STEM: &str = "match";

/// Why a match's parts could not be stored or merged, naming the location or the part.
#[derive(Debug, thiserror::Error)]
pub enum MatchTaskError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{url}: not a match part: {source}")]
    Parse {
        url: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("{url}: a part of another match ({what}); use another --out")]
    OtherMatch { url: String, what: String },
    #[error("{url}: parts of {found} tasks here, --task-count {asked} asked")]
    TaskCount { url: String, found: u32, asked: u32 },
    #[error("{url}: {missing} of the {count} tasks have no part yet (first missing: task {first}); run them, then merge")]
    Missing { url: String, missing: usize, count: u32, first: u32 },
}

/// One task's part of a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchPart {
    /// The match's settings (agents, games, seed, limits, ...): equal in every part.
    pub settings: serde_json::Value,
    pub task: Task,
    pub record: MatchRecord,
    /// The games' indices in the whole match, in the order of `games`' lines.
    pub indices: Vec<usize>,
    pub games: GameLines,
}

/// The part `name` of a location (its URL and contents), if it exists.
fn read_part(at: &Store, name: &str) -> Result<Option<(String, MatchPart)>, MatchTaskError> {
    let Some(bytes) = at.get(name)? else { return Ok(None) };
    let url = at.url_of(name);
    let part = serde_json::from_slice(&bytes)
        .map_err(|source| MatchTaskError::Parse { url: url.clone(), source })?;
    Ok(Some((url, part)))
}

/// The parts stored in a location, by task index.
pub fn parts(at: &Store) -> Result<Vec<(String, MatchPart)>, MatchTaskError> {
    let mut out = Vec::new();
    for name in at.list()? {
        if Task::parse_object_name(&name, STEM, "json").is_some() {
            out.extend(read_part(at, &name)?);
        }
    }
    out.sort_by_key(|(_, p)| p.task);
    Ok(out)
}

/// A task's stored part (its URL and contents), if there is one; a part of another match is
/// refused.
pub fn stored(
    at: &Store,
    task: Task,
    settings: &serde_json::Value,
) -> Result<Option<(String, MatchPart)>, MatchTaskError> {
    let stored = read_part(at, &task.object_name(STEM, "json"))?;
    if let Some((url, part)) = &stored {
        check_same(url, part, settings)?;
    }
    Ok(stored)
}

/// Store a task's games as its part; parts of another match or task count are refused first.
pub fn write_part(
    at: &Store,
    task: Task,
    settings: &serde_json::Value,
    r: &MatchResult,
) -> Result<String, MatchTaskError> {
    for (url, p) in parts(at)? {
        check_same(&url, &p, settings)?;
        if p.task.count != task.count {
            return Err(MatchTaskError::TaskCount { url, found: p.task.count, asked: task.count });
        }
    }
    let part = MatchPart {
        settings: settings.clone(),
        task,
        record: MatchRecord::of(r),
        indices: r.games.iter().map(|g| g.index).collect(),
        games: GameLines::of(r),
    };
    let name = task.object_name(STEM, "json");
    let json = serde_json::to_vec_pretty(&part)
        .map_err(|source| MatchTaskError::Parse { url: at.url_of(&name), source })?;
    at.put(&name, json)?;
    Ok(at.url_of(&name))
}

fn check_same(
    url: &str,
    part: &MatchPart,
    settings: &serde_json::Value,
) -> Result<(), MatchTaskError> {
    if &part.settings == settings {
        return Ok(());
    }
    let what = format!("its settings {} differ from {}", part.settings, settings);
    Err(MatchTaskError::OtherMatch { url: url.into(), what })
}

/// The whole match from every part of a location (`None` when it holds no part): the summed
/// record and the games in match order.
pub fn merge(
    at: &Store,
    settings: &serde_json::Value,
) -> Result<Option<(MatchRecord, GameLines)>, MatchTaskError> {
    let parts = parts(at)?;
    let Some((_, first)) = parts.first() else { return Ok(None) };
    let count = first.task.count;
    for (url, p) in &parts {
        check_same(url, p, settings)?;
        if p.task.count != count {
            let url = url.clone();
            return Err(MatchTaskError::TaskCount { url, found: count, asked: p.task.count });
        }
    }
    let present: Vec<u32> = parts.iter().map(|(_, p)| p.task.index).collect();
    if let Some(first) = (0..count).find(|i| !present.contains(i)) {
        let missing = count as usize - present.len();
        return Err(MatchTaskError::Missing { url: at.url().into(), missing, count, first });
    }
    let records: Vec<&MatchRecord> = parts.iter().map(|(_, p)| &p.record).collect();
    let mut games: Vec<(usize, String, serde_json::Value, String)> = Vec::new();
    for (_, p) in &parts {
        for (k, &i) in p.indices.iter().enumerate() {
            let g = &p.games;
            games.push((i, g.replay[k].clone(), g.json[k].clone(), g.log[k].clone()));
        }
    }
    games.sort_by_key(|g| g.0);
    let lines = GameLines {
        replay: games.iter().map(|g| g.1.clone()).collect(),
        json: games.iter().map(|g| g.2.clone()).collect(),
        log: games.iter().map(|g| g.3.clone()).collect(),
    };
    Ok(Some((sum(&records), lines)))
}

/// The record of the games of several records of one match.
fn sum(records: &[&MatchRecord]) -> MatchRecord {
    let tally = records.iter().fold(Tally::default(), |t, r| t.plus(&r.tally()));
    let mut searched = [[0u64; 2]; 2];
    for r in records {
        for (agent, sums) in searched.iter_mut().enumerate() {
            sums[0] += r.searched[agent][0];
            sums[1] += r.searched[agent][1];
        }
    }
    let forfeits = records.iter().map(|r| r.forfeits).sum();
    let agents = (records[0].a.clone(), records[0].b.clone());
    MatchRecord::from_tally(agents, tally, (forfeits, searched), None)
}

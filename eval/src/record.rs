//! A match written to a folder and read back as data: `games.txt` (one `replay` line per
//! game), `games.jsonl` (one JSON object per game), `games.log` (one line per game for people),
//! `match.json` (the [`MatchRecord`]) and `match.md`, each file written atomically. Programs
//! read `match.json` ([`read_match_record`]); `match.md` is for people.

use crate::elo::score_summary;
use crate::play::side_name;
use crate::r#match::{nodes_per_move, GameRecord, MatchResult, Tally};
use serde::{Deserialize, Serialize};
use shogilab_store::{Store, StoreError};
use std::path::{Path, PathBuf};

/// Why a match folder could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a match record: {source}")]
    Parse {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

/// The sequential test's state when a match stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SprtRecord {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: String,
}

/// Numbers that may be infinite (an Elo difference when one side scored everything): JSON has
/// no infinity, so they are written as the strings `"inf"`, `"-inf"` (and `"nan"`).
mod real {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Word(String),
    }

    pub(super) fn to_repr(x: f64) -> impl Serialize {
        match x {
            x if x.is_finite() => Repr::Number(x),
            x if x.is_nan() => Repr::Word("nan".into()),
            x if x > 0.0 => Repr::Word("inf".into()),
            _ => Repr::Word("-inf".into()),
        }
    }

    pub(super) fn from_repr<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(x) => Ok(x),
            Repr::Word(w) => match w.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                other => Err(serde::de::Error::custom(format!(
                    "expected a number, \"inf\", \"-inf\" or \"nan\", found {other:?}"
                ))),
            },
        }
    }

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        to_repr(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        from_repr(d)
    }
}

/// A pair of [`real`] numbers.
mod real_pair {
    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    struct Pair(
        #[serde(deserialize_with = "super::real::from_repr")] f64,
        #[serde(deserialize_with = "super::real::from_repr")] f64,
    );

    pub fn serialize<S: Serializer>(x: &[f64; 2], s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&super::real::to_repr(x[0]))?;
        t.serialize_element(&super::real::to_repr(x[1]))?;
        t.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
        let Pair(a, b) = Pair::deserialize(d)?;
        Ok([a, b])
    }
}

/// The result of a match as data, from agent `a`'s side (what `match.json` holds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchRecord {
    pub a: String,
    pub b: String,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Games played (fewer than asked when the SPRT stopped the match).
    pub games: u64,
    pub score: f64,
    pub score_ci95: [f64; 2],
    /// Infinite when one side scored everything (written `"inf"` / `"-inf"`).
    #[serde(with = "real")]
    pub elo: f64,
    #[serde(with = "real_pair")]
    pub elo_ci95: [f64; 2],
    /// Games lost by forfeit (crash, timeout, illegal move), either side.
    pub forfeits: usize,
    /// A's wins by B's forfeit (part of `wins`).
    #[serde(default)]
    pub forfeit_wins: u64,
    /// A's losses by its own forfeit (part of `losses`).
    #[serde(default)]
    pub forfeit_losses: u64,
    /// Per agent (A, B): moves whose search size was reported, and their nodes in all (the
    /// sums behind `nodes_per_move`, so that records of parts of a match add up).
    #[serde(default)]
    pub searched: [[u64; 2]; 2],
    /// Mean nodes (alpha-beta) or simulations (MCTS) per move of A and of B, where reported.
    #[serde(default)]
    pub nodes_per_move: [Option<f64>; 2],
    pub sprt: Option<SprtRecord>,
    /// The settings the command played at (variant and its options, agents, games, seed,
    /// limits), where it recorded them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
}

impl MatchRecord {
    /// The record of a finished match.
    pub fn of(r: &MatchResult) -> MatchRecord {
        let sprt = r.sprt.map(|t| SprtRecord {
            llr: t.llr,
            lower: t.lower,
            upper: t.upper,
            decision: t.decision.as_str().to_string(),
        });
        let agents = (r.a.clone(), r.b.clone());
        MatchRecord::from_tally(agents, r.tally, (r.forfeits(), r.searched()), sprt)
    }

    /// The record of games from A's tally (forfeits apart), the games ended by a forfeit of
    /// either side and the search-size sums: score and Elo with their intervals computed here.
    pub fn from_tally(
        (a, b): (String, String),
        t: Tally,
        (forfeits, searched): (usize, [[u64; 2]; 2]),
        sprt: Option<SprtRecord>,
    ) -> MatchRecord {
        let s = score_summary(t.wins, t.draws, t.losses);
        MatchRecord {
            a,
            b,
            wins: t.wins,
            draws: t.draws,
            losses: t.losses,
            games: s.games,
            score: s.score,
            score_ci95: [s.score_ci.0, s.score_ci.1],
            elo: s.elo,
            elo_ci95: [s.elo_ci.0, s.elo_ci.1],
            forfeits,
            forfeit_wins: t.forfeit_wins,
            forfeit_losses: t.forfeit_losses,
            searched,
            nodes_per_move: nodes_per_move(searched),
            sprt,
            settings: None,
        }
    }

    /// The record with the settings the command played at.
    pub fn with_settings(mut self, settings: serde_json::Value) -> MatchRecord {
        self.settings = Some(settings);
        self
    }

    /// The variant options of the recorded settings (`NAME=VALUE`), if any.
    pub fn variant_options(&self) -> Vec<String> {
        let options = self.settings.as_ref().and_then(|s| s.get("options"));
        let list = options.and_then(|o| o.as_array()).map(Vec::as_slice).unwrap_or_default();
        list.iter().filter_map(|o| o.as_str().map(str::to_string)).collect()
    }

    /// A's tally, forfeits apart.
    pub fn tally(&self) -> Tally {
        Tally {
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            forfeit_wins: self.forfeit_wins,
            forfeit_losses: self.forfeit_losses,
        }
    }

    /// One line for people: `+W =D -L (N games), score S [lo, hi], Elo E [lo, hi]`.
    pub fn summary_line(&self) -> String {
        let [sl, sh] = self.score_ci95;
        let [el, eh] = self.elo_ci95;
        let mut s = format!(
            "+{} ={} -{} ({} games), score {:.3} [{sl:.3}, {sh:.3}], Elo {:+.1} [{el:+.1}, {eh:+.1}]",
            self.wins, self.draws, self.losses, self.games, self.score, self.elo
        );
        if self.forfeits > 0 {
            s.push_str(&format!(", {} forfeits", self.forfeits));
        }
        s.push_str(&crate::r#match::nodes_note(self.nodes_per_move));
        if let Some(t) = &self.sprt {
            s.push_str(&format!(", SPRT LLR {:.2} {}", t.llr, t.decision));
        }
        s
    }
}

/// One game as a JSON object (`pair`: the agents' indices in a gauntlet).
pub fn game_json(g: &GameRecord, pair: Option<(usize, usize)>) -> serde_json::Value {
    let r = &g.result;
    serde_json::json!({
        "pair": pair,
        "index": g.index,
        "opening": g.opening,
        "black": g.black,
        "white": g.white,
        "result": r.result_str(),
        "termination": r.status.termination().map(|t| t.as_str()),
        "plies": r.plies,
        "opening_plies": r.opening_plies,
        "forfeit": r.forfeit.as_ref().map(|(c, why)| serde_json::json!({
            "side": side_name(*c), "reason": why })),
        "line": r.replay_line(),
    })
}

/// One game as a line for people: `game   3: A (black) vs B (white): ... in N plies`.
pub fn game_line(g: &GameRecord) -> String {
    format!(
        "game {:>3}: {} (black) vs {} (white): {} in {} plies",
        g.index + 1,
        g.black,
        g.white,
        g.result.describe(),
        g.result.plies
    )
}

fn markdown(r: &MatchRecord, variant: &str) -> String {
    let [sl, sh] = r.score_ci95;
    let [el, eh] = r.elo_ci95;
    let options = r.variant_options();
    let variant = if options.is_empty() {
        variant.to_string()
    } else {
        format!("{variant}, option {}", options.join(", "))
    };
    format!(
        "# {} vs {} ({variant})\n\n{}\n\n| W | D | L | score | 95% CI | Elo | 95% CI |\n\
         |---:|---:|---:|---:|---|---:|---|\n\
         | {} | {} | {} | {:.3} | [{sl:.3}, {sh:.3}] | {:+.1} | [{el:+.1}, {eh:+.1}] |\n",
        r.a,
        r.b,
        r.summary_line(),
        r.wins,
        r.draws,
        r.losses,
        r.score,
        r.elo
    )
}

/// A match's games in the three per-game files' forms, in game order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameLines {
    /// `games.txt`: `replay` lines.
    pub replay: Vec<String>,
    /// `games.jsonl`: [`game_json`] objects.
    pub json: Vec<serde_json::Value>,
    /// `games.log`: [`game_line`] lines.
    pub log: Vec<String>,
}

impl GameLines {
    /// The lines of a match's games.
    pub fn of(r: &MatchResult) -> GameLines {
        GameLines {
            replay: r.games.iter().map(|g| g.result.replay_line()).collect(),
            json: r.games.iter().map(|g| game_json(g, None)).collect(),
            log: r.games.iter().map(game_line).collect(),
        }
    }
}

/// Write a match's folder (see the module documentation); `match.json` is written last, so its
/// presence marks the match complete.
pub fn write_match_dir(
    dir: &Path,
    r: &MatchResult,
    variant: &str,
) -> Result<MatchRecord, RecordError> {
    let record = MatchRecord::of(r);
    write_match_files(&Store::folder(dir), &record, &GameLines::of(r), variant)?;
    Ok(record)
}

/// Write a match's files into a location (a folder or a bucket prefix), `match.json` last.
pub fn write_match_files(
    to: &Store,
    record: &MatchRecord,
    games: &GameLines,
    variant: &str,
) -> Result<(), RecordError> {
    let lines = |v: &[String]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
    to.put("games.txt", lines(&games.replay).into_bytes())?;
    let jl: String = games.json.iter().map(|j| format!("{j}\n")).collect();
    to.put("games.jsonl", jl.into_bytes())?;
    to.put("games.log", lines(&games.log).into_bytes())?;
    to.put("match.md", markdown(record, variant).into_bytes())?;
    let json = serde_json::to_string_pretty(record)
        .map_err(|source| RecordError::Parse { path: to.url_of("match.json").into(), source })?;
    to.put("match.json", json.into_bytes())?;
    Ok(())
}

/// Read `dir/match.json` back; `Ok(None)` when the folder holds no finished match.
pub fn read_match_record(dir: &Path) -> Result<Option<MatchRecord>, RecordError> {
    let path = dir.join("match.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(RecordError::Read { path, source }),
    };
    serde_json::from_str(&text).map(Some).map_err(|source| RecordError::Parse { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinite_elo_survives_the_round_trip() {
        let r = MatchRecord {
            a: "a".into(),
            b: "b".into(),
            wins: 2,
            draws: 0,
            losses: 0,
            games: 2,
            score: 1.0,
            score_ci95: [0.34, 1.0],
            elo: f64::INFINITY,
            elo_ci95: [-115.0, f64::INFINITY],
            forfeits: 0,
            forfeit_wins: 0,
            forfeit_losses: 0,
            searched: [[8, 6500], [0, 0]],
            nodes_per_move: [Some(812.5), None],
            sprt: None,
            settings: Some(
                serde_json::json!({"variant": "chu", "options": ["repetition=forbidden"]}),
            ),
        };
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains(r#""elo":"inf""#) && text.contains(r#"[-115.0,"inf"]"#), "{text}");
        let back: MatchRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
        assert!(r.summary_line().ends_with("nodes per move 812 / -"), "{}", r.summary_line());
        let bad = text.replace(r#""elo":"inf""#, r#""elo":"lots""#);
        let e = serde_json::from_str::<MatchRecord>(&bad).unwrap_err().to_string();
        assert!(e.contains("lots"), "{e}");
        assert_eq!(r.variant_options(), ["repetition=forbidden"]);
        assert!(markdown(&r, "chu").starts_with("# a vs b (chu, option repetition=forbidden)"));
    }
}

//! Positions scored by the engine's own search: the data the evaluator is fitted to.
//!
//! Each game starts with `random_plies` uniformly random legal moves (seeded from the run's
//! seed and the game's index), then the engine plays both sides at a fixed node budget; every
//! position after the random plies is written with the score of its search. A game whose
//! searches agree for `adjudicate_plies` plies in a row that one side is `adjudicate_cp` ahead
//! is scored as that side's win (games between engines that know only material would
//! otherwise mostly end at the ply cap, and a table fitted to draws learns nothing).
//!
//! Table (`evaldata-<shard>.parquet`, schema version 1), one row per position:
//!
//! | column | type | meaning |
//! |---|---|---|
//! | `schema_version` | u32 | 1 |
//! | `variant` | str | the variant's name |
//! | `game_id` | str | `<seed>-<game index>` |
//! | `ply` | u32 | plies played before the position |
//! | `sfen` | str | the position |
//! | `score` | i32 | search score for the side to move (centipawns; ±1,000,000 less plies: a decided game) |
//! | `depth` | u32 | last iteration the search completed |
//! | `quiet` | bool | the side to move is not in check and the best move captures nothing |
//! | `result` | i8 | game result for the side to move: 1 win, 0 draw, -1 loss |
//! | `evaluator` | str | the evaluator that searched (its file's source line, or `material`) |

use polars::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use shogilab_engine::{Game, Position, Status, Variant};
use shogilab_search::evaluator::Psq;
use shogilab_search::{Engine, Limits, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const SCHEMA_VERSION: u32 = 1;

/// The columns of a data file, with their types.
pub fn columns() -> Vec<(&'static str, DataType)> {
    vec![
        ("schema_version", DataType::UInt32),
        ("variant", DataType::String),
        ("game_id", DataType::String),
        ("ply", DataType::UInt32),
        ("sfen", DataType::String),
        ("score", DataType::Int32),
        ("depth", DataType::UInt32),
        ("quiet", DataType::Boolean),
        ("result", DataType::Int8),
        ("evaluator", DataType::String),
    ]
}

/// How the games are played (the data generation's settings that a loop config gives too).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaySettings {
    pub games: usize,
    /// Games per file (a killed run resumes at the first missing file).
    pub games_per_shard: usize,
    /// Nodes searched a move.
    pub nodes: u64,
    /// Uniformly random first plies of each game.
    pub random_plies: u32,
    /// A draw at this ply.
    pub max_plies: u32,
    /// A game ends as a win once the side ahead has been at least this far ahead (centipawns)
    /// in `adjudicate_plies` consecutive searches, both sides' searches agreeing.
    pub adjudicate_cp: i32,
    pub adjudicate_plies: u32,
}

/// A data generation's settings, saved as `datagen.json` beside the data: a run resumes only
/// with the same settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DataConfig {
    pub variant: String,
    /// The searching evaluator (a file path, or `material`).
    pub evaluator: String,
    #[serde(flatten)]
    pub play: PlaySettings,
    pub seed: u64,
}

/// One searched position.
struct Row {
    game: usize,
    ply: u32,
    sfen: String,
    score: i32,
    depth: u32,
    quiet: bool,
    mover_black: bool,
}

/// Why data could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("{path}: {source}")]
    Polars { path: String, source: PolarsError },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: {msg}")]
    Invalid { path: String, msg: String },
}

/// Play the games of `cfg` into `dir` (shards already there are kept); the files written.
pub fn generate(
    variant: &Arc<Variant>,
    psq: Arc<Psq>,
    cfg: &DataConfig,
    dir: &Path,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<PathBuf>, DataError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| DataError::Io { path: dir.display().to_string(), source: e })?;
    check_config(cfg, dir)?;
    let shards = cfg.play.games.div_ceil(cfg.play.games_per_shard.max(1));
    let mut written = Vec::new();
    for shard in 0..shards {
        let path = dir.join(format!("evaldata-{shard:05}.parquet"));
        if path.exists() {
            progress(cfg.play.games_per_shard);
            continue;
        }
        let first = shard * cfg.play.games_per_shard;
        let last = (first + cfg.play.games_per_shard).min(cfg.play.games);
        let rows: Vec<(Vec<Row>, i8)> = (first..last)
            .into_par_iter()
            .map(|g| {
                let r = play(variant, &psq, cfg, g);
                progress(1);
                r
            })
            .collect();
        write(&path, variant, &cfg.evaluator, cfg.seed, &rows)?;
        written.push(path);
    }
    Ok(written)
}

/// Save the settings beside the data, or refuse settings that differ from those saved there
/// (the field that differs is named).
fn check_config(cfg: &DataConfig, dir: &Path) -> Result<(), DataError> {
    let path = dir.join("datagen.json");
    let p = path.display().to_string();
    let now = serde_json::to_value(cfg).expect("a config serialises");
    let Ok(saved) = std::fs::read_to_string(&path) else {
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(&now).expect("a value serialises");
        std::fs::write(&tmp, text).map_err(|e| DataError::Io { path: p.clone(), source: e })?;
        return std::fs::rename(&tmp, &path).map_err(|e| DataError::Io { path: p, source: e });
    };
    let saved: serde_json::Value = serde_json::from_str(&saved)
        .map_err(|e| DataError::Invalid { path: p.clone(), msg: e.to_string() })?;
    let differs = now.as_object().and_then(|now| {
        now.iter()
            .find(|(k, v)| saved.get(k.as_str()) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
    });
    match differs {
        Some((k, v)) => {
            let was = saved.get(&k).map_or("nothing".to_string(), |x| x.to_string());
            let msg = format!("this folder holds data with {k} = {was}, not {v}: use another folder or the same settings");
            Err(DataError::Invalid { path: p, msg })
        }
        None => Ok(()),
    }
}

/// One game: its searched rows and Black's result (1, 0, -1).
fn play(variant: &Arc<Variant>, psq: &Arc<Psq>, cfg: &DataConfig, index: usize) -> (Vec<Row>, i8) {
    let mut rng =
        SmallRng::seed_from_u64(cfg.seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut game = Game::new(Position::start(variant));
    game.set_max_plies(cfg.play.max_plies);
    let mut engine = Engine::new(Arc::clone(psq), Options { hash_mb: 16, ..Options::default() });
    let mut rows = Vec::new();
    // consecutive searches with Black at least adjudicate_cp ahead (positive) or behind
    let mut streak: i32 = 0;
    let mut adjudicated = 0;
    while !game.status().is_over() {
        let ply = game.plies() as u32;
        let legal = game.legal();
        if ply < cfg.play.random_plies {
            let m = legal[rng.gen_range(0..legal.len())];
            game.play(m);
            continue;
        }
        let limits = Limits { nodes: Some(cfg.play.nodes), ..Limits::default() };
        let Some(out) = engine.search(&game, limits, &mut |_| {}) else { break };
        let pos = game.position();
        let quiet = !pos.in_check_of(pos.side_to_move())
            && shogilab_search::ordering::victims(psq, pos, out.best) == 0;
        rows.push(Row {
            game: index,
            ply,
            sfen: pos.to_sfen(),
            score: out.score,
            depth: out.depth,
            quiet,
            mover_black: pos.side_to_move() == shogilab_engine::Color::Black,
        });
        let black_view = if pos.side_to_move() == shogilab_engine::Color::Black {
            out.score
        } else {
            -out.score
        };
        streak = match black_view {
            s if s >= cfg.play.adjudicate_cp => streak.max(0) + 1,
            s if s <= -cfg.play.adjudicate_cp => streak.min(0) - 1,
            _ => 0,
        };
        if streak.unsigned_abs() >= cfg.play.adjudicate_plies.max(1) {
            adjudicated = streak.signum() as i8;
            break;
        }
        game.play(out.best);
    }
    let black = match game.status() {
        _ if adjudicated != 0 => adjudicated,
        Status::Win(shogilab_engine::Color::Black, _) => 1,
        Status::Win(..) => -1,
        _ => 0,
    };
    (rows, black)
}

fn write(
    path: &Path,
    variant: &Variant,
    source: &str,
    seed: u64,
    games: &[(Vec<Row>, i8)],
) -> Result<(), DataError> {
    let rows: Vec<(&Row, i8)> =
        games.iter().flat_map(|(rs, b)| rs.iter().map(move |r| (r, *b))).collect();
    let n = rows.len();
    let col = |name: &str, s: Series| s.with_name(name.into()).into_column();
    let mut df = DataFrame::new(
        n,
        vec![
            col("schema_version", Series::new("".into(), vec![SCHEMA_VERSION; n])),
            col("variant", Series::new("".into(), vec![variant.name.clone(); n])),
            col(
                "game_id",
                Series::new(
                    "".into(),
                    rows.iter().map(|(r, _)| format!("{seed}-{}", r.game)).collect::<Vec<_>>(),
                ),
            ),
            col("ply", Series::new("".into(), rows.iter().map(|(r, _)| r.ply).collect::<Vec<_>>())),
            col(
                "sfen",
                Series::new(
                    "".into(),
                    rows.iter().map(|(r, _)| r.sfen.clone()).collect::<Vec<_>>(),
                ),
            ),
            col(
                "score",
                Series::new("".into(), rows.iter().map(|(r, _)| r.score).collect::<Vec<_>>()),
            ),
            col(
                "depth",
                Series::new("".into(), rows.iter().map(|(r, _)| r.depth).collect::<Vec<_>>()),
            ),
            col(
                "quiet",
                Series::new("".into(), rows.iter().map(|(r, _)| r.quiet).collect::<Vec<_>>()),
            ),
            col(
                "result",
                Series::new(
                    "".into(),
                    rows.iter()
                        .map(|(r, b)| if r.mover_black { *b } else { -*b })
                        .collect::<Vec<i8>>(),
                ),
            ),
            col("evaluator", Series::new("".into(), vec![source.to_string(); n])),
        ],
    )
    .map_err(|e| DataError::Polars { path: path.display().to_string(), source: e })?;
    let tmp = path.with_extension("parquet.tmp");
    let file = std::fs::File::create(&tmp)
        .map_err(|e| DataError::Io { path: tmp.display().to_string(), source: e })?;
    ParquetWriter::new(file)
        .finish(&mut df)
        .map_err(|e| DataError::Polars { path: path.display().to_string(), source: e })?;
    std::fs::rename(&tmp, path)
        .map_err(|e| DataError::Io { path: path.display().to_string(), source: e })
}

/// One training position read back.
#[derive(Debug, Clone)]
pub struct Sample {
    pub game_id: String,
    pub sfen: String,
    pub score: i32,
    pub result: i8,
}

/// Read the quiet, undecided positions of every data file in `dir`, checking each file's
/// schema and variant.
pub fn read(dir: &Path, variant: &Variant) -> Result<Vec<Sample>, DataError> {
    let io = |e| DataError::Io { path: dir.display().to_string(), source: e };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("evaldata-") && n.ends_with(".parquet"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(DataError::Invalid {
            path: dir.display().to_string(),
            msg: "no evaldata-*.parquet file".into(),
        });
    }
    let mut out = Vec::new();
    for f in &files {
        read_file(f, variant, &mut out)?;
    }
    Ok(out)
}

fn read_file(path: &Path, variant: &Variant, out: &mut Vec<Sample>) -> Result<(), DataError> {
    let p = path.display().to_string();
    let pe = |e| DataError::Polars { path: p.clone(), source: e };
    let file =
        std::fs::File::open(path).map_err(|e| DataError::Io { path: p.clone(), source: e })?;
    let df = ParquetReader::new(file).finish().map_err(pe)?;
    for (name, dt) in columns() {
        match df.schema().get(name) {
            None => {
                return Err(DataError::Invalid {
                    path: p,
                    msg: format!("not an evaluator data file: column {name:?} is missing"),
                })
            }
            Some(t) if *t != dt => {
                return Err(DataError::Invalid {
                    path: p,
                    msg: format!("column {name:?} has type {t}, expected {dt}"),
                })
            }
            _ => {}
        }
    }
    let s = |name: &str| df.column(name).map_err(pe);
    let variants = s("variant")?.str().map_err(pe)?.clone();
    if let Some(other) = variants.iter().flatten().find(|v| *v != variant.name) {
        return Err(DataError::Invalid {
            path: p,
            msg: format!("positions of {other}, not {}", variant.name),
        });
    }
    let (ids, sfens) =
        (s("game_id")?.str().map_err(pe)?.clone(), s("sfen")?.str().map_err(pe)?.clone());
    let (scores, results) =
        (s("score")?.i32().map_err(pe)?.clone(), s("result")?.i8().map_err(pe)?.clone());
    let quiet = s("quiet")?.bool().map_err(pe)?.clone();
    for i in 0..df.height() {
        let (Some(id), Some(sfen), Some(score), Some(result), Some(q)) =
            (ids.get(i), sfens.get(i), scores.get(i), results.get(i), quiet.get(i))
        else {
            return Err(DataError::Invalid { path: p, msg: format!("row {i} has a null value") });
        };
        if q && !shogilab_search::score::is_decided(score)
            && score.abs() < shogilab_search::score::INFINITE
        {
            out.push(Sample { game_id: id.to_string(), sfen: sfen.to_string(), score, result });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(games: usize) -> DataConfig {
        let play = PlaySettings {
            games,
            games_per_shard: 2,
            nodes: 300,
            random_plies: 4,
            max_plies: 24,
            adjudicate_cp: 1000,
            adjudicate_plies: 8,
        };
        DataConfig { variant: "shogi".into(), evaluator: "material".into(), play, seed: 3 }
    }

    /// Games written and read back (every row's game among those played), a rerun that keeps
    /// the files, and a rerun with other settings refused with the field that differs.
    #[test]
    fn data_is_written_resumed_and_refused_with_other_settings() {
        let v = Variant::builtin("shogi").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let values = shogilab_engine::material::mobility(&v);
        let psq = Arc::new(Psq::from_values(Arc::clone(&v), &values, 600.0));
        let written = generate(&v, Arc::clone(&psq), &config(4), dir.path(), &|_| {}).unwrap();
        assert_eq!(written.len(), 2);
        let samples = read(dir.path(), &v).unwrap();
        assert!(!samples.is_empty());
        assert!(samples.iter().all(|s| ["3-0", "3-1", "3-2", "3-3"].contains(&s.game_id.as_str())));
        assert!(generate(&v, Arc::clone(&psq), &config(4), dir.path(), &|_| {})
            .unwrap()
            .is_empty());
        let err = generate(&v, psq, &config(6), dir.path(), &|_| {}).unwrap_err().to_string();
        assert!(err.contains("games = 4, not 6"), "{err}");
        let chu = Variant::builtin("chu").unwrap();
        let err = read(dir.path(), &chu).unwrap_err().to_string();
        assert!(err.contains("positions of shogi, not chu"), "{err}");
    }
}

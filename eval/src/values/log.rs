//! The imbalance game log of `shogilab values`: Parquet part files (zstd) in one folder per
//! variant, `<out>/games/<variant>/`, holding two tables.
//!
//! * `games-NNNNN.parquet`: one row per game ([`GameLine`]).
//! * `sessions-NNNNN.parquet`: one row per playing session ([`SessionLine`]).
//!
//! Appending writes a new part (the next number of its table) through
//! [`shogilab_fsio::AtomicFile`], so a part is either complete or absent; old parts are never
//! rewritten. Readers take every part whose name is exactly `games-<digits>.parquet` (or
//! `sessions-...`), in the order of their numbers, which is the order they were appended in;
//! temporary files (`.games-00003.parquet.XXXX.tmp`) and other names are ignored. One writer
//! per log: two processes appending to the same folder at once could pick the same number.
//!
//! Games table, column by column (every column is required, none is null):
//!
//! | column | type | meaning |
//! |---|---|---|
//! | `schema_version` | u32 | [`SCHEMA_VERSION`] |
//! | `setup` | u64 | setup index (the setup's pieces are drawn from the seed and this index) |
//! | `swap` | u32 | 0: the setup as drawn; 1: mirrored, colours swapped |
//! | `agent` | str | engine id + setup rules ([`ImbalanceConfig::agent_id`](super::imbalance::ImbalanceConfig::agent_id)) |
//! | `seed` | u64 | the game's random seed (root jitter) |
//! | `sfen` | str | start position |
//! | `diff_pieces` | list[str] | piece kinds whose counts differ, in byte order of their names |
//! | `diff_counts` | list[i32] | per kind of `diff_pieces`: Black's count minus White's (never 0) |
//! | `result` | f64 | Black's score: 1, 0.5 or 0 |
//! | `plies` | u32 | plies played |
//! | `termination` | str | how it ended (`royal-captured`, `max-plies`, ...; `none`) |
//! | `ms` | u64 | wall-clock milliseconds of the game on one thread |
//! | `moves` | str | the moves in USI, space-separated; empty where not recorded (the first chu games) |
//!
//! Sessions table:
//!
//! | column | type | meaning |
//! |---|---|---|
//! | `schema_version` | u32 | [`SCHEMA_VERSION`] |
//! | `agent` | str | engine id + setup rules of the games played |
//! | `played` | u64 | games played in the session |
//! | `seconds` | f64 | wall-clock seconds of the session |
//! | `threads` | u64 | game threads |
//! | `note` | str, nullable | how the session ended or was recorded, where not plainly |
//!
//! The JSON-lines logs of earlier versions are read only by the converter ([`super::jsonl`]).

use super::imbalance::GameLine;
use polars::prelude::*;
use polars_parquet::write::ZstdLevel;
use serde::{Deserialize, Serialize};
use shogilab_fsio::{AtomicFile, FsioError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Data pages of this many bytes (uncompressed) are compressed one by one: larger pages give
/// zstd more of the moves to find repeats in.
const DATA_PAGE_BYTES: usize = 8 << 20;

/// Version of both tables' columns; a reader refuses any other.
pub const SCHEMA_VERSION: u32 = 1;

/// One playing session as logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionLine {
    /// Engine id + setup rules of the games played.
    pub agent: String,
    /// Games played.
    pub played: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Game threads.
    pub threads: u64,
    /// How the session ended or was recorded, where not plainly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A failure reading or writing a game log, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Parquet {
        path: PathBuf,
        #[source]
        source: PolarsError,
    },
    #[error("{path}: not a shogilab game log: column {column:?} {problem}")]
    Schema { path: PathBuf, column: &'static str, problem: String },
    #[error("{path}: row {row}: {problem}")]
    Row { path: PathBuf, row: usize, problem: String },
    #[error(transparent)]
    Write(#[from] FsioError),
}

/// The two tables of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Games,
    Sessions,
}

impl Table {
    fn prefix(self) -> &'static str {
        match self {
            Table::Games => "games-",
            Table::Sessions => "sessions-",
        }
    }
}

/// A game log folder (see the module documentation).
#[derive(Debug, Clone)]
pub struct GameLog {
    dir: PathBuf,
}

impl GameLog {
    /// The log in `dir` (which need not exist yet: an absent folder is an empty log).
    pub fn new(dir: impl Into<PathBuf>) -> GameLog {
        GameLog { dir: dir.into() }
    }

    /// The log of `variant` under a report folder: `<out>/games/<variant>/`.
    pub fn of_variant(out: &Path, variant: &str) -> GameLog {
        GameLog::new(out.join("games").join(variant))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The parts of a table, in append order (by number).
    pub fn parts(&self, table: Table) -> Result<Vec<PathBuf>, LogError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(LogError::Io { path: self.dir.clone(), source: e }),
        };
        let mut parts: Vec<(u64, PathBuf)> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| LogError::Io { path: self.dir.clone(), source: e })?;
            let name = entry.file_name();
            if let Some(n) = name.to_str().and_then(|n| part_number(n, table)) {
                parts.push((n, entry.path()));
            }
        }
        parts.sort();
        Ok(parts.into_iter().map(|(_, p)| p).collect())
    }

    /// Whether the log holds any part of either table.
    pub fn is_empty(&self) -> Result<bool, LogError> {
        Ok(self.parts(Table::Games)?.is_empty() && self.parts(Table::Sessions)?.is_empty())
    }

    /// The path the next part of `table` gets.
    fn next_part(&self, table: Table) -> Result<PathBuf, LogError> {
        let next = self
            .parts(table)?
            .iter()
            .filter_map(|p| p.file_name()?.to_str().and_then(|n| part_number(n, table)))
            .max()
            .map_or(0, |n| n + 1);
        Ok(self.dir.join(format!("{}{next:05}.parquet", table.prefix())))
    }

    /// Every game, in the order appended.
    pub fn read_games(&self) -> Result<Vec<GameLine>, LogError> {
        let mut out = Vec::new();
        for p in self.parts(Table::Games)? {
            out.extend(read_games_part(&p)?);
        }
        Ok(out)
    }

    /// Every session, in the order appended.
    pub fn read_sessions(&self) -> Result<Vec<SessionLine>, LogError> {
        let mut out = Vec::new();
        for p in self.parts(Table::Sessions)? {
            out.extend(read_sessions_part(&p)?);
        }
        Ok(out)
    }

    /// Append games as a new part; returns its path (nothing is written for no games).
    pub fn append_games(&self, games: &[GameLine]) -> Result<Option<PathBuf>, LogError> {
        if games.is_empty() {
            return Ok(None);
        }
        let path = self.next_part(Table::Games)?;
        let mut df = games_frame(games).map_err(parquet_err(&path))?;
        write_part(&path, &mut df)?;
        Ok(Some(path))
    }

    /// Append sessions as a new part; returns its path (nothing is written for none).
    pub fn append_sessions(&self, sessions: &[SessionLine]) -> Result<Option<PathBuf>, LogError> {
        if sessions.is_empty() {
            return Ok(None);
        }
        let path = self.next_part(Table::Sessions)?;
        let mut df = sessions_frame(sessions).map_err(parquet_err(&path))?;
        write_part(&path, &mut df)?;
        Ok(Some(path))
    }
}

/// The number of a part file name of `table` (`games-00012.parquet` -> 12).
fn part_number(name: &str, table: Table) -> Option<u64> {
    let digits = name.strip_prefix(table.prefix())?.strip_suffix(".parquet")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn parquet_err(path: &Path) -> impl Fn(PolarsError) -> LogError + '_ {
    move |source| LogError::Parquet { path: path.to_path_buf(), source }
}

/// zstd level of the parts: the moves are most of a log, and level 19 makes them about a fifth
/// smaller than the default level 3 (the chu log: 25.0 MB at level 3); parts are written once.
const ZSTD_LEVEL: i32 = 19;

/// Write a part atomically, zstd-compressed.
fn write_part(path: &Path, df: &mut DataFrame) -> Result<(), LogError> {
    let level = ZstdLevel::try_new(ZSTD_LEVEL).map_err(parquet_err(path))?;
    let mut f = AtomicFile::create(path)?;
    ParquetWriter::new(f.file())
        .with_compression(ParquetCompression::Zstd(Some(level)))
        .with_data_page_size(Some(DATA_PAGE_BYTES))
        .finish(df)
        .map_err(parquet_err(path))?;
    f.commit()?;
    Ok(())
}

fn column<T>(name: &str, values: Vec<T>) -> Column
where
    Series: NamedFrom<Vec<T>, [T]>,
{
    Column::from(Series::new(name.into(), values))
}

/// A list column from per-row series (typed even when there are no rows).
fn list_column(name: &str, rows: Vec<Series>, inner: DataType) -> Column {
    let s = if rows.is_empty() {
        Series::new_empty(name.into(), &DataType::List(Box::new(inner)))
    } else {
        Series::new(name.into(), rows)
    };
    Column::from(s)
}

fn games_frame(games: &[GameLine]) -> PolarsResult<DataFrame> {
    let strs = |f: fn(&GameLine) -> &str| games.iter().map(f).collect::<Vec<&str>>();
    let pieces: Vec<Series> = games
        .iter()
        .map(|g| Series::new("".into(), g.diff.keys().map(|k| k.as_str()).collect::<Vec<_>>()))
        .collect();
    let counts: Vec<Series> = games
        .iter()
        .map(|g| Series::new("".into(), g.diff.values().copied().collect::<Vec<i32>>()))
        .collect();
    DataFrame::new(
        games.len(),
        vec![
            column("schema_version", vec![SCHEMA_VERSION; games.len()]),
            column("setup", games.iter().map(|g| g.setup as u64).collect::<Vec<_>>()),
            column("swap", games.iter().map(|g| g.swap as u32).collect::<Vec<_>>()),
            column("agent", strs(|g| &g.agent)),
            column("seed", games.iter().map(|g| g.seed).collect::<Vec<_>>()),
            column("sfen", strs(|g| &g.sfen)),
            list_column("diff_pieces", pieces, DataType::String),
            list_column("diff_counts", counts, DataType::Int32),
            column("result", games.iter().map(|g| g.result).collect::<Vec<_>>()),
            column("plies", games.iter().map(|g| g.plies).collect::<Vec<_>>()),
            column("termination", strs(|g| &g.termination)),
            column("ms", games.iter().map(|g| g.ms).collect::<Vec<_>>()),
            column("moves", strs(|g| &g.moves)),
        ],
    )
}

fn sessions_frame(sessions: &[SessionLine]) -> PolarsResult<DataFrame> {
    DataFrame::new(
        sessions.len(),
        vec![
            column("schema_version", vec![SCHEMA_VERSION; sessions.len()]),
            column("agent", sessions.iter().map(|s| s.agent.as_str()).collect::<Vec<_>>()),
            column("played", sessions.iter().map(|s| s.played).collect::<Vec<_>>()),
            column("seconds", sessions.iter().map(|s| s.seconds).collect::<Vec<_>>()),
            column("threads", sessions.iter().map(|s| s.threads).collect::<Vec<_>>()),
            column("note", sessions.iter().map(|s| s.note.as_deref()).collect::<Vec<_>>()),
        ],
    )
}

/// A part read whole, with the checks every column shares.
struct Part {
    path: PathBuf,
    df: DataFrame,
}

impl Part {
    fn read(path: &Path, columns: &[(&'static str, DataType)]) -> Result<Part, LogError> {
        let file =
            std::fs::File::open(path).map_err(|e| LogError::Io { path: path.into(), source: e })?;
        let df = ParquetReader::new(file).finish().map_err(parquet_err(path))?;
        for (name, dtype) in columns {
            let problem = match df.column(name) {
                Err(_) => "is missing".to_string(),
                Ok(c) if c.dtype() != dtype => format!("has type {}, expected {dtype}", c.dtype()),
                Ok(c) if *name != "note" && c.null_count() > 0 => "has nulls".to_string(),
                Ok(_) => continue,
            };
            return Err(LogError::Schema { path: path.into(), column: name, problem });
        }
        let part = Part { path: path.into(), df };
        if let Some((row, v)) =
            part.u32("schema_version")?.iter().enumerate().find(|(_, v)| *v != Some(SCHEMA_VERSION))
        {
            return Err(part.row_err(
                row,
                format!("schema version {v:?}, this build reads version {SCHEMA_VERSION}"),
            ));
        }
        Ok(part)
    }

    fn row_err(&self, row: usize, problem: String) -> LogError {
        LogError::Row { path: self.path.clone(), row, problem }
    }

    fn col(&self, name: &str) -> Result<&Column, LogError> {
        self.df.column(name).map_err(parquet_err(&self.path))
    }

    fn u32(&self, name: &str) -> Result<&UInt32Chunked, LogError> {
        self.col(name)?.u32().map_err(parquet_err(&self.path))
    }

    fn u64(&self, name: &str) -> Result<&UInt64Chunked, LogError> {
        self.col(name)?.u64().map_err(parquet_err(&self.path))
    }

    fn f64(&self, name: &str) -> Result<&Float64Chunked, LogError> {
        self.col(name)?.f64().map_err(parquet_err(&self.path))
    }

    fn str(&self, name: &str) -> Result<&StringChunked, LogError> {
        self.col(name)?.str().map_err(parquet_err(&self.path))
    }

    fn list(&self, name: &str) -> Result<&ListChunked, LogError> {
        self.col(name)?.list().map_err(parquet_err(&self.path))
    }
}

/// The games table's columns and types.
fn game_columns() -> [(&'static str, DataType); 13] {
    [
        ("schema_version", DataType::UInt32),
        ("setup", DataType::UInt64),
        ("swap", DataType::UInt32),
        ("agent", DataType::String),
        ("seed", DataType::UInt64),
        ("sfen", DataType::String),
        ("diff_pieces", DataType::List(Box::new(DataType::String))),
        ("diff_counts", DataType::List(Box::new(DataType::Int32))),
        ("result", DataType::Float64),
        ("plies", DataType::UInt32),
        ("termination", DataType::String),
        ("ms", DataType::UInt64),
        ("moves", DataType::String),
    ]
}

/// The games of one part file, checked column by column.
pub fn read_games_part(path: &Path) -> Result<Vec<GameLine>, LogError> {
    let part = Part::read(path, &game_columns())?;
    let (setup, swap, seed) = (part.u64("setup")?, part.u32("swap")?, part.u64("seed")?);
    let (agent, sfen, term) = (part.str("agent")?, part.str("sfen")?, part.str("termination")?);
    let (result, plies, ms) = (part.f64("result")?, part.u32("plies")?, part.u64("ms")?);
    let moves = part.str("moves")?;
    let (pieces, counts) = (part.list("diff_pieces")?, part.list("diff_counts")?);
    let mut out = Vec::with_capacity(part.df.height());
    for row in 0..part.df.height() {
        let missing = || part.row_err(row, "a null value".into());
        let swap = swap.get(row).ok_or_else(missing)?;
        if swap > 1 {
            return Err(part.row_err(row, format!("swap {swap}, expected 0 or 1")));
        }
        let result = result.get(row).ok_or_else(missing)?;
        if ![0.0, 0.5, 1.0].contains(&result) {
            return Err(part.row_err(row, format!("result {result}, expected 0, 0.5 or 1")));
        }
        out.push(GameLine {
            setup: setup.get(row).ok_or_else(missing)? as usize,
            swap: swap as u8,
            agent: agent.get(row).ok_or_else(missing)?.to_string(),
            seed: seed.get(row).ok_or_else(missing)?,
            sfen: sfen.get(row).ok_or_else(missing)?.to_string(),
            diff: diff_of(&part, row, pieces, counts)?,
            result,
            plies: plies.get(row).ok_or_else(missing)?,
            termination: term.get(row).ok_or_else(missing)?.to_string(),
            ms: ms.get(row).ok_or_else(missing)?,
            moves: moves.get(row).ok_or_else(missing)?.to_string(),
        });
    }
    Ok(out)
}

/// Row `row`'s material difference from the two list columns (same lengths, no nulls).
fn diff_of(
    part: &Part,
    row: usize,
    pieces: &ListChunked,
    counts: &ListChunked,
) -> Result<BTreeMap<String, i32>, LogError> {
    let bad = |what: &str| part.row_err(row, what.to_string());
    let p = pieces.get_as_series(row).ok_or_else(|| bad("diff_pieces is null"))?;
    let c = counts.get_as_series(row).ok_or_else(|| bad("diff_counts is null"))?;
    let (p, c) =
        (p.str().map_err(parquet_err(&part.path))?, c.i32().map_err(parquet_err(&part.path))?);
    if p.len() != c.len() {
        return Err(bad("diff_pieces and diff_counts differ in length"));
    }
    let mut diff = BTreeMap::new();
    for (name, n) in p.iter().zip(c.iter()) {
        let (Some(name), Some(n)) = (name, n) else {
            return Err(bad("a null in diff_pieces or diff_counts"));
        };
        if diff.insert(name.to_string(), n).is_some() {
            return Err(part.row_err(row, format!("piece kind {name:?} twice in diff_pieces")));
        }
    }
    Ok(diff)
}

/// The sessions table's columns and types.
fn session_columns() -> [(&'static str, DataType); 6] {
    [
        ("schema_version", DataType::UInt32),
        ("agent", DataType::String),
        ("played", DataType::UInt64),
        ("seconds", DataType::Float64),
        ("threads", DataType::UInt64),
        ("note", DataType::String),
    ]
}

/// The sessions of one part file, checked column by column.
pub fn read_sessions_part(path: &Path) -> Result<Vec<SessionLine>, LogError> {
    let part = Part::read(path, &session_columns())?;
    let (agent, played, seconds) = (part.str("agent")?, part.u64("played")?, part.f64("seconds")?);
    let (threads, note) = (part.u64("threads")?, part.str("note")?);
    let mut out = Vec::with_capacity(part.df.height());
    for row in 0..part.df.height() {
        let missing = || part.row_err(row, "a null value".into());
        out.push(SessionLine {
            agent: agent.get(row).ok_or_else(missing)?.to_string(),
            played: played.get(row).ok_or_else(missing)?,
            seconds: seconds.get(row).ok_or_else(missing)?,
            threads: threads.get(row).ok_or_else(missing)?,
            note: note.get(row).map(str::to_string),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(setup: usize, swap: u8, moves: &str) -> GameLine {
        GameLine {
            setup,
            swap,
            agent: "ab1q-test-rm3p3pr0.6".into(),
            seed: u64::MAX - setup as u64,
            sfen: "4k4/9/9/9/9/9/9/9/4K4 b - 1".into(),
            diff: [("pawn".to_string(), 2), ("rook".to_string(), -1)].into_iter().collect(),
            result: 0.5 * swap as f64,
            plies: 7,
            termination: "max-plies".into(),
            ms: 12,
            moves: moves.into(),
        }
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("shogilab-log-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn parts_append_in_order_and_read_back_equal() {
        let dir = tmp("parts");
        let log = GameLog::new(&dir);
        assert!(log.read_games().unwrap().is_empty(), "an absent folder is an empty log");
        let a = vec![game(0, 0, "7g7f 3c3d"), game(0, 1, "")];
        let b = vec![GameLine { diff: BTreeMap::new(), ..game(1, 0, "2g2f") }];
        log.append_games(&a).unwrap();
        log.append_games(&b).unwrap();
        // a temporary file and a stranger are ignored
        std::fs::write(dir.join(".games-00002.parquet.abc.tmp"), b"half").unwrap();
        std::fs::write(dir.join("games-x.parquet"), b"other").unwrap();
        let back = log.read_games().unwrap();
        let json = |g: &[GameLine]| serde_json::to_string(g).unwrap();
        assert_eq!(json(&back), json(&[a, b].concat()));
        let s = SessionLine {
            agent: "x".into(),
            played: 3,
            seconds: 1.5,
            threads: 2,
            note: Some("stopped by a signal".into()),
        };
        let t = SessionLine { note: None, ..s.clone() };
        log.append_sessions(std::slice::from_ref(&s)).unwrap();
        log.append_sessions(std::slice::from_ref(&t)).unwrap();
        assert_eq!(log.read_sessions().unwrap(), vec![s, t]);
        let names: Vec<String> = log
            .parts(Table::Games)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["games-00000.parquet", "games-00001.parquet"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_part_of_another_schema_is_refused_naming_file_and_column() {
        let dir = tmp("schema");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games-00000.parquet");
        let mut df = games_frame(&[game(0, 0, "")]).unwrap();
        let _ = df.drop_in_place("ms").unwrap();
        write_part(&path, &mut df).unwrap();
        let e = GameLog::new(&dir).read_games().unwrap_err().to_string();
        assert!(e.contains("games-00000.parquet") && e.contains("\"ms\" is missing"), "{e}");
        let mut df = games_frame(&[game(0, 0, ""), game(0, 3, "")]).unwrap();
        write_part(&path, &mut df).unwrap();
        let e = GameLog::new(&dir).read_games().unwrap_err().to_string();
        assert!(e.contains("row 1: swap 3"), "{e}");
        std::fs::write(&path, b"not parquet").unwrap();
        assert!(GameLog::new(&dir).read_games().is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}

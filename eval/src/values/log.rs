//! The imbalance game log of `shogilab values`: Parquet part files (zstd) in one location per
//! variant (a folder, by default `<out>/games/<variant>/`, or a bucket prefix: a
//! [`shogilab_store::Store`]), holding two tables.
//!
//! * `games-NNNNN.parquet`: one row per game ([`GameLine`]).
//! * `task-IIIII-of-NNNNN.parquet`: the games of task I of a job split into N tasks
//!   ([`shogilab_store::Task`]), one part per task, written once complete.
//! * `sessions-NNNNN.parquet`: one row per playing session ([`SessionLine`]).
//!
//! Appending writes a new part (the next number of its table) whole ([`Store::put`]), so a
//! part is either complete or absent; old parts are never rewritten. Readers take every part
//! whose name is exactly `games-<digits>.parquet`, `task-<5 digits>-of-<5 digits>.parquet` (or
//! `sessions-...`): numbered parts in the order of their numbers, which is the order they were
//! appended in, then the task parts' games by setup and colour; temporary files
//! (`.games-00003.parquet.XXXX.tmp`) and other names are ignored. One appending writer per log
//! (two processes appending at once could pick the same number); any number of tasks, each
//! writing only its own part.
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
use shogilab_store::{Store, StoreError, Task};
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
    Store(#[from] StoreError),
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
    store: Store,
}

impl GameLog {
    /// The log in local folder `dir` (which need not exist yet: an absent folder is an empty
    /// log).
    pub fn new(dir: impl Into<PathBuf>) -> GameLog {
        GameLog { store: Store::folder(dir) }
    }

    /// The log at a location (a folder or a bucket prefix).
    pub fn at(store: Store) -> GameLog {
        GameLog { store }
    }

    /// The log of `variant` under a report folder: `<out>/games/<variant>/`.
    pub fn of_variant(out: &Path, variant: &str) -> GameLog {
        GameLog::new(out.join("games").join(variant))
    }

    /// The location's URL (a folder's path).
    pub fn url(&self) -> &str {
        self.store.url()
    }

    /// The parts of a table: the numbered parts in append order, then (games only) the task
    /// parts by task count and index.
    pub fn parts(&self, table: Table) -> Result<Vec<String>, LogError> {
        let mut out = numbered(&self.store.list()?, table);
        if table == Table::Games {
            out.extend(self.task_parts()?.into_iter().map(|(_, n)| n));
        }
        Ok(out)
    }

    /// The task parts ([`GameLog::write_task`]) with their tasks, by task count and index.
    pub fn task_parts(&self) -> Result<Vec<(Task, String)>, LogError> {
        let mut tasks: Vec<(Task, String)> = (self.store.list()?.into_iter())
            .filter_map(|n| Some((Task::parse_object_name(&n, TASK_STEM, "parquet")?, n)))
            .collect();
        tasks.sort_by_key(|(t, _)| (t.count, t.index));
        Ok(tasks)
    }

    /// Whether the log holds any part of either table.
    pub fn is_empty(&self) -> Result<bool, LogError> {
        Ok(self.parts(Table::Games)?.is_empty() && self.parts(Table::Sessions)?.is_empty())
    }

    /// The name the next numbered part of `table` gets.
    fn next_part(&self, table: Table) -> Result<String, LogError> {
        let names = self.store.list()?;
        let next = names.iter().filter_map(|n| part_number(n, table)).max().map_or(0, |n| n + 1);
        Ok(format!("{}{next:05}.parquet", table.prefix()))
    }

    /// Every game: the numbered parts' in the order appended, then the task parts' sorted by
    /// engine and setup rules, setup and colour (the order in which one thread plays them).
    pub fn read_games(&self) -> Result<Vec<GameLine>, LogError> {
        let mut out = self.read_numbered_games()?;
        let mut tasks = Vec::new();
        for (task, _) in self.task_parts()? {
            tasks.extend(self.read_task(task)?.unwrap_or_default());
        }
        tasks.sort_by(|a, b| (&a.agent, a.setup, a.swap).cmp(&(&b.agent, b.setup, b.swap)));
        out.extend(tasks);
        Ok(out)
    }

    /// The games of the numbered parts, in the order appended.
    pub fn read_numbered_games(&self) -> Result<Vec<GameLine>, LogError> {
        let mut out = Vec::new();
        for name in numbered(&self.store.list()?, Table::Games) {
            out.extend(read_games_part(&self.store.url_of(&name), &self.fetch(&name)?)?);
        }
        Ok(out)
    }

    /// Every session, in the order appended.
    pub fn read_sessions(&self) -> Result<Vec<SessionLine>, LogError> {
        let mut out = Vec::new();
        for name in self.parts(Table::Sessions)? {
            out.extend(read_sessions_part(&self.store.url_of(&name), &self.fetch(&name)?)?);
        }
        Ok(out)
    }

    /// An object listed a moment ago (gone since: an error naming it).
    fn fetch(&self, name: &str) -> Result<Vec<u8>, LogError> {
        self.store.get(name)?.ok_or_else(|| LogError::Io {
            path: self.store.url_of(name).into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "removed while reading"),
        })
    }

    /// Append games as a new part; returns its URL (nothing is written for no games).
    pub fn append_games(&self, games: &[GameLine]) -> Result<Option<String>, LogError> {
        if games.is_empty() {
            return Ok(None);
        }
        let name = self.next_part(Table::Games)?;
        self.put_frame(&name, games_frame(games)).map(Some)
    }

    /// Write a task's games as its one part, `task-IIIII-of-NNNNN.parquet`, replacing any
    /// earlier copy (a rerun plays the same games); returns its URL.
    pub fn write_task(&self, task: Task, games: &[GameLine]) -> Result<String, LogError> {
        self.put_frame(&task_part(task), games_frame(games))
    }

    /// The URL of a task's part.
    pub fn task_url(&self, task: Task) -> String {
        self.store.url_of(&task_part(task))
    }

    /// A task's games, if its part exists.
    pub fn read_task(&self, task: Task) -> Result<Option<Vec<GameLine>>, LogError> {
        let name = task_part(task);
        match self.store.get(&name)? {
            Some(bytes) => Ok(Some(read_games_part(&self.store.url_of(&name), &bytes)?)),
            None => Ok(None),
        }
    }

    /// Store a table as the part `name`, whole; returns its URL.
    fn put_frame(&self, name: &str, df: PolarsResult<DataFrame>) -> Result<String, LogError> {
        let url = self.store.url_of(name);
        let mut df = df.map_err(parquet_err(Path::new(&url)))?;
        self.store.put(name, part_bytes(&url, &mut df)?)?;
        Ok(url)
    }

    /// Append sessions as a new part; returns its URL (nothing is written for none).
    pub fn append_sessions(&self, sessions: &[SessionLine]) -> Result<Option<String>, LogError> {
        if sessions.is_empty() {
            return Ok(None);
        }
        let name = self.next_part(Table::Sessions)?;
        self.put_frame(&name, sessions_frame(sessions)).map(Some)
    }

    /// Remove parts (by name; the converter undoes a conversion that did not read back equal).
    pub fn remove_parts(&self, names: &[String]) -> Result<(), LogError> {
        for n in names {
            self.store.delete(n)?;
        }
        Ok(())
    }
}

/// The stem of task part names (`task-00003-of-00008.parquet`).
const TASK_STEM: &str = "task";

/// The name of a task's part.
fn task_part(task: Task) -> String {
    task.object_name(TASK_STEM, "parquet")
}

/// The numbered parts of `table` among `names`, in the order of their numbers.
fn numbered(names: &[String], table: Table) -> Vec<String> {
    let mut parts: Vec<(u64, &String)> =
        names.iter().filter_map(|n| Some((part_number(n, table)?, n))).collect();
    parts.sort();
    parts.into_iter().map(|(_, n)| n.clone()).collect()
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

/// A part's bytes, zstd-compressed.
fn part_bytes(url: &str, df: &mut DataFrame) -> Result<Vec<u8>, LogError> {
    let path = Path::new(url);
    let level = ZstdLevel::try_new(ZSTD_LEVEL).map_err(parquet_err(path))?;
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .with_compression(ParquetCompression::Zstd(Some(level)))
        .with_data_page_size(Some(DATA_PAGE_BYTES))
        .finish(df)
        .map_err(parquet_err(path))?;
    Ok(bytes)
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
    fn read(
        url: &str,
        bytes: &[u8],
        columns: &[(&'static str, DataType)],
    ) -> Result<Part, LogError> {
        let path = Path::new(url);
        let df =
            ParquetReader::new(std::io::Cursor::new(bytes)).finish().map_err(parquet_err(path))?;
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

/// The games of one part (its URL, for messages, and its bytes), checked column by column.
pub fn read_games_part(url: &str, bytes: &[u8]) -> Result<Vec<GameLine>, LogError> {
    let part = Part::read(url, bytes, &game_columns())?;
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

/// The sessions of one part (its URL and bytes), checked column by column.
pub fn read_sessions_part(url: &str, bytes: &[u8]) -> Result<Vec<SessionLine>, LogError> {
    let part = Part::read(url, bytes, &session_columns())?;
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
        assert_eq!(
            log.parts(Table::Games).unwrap(),
            ["games-00000.parquet", "games-00001.parquet"]
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_part_of_another_schema_is_refused_naming_file_and_column() {
        let dir = tmp("schema");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games-00000.parquet");
        let mut df = games_frame(&[game(0, 0, "")]).unwrap();
        let _ = df.drop_in_place("ms").unwrap();
        std::fs::write(&path, part_bytes("x", &mut df).unwrap()).unwrap();
        let e = GameLog::new(&dir).read_games().unwrap_err().to_string();
        assert!(e.contains("games-00000.parquet") && e.contains("\"ms\" is missing"), "{e}");
        let mut df = games_frame(&[game(0, 0, ""), game(0, 3, "")]).unwrap();
        std::fs::write(&path, part_bytes("x", &mut df).unwrap()).unwrap();
        let e = GameLog::new(&dir).read_games().unwrap_err().to_string();
        assert!(e.contains("row 1: swap 3"), "{e}");
        std::fs::write(&path, b"not parquet").unwrap();
        assert!(GameLog::new(&dir).read_games().is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}

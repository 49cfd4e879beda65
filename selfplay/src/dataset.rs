//! Self-play datasets: the Parquet schema (documented column by column here and in the
//! README), writing shards atomically, and reading them back with polars lazy scans.
//!
//! Positions table (`positions-<shard>.parquet`), one row per position, schema version 1:
//!
//! | column | type | meaning |
//! |---|---|---|
//! | `schema_version` | u32 | 1 |
//! | `variant` | str | variant name (`shogi`, `chu`, `tenjiku`, `tai`, or a user spec's name) |
//! | `game_id` | str | `<generation>-<game index>`, unique within a run |
//! | `generation` | u32 | pipeline generation that played the game |
//! | `ply` | u32 | plies played before this position (0 = start) |
//! | `sfen` | str | the position |
//! | `side` | str | side to move, `b` or `w` |
//! | `move` | str | the move played (USI) |
//! | `policy_moves` | list[str] | every legal move (USI) |
//! | `policy_probs` | list[f32] | search policy over `policy_moves` (sums to 1) |
//! | `root_value` | f32 | search value for the side to move, in [-1, 1] |
//! | `visits` | u32 | root visits of the search |
//! | `result` | i8 | game result for the side to move: 1 win, 0 draw, -1 loss |
//! | `termination` | str | how the game ended (`checkmate`, `royal-captured`, `ply-limit`, ...) |
//! | `model_id` | str | evaluator that guided the search (`uniform`, a checkpoint id, ...) |
//! | `simulations` | u32 | simulations per move |
//! | `seed` | u64 | the game's random seed |
//!
//! Games table (`games-<shard>.parquet`), one row per game: `schema_version`, `variant`,
//! `game_id`, `generation`, `seed`, `start_sfen`, `moves` (USI, space-separated), `plies`,
//! `result` (`1-0`, `0-1`, `1/2-1/2`, from Black's point of view), `winner` (`black`, `white`,
//! `draw`), `termination`, `model_id`, `no_resign` (bool: resignation disabled in this game),
//! `would_resign` (`black`, `white` or empty: who would have resigned in a no-resign game).

use crate::worker::{result_label, termination_label, GameRecord};
use polars::io::cloud::CloudOptions;
use polars::prelude::*;
use shogilab_engine::Color;
use shogilab_store::Store;
use std::path::{Path, PathBuf};

pub const SCHEMA_VERSION: u32 = 1;

/// Columns every positions file must have, with their types.
pub fn position_columns() -> Vec<(&'static str, DataType)> {
    vec![
        ("schema_version", DataType::UInt32),
        ("variant", DataType::String),
        ("game_id", DataType::String),
        ("generation", DataType::UInt32),
        ("ply", DataType::UInt32),
        ("sfen", DataType::String),
        ("side", DataType::String),
        ("move", DataType::String),
        ("policy_moves", DataType::List(Box::new(DataType::String))),
        ("policy_probs", DataType::List(Box::new(DataType::Float32))),
        ("root_value", DataType::Float32),
        ("visits", DataType::UInt32),
        ("result", DataType::Int8),
        ("termination", DataType::String),
        ("model_id", DataType::String),
        ("simulations", DataType::UInt32),
        ("seed", DataType::UInt64),
    ]
}

/// Dataset errors name the file.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("{path}: {msg}")]
    Invalid { path: String, msg: String },
    #[error("{path}: {source}")]
    Polars { path: String, source: PolarsError },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] shogilab_store::StoreError),
}

fn col<T: Into<Column>>(c: T) -> Column {
    c.into()
}

/// Build the positions and games tables of a set of games.
pub fn tables(
    games: &[GameRecord],
    variant: &str,
    generation: u32,
    model_id: &str,
    simulations: u32,
) -> PolarsResult<(DataFrame, DataFrame)> {
    let positions = positions_table(games, variant, generation, model_id, simulations)?;
    Ok((positions, games_table(games, variant, generation, model_id)?))
}

/// The positions table: one row per searched position of the games.
fn positions_table(
    games: &[GameRecord],
    variant: &str,
    generation: u32,
    model_id: &str,
    simulations: u32,
) -> PolarsResult<DataFrame> {
    let n: usize = games.iter().map(|g| g.positions.len()).sum();
    let mut game_id = Vec::with_capacity(n);
    let mut ply = Vec::with_capacity(n);
    let mut sfen = Vec::with_capacity(n);
    let mut side = Vec::with_capacity(n);
    let mut mv = Vec::with_capacity(n);
    let mut pmoves: Vec<Series> = Vec::with_capacity(n);
    let mut pprobs: Vec<Series> = Vec::with_capacity(n);
    let mut root_value = Vec::with_capacity(n);
    let mut visits = Vec::with_capacity(n);
    let mut result = Vec::with_capacity(n);
    let mut term = Vec::with_capacity(n);
    let mut seed = Vec::with_capacity(n);
    for g in games {
        let gid = format!("{generation}-{}", g.game_index);
        for p in &g.positions {
            game_id.push(gid.clone());
            ply.push(p.ply);
            sfen.push(p.sfen.clone());
            side.push(if p.side == Color::Black { "b" } else { "w" });
            mv.push(p.mv.clone());
            pmoves.push(Series::new("".into(), p.policy_moves.as_slice()));
            pprobs.push(Series::new("".into(), p.policy_probs.as_slice()));
            root_value.push(p.root_value);
            visits.push(p.visits);
            result.push(g.result_for(p.side));
            term.push(termination_label(&g.status));
            seed.push(g.seed);
        }
    }
    DataFrame::new(
        n,
        vec![
            col(Series::new("schema_version".into(), vec![SCHEMA_VERSION; n])),
            col(Series::new("variant".into(), vec![variant; n])),
            col(Series::new("game_id".into(), game_id)),
            col(Series::new("generation".into(), vec![generation; n])),
            col(Series::new("ply".into(), ply)),
            col(Series::new("sfen".into(), sfen)),
            col(Series::new("side".into(), side)),
            col(Series::new("move".into(), mv)),
            col(list_series("policy_moves", pmoves, DataType::String)?),
            col(list_series("policy_probs", pprobs, DataType::Float32)?),
            col(Series::new("root_value".into(), root_value)),
            col(Series::new("visits".into(), visits)),
            col(Series::new("result".into(), result)),
            col(Series::new("termination".into(), term)),
            col(Series::new("model_id".into(), vec![model_id; n])),
            col(Series::new("simulations".into(), vec![simulations; n])),
            col(Series::new("seed".into(), seed)),
        ],
    )
}

/// The games table: one row per game, with its moves and result.
fn games_table(
    games: &[GameRecord],
    variant: &str,
    generation: u32,
    model_id: &str,
) -> PolarsResult<DataFrame> {
    let m = games.len();
    DataFrame::new(
        m,
        vec![
            col(Series::new("schema_version".into(), vec![SCHEMA_VERSION; m])),
            col(Series::new("variant".into(), vec![variant; m])),
            col(Series::new(
                "game_id".into(),
                per_game(games, |g| format!("{generation}-{}", g.game_index)),
            )),
            col(Series::new("generation".into(), vec![generation; m])),
            col(Series::new("seed".into(), per_game(games, |g| g.seed))),
            col(Series::new("start_sfen".into(), per_game(games, |g| g.start_sfen.clone()))),
            col(Series::new("moves".into(), per_game(games, |g| g.moves.join(" ")))),
            col(Series::new("plies".into(), per_game(games, |g| g.moves.len() as u32))),
            col(Series::new("result".into(), per_game(games, |g| result_label(&g.status)))),
            col(Series::new("winner".into(), per_game(games, winner_label))),
            col(Series::new(
                "termination".into(),
                per_game(games, |g| termination_label(&g.status)),
            )),
            col(Series::new("model_id".into(), vec![model_id; m])),
            col(Series::new("no_resign".into(), per_game(games, |g| g.no_resign))),
            col(Series::new("would_resign".into(), per_game(games, would_resign_label))),
        ],
    )
}

/// One value per game.
fn per_game<T>(games: &[GameRecord], f: impl Fn(&GameRecord) -> T) -> Vec<T> {
    games.iter().map(f).collect()
}

/// The winner's colour, or "draw".
fn winner_label(g: &GameRecord) -> &'static str {
    match g.status.score_for(Color::Black) {
        1 => "black",
        -1 => "white",
        _ => "draw",
    }
}

/// The colour that would have resigned in a game played without resignation ("" if none).
fn would_resign_label(g: &GameRecord) -> &'static str {
    match g.would_resign {
        Some(Color::Black) => "black",
        Some(Color::White) => "white",
        None => "",
    }
}

fn list_series(name: &str, rows: Vec<Series>, inner: DataType) -> PolarsResult<Series> {
    let mut s = Series::new(name.into(), rows);
    if s.is_empty() {
        s = Series::new_empty(name.into(), &DataType::List(Box::new(inner)));
    }
    Ok(s)
}

/// Write one shard of games: `positions-<shard>.parquet` and `games-<shard>.parquet` in `dir`.
pub fn write_shard(
    dir: &Path,
    shard: u32,
    games: &[GameRecord],
    variant: &str,
    generation: u32,
    model_id: &str,
    simulations: u32,
) -> Result<(PathBuf, PathBuf), DatasetError> {
    let store = Store::folder(dir);
    write_shard_to(&store, shard, games, variant, (generation, model_id, simulations))?;
    let (pp, gp) = shard_names(shard);
    Ok((dir.join(pp), dir.join(gp)))
}

/// The positions and games file names of a shard.
pub fn shard_names(shard: u32) -> (String, String) {
    (format!("positions-{shard:05}.parquet"), format!("games-{shard:05}.parquet"))
}

/// Whether a file or object name is a positions table (`positions-*.parquet`; temporary names
/// of objects still being written never are).
pub fn is_positions_file(name: &str) -> bool {
    name.starts_with("positions-") && name.ends_with(".parquet")
}

/// Write one shard of games into a location (a folder or a bucket prefix), each table as one
/// whole object: the games first, so that a shard counts as complete when its positions
/// object exists. `(generation, model_id, simulations)` are recorded in every row.
pub fn write_shard_to(
    store: &Store,
    shard: u32,
    games: &[GameRecord],
    variant: &str,
    (generation, model_id, simulations): (u32, &str, u32),
) -> Result<(String, String), DatasetError> {
    let (mut pos, mut gms) = tables(games, variant, generation, model_id, simulations)
        .map_err(|e| DatasetError::Polars { path: store.url().to_string(), source: e })?;
    let (pp, gp) = shard_names(shard);
    for (name, df) in [(&gp, &mut gms), (&pp, &mut pos)] {
        let mut bytes = Vec::new();
        ParquetWriter::new(&mut bytes)
            .finish(df)
            .map_err(|e| DatasetError::Polars { path: store.url_of(name), source: e })?;
        store.put(name, bytes)?;
    }
    Ok((store.url_of(&pp), store.url_of(&gp)))
}

/// The number of rows of a stored Parquet object, from its footer (`None`: no such object).
pub fn count_rows_at(store: &Store, name: &str) -> Result<Option<usize>, DatasetError> {
    let Some(bytes) = store.get(name)? else { return Ok(None) };
    let n = ParquetReader::new(std::io::Cursor::new(bytes))
        .num_rows()
        .map_err(|e| DatasetError::Polars { path: store.url_of(name), source: e })?;
    Ok(Some(n))
}

/// One training sample read back from a positions file.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The game it comes from (the held-out split of training is by game).
    pub game_id: String,
    pub sfen: String,
    pub ply: u32,
    pub policy_moves: Vec<String>,
    pub policy_probs: Vec<f32>,
    /// Search value for the side to move, in [-1, 1].
    pub root_value: f32,
    pub result: i8,
}

/// Check a positions file's schema (every documented column, with its type).
pub fn check_schema(path: &Path, schema: &Schema) -> Result<(), DatasetError> {
    check_schema_of(&path.display().to_string(), schema)
}

/// [`check_schema`] of a file named by a path or a URL.
fn check_schema_of(source: &str, schema: &Schema) -> Result<(), DatasetError> {
    for (name, dt) in position_columns() {
        match schema.get(name) {
            None => {
                return Err(DatasetError::Invalid {
                    path: source.to_string(),
                    msg: format!("not a shogilab positions file: column {name:?} is missing"),
                })
            }
            Some(t) if *t != dt => {
                return Err(DatasetError::Invalid {
                    path: source.to_string(),
                    msg: format!("column {name:?} has type {t}, expected {dt}"),
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// The number of rows (positions) of a Parquet file, from its footer.
pub fn count_rows(path: &Path) -> Result<usize, DatasetError> {
    let ps = path.display().to_string();
    let f =
        std::fs::File::open(path).map_err(|e| DatasetError::Io { path: ps.clone(), source: e })?;
    ParquetReader::new(f).num_rows().map_err(|e| DatasetError::Polars { path: ps, source: e })
}

/// Which rows of a window to read: each row with probability `fraction`, decided by a hash of
/// its place in its file and the seed (the same rows for the same files and seed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// Share of the rows kept, in (0, 1].
    pub fraction: f64,
    pub seed: u64,
}

impl Sampling {
    /// The filter on the scan's row index `row` that keeps about `fraction` of the rows
    /// (Fibonacci hashing of the index, offset by the seed, compared on 32 bits).
    fn filter(&self) -> Expr {
        let threshold = (self.fraction.clamp(0.0, 1.0) * 4_294_967_296.0) as u64;
        let mixed = col_expr(SAMPLE_ROW).cast(DataType::UInt64) * lit(2_654_435_769u64)
            + lit(self.seed.wrapping_mul(0x9E37_79B9) & 0xFFFF_FFFF);
        (mixed % lit(4_294_967_296u64)).lt(lit(threshold))
    }
}

/// The scan's row index column when sampling.
const SAMPLE_ROW: &str = "__shogilab_row";

/// Read the training columns of positions files (lazy scan, only the needed columns), checking
/// each file's schema and variant first.
pub fn read_samples(files: &[PathBuf], variant: &str) -> Result<Vec<Sample>, DatasetError> {
    let sources: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    read_window(&sources, variant, None)
}

/// Read the training columns of positions files given as local paths or object URLs
/// (`s3://bucket/run/selfplay/gen-0003/positions-00000.parquet`, scanned where they are stored,
/// settings from the AWS environment), optionally only a sample of their rows: the scan
/// filters the rows before they are collected, so memory holds the sample, not the window.
pub fn read_window(
    sources: &[String],
    variant: &str,
    sampling: Option<Sampling>,
) -> Result<Vec<Sample>, DatasetError> {
    let mut out = Vec::new();
    for source in sources {
        let df = scan_source(source, sampling)?;
        samples_of(source, &df, variant, &mut out)?;
    }
    Ok(out)
}

/// The training columns of one file (its schema checked), sampled when asked.
fn scan_source(source: &str, sampling: Option<Sampling>) -> Result<DataFrame, DatasetError> {
    let perr = |e: PolarsError| DatasetError::Polars { path: source.to_string(), source: e };
    let mut args = ScanArgsParquet::default();
    if source.contains("://") {
        args.cloud_options = Some(CloudOptions::default().with_aws(shogilab_store::s3_settings()));
    }
    if sampling.is_some() {
        args.row_index = Some(RowIndex { name: SAMPLE_ROW.into(), offset: 0 });
    }
    let mut lf = LazyFrame::scan_parquet(PlRefPath::new(source), args).map_err(perr)?;
    let schema = lf.collect_schema().map_err(perr)?;
    check_schema_of(source, &schema)?;
    if let Some(s) = sampling {
        lf = lf.filter(s.filter());
    }
    let columns = [
        "variant",
        "game_id",
        "sfen",
        "ply",
        "policy_moves",
        "policy_probs",
        "root_value",
        "result",
    ];
    lf.select(columns.map(col_expr)).collect().map_err(perr)
}

/// Append the rows of one file's training columns as samples, refusing another variant's.
fn samples_of(
    source: &str,
    df: &DataFrame,
    variant: &str,
    out: &mut Vec<Sample>,
) -> Result<(), DatasetError> {
    let ps = source.to_string();
    let perr = |e: PolarsError| DatasetError::Polars { path: ps.clone(), source: e };
    let variants = df.column("variant").and_then(|c| c.str().cloned()).map_err(perr)?;
    if let Some(other) = variants.iter().flatten().find(|v| *v != variant) {
        return Err(DatasetError::Invalid {
            path: ps.clone(),
            msg: format!("holds {other:?} games, expected {variant:?}"),
        });
    }
    let gid = df.column("game_id").and_then(|c| c.str().cloned()).map_err(perr)?;
    let sfen = df.column("sfen").and_then(|c| c.str().cloned()).map_err(perr)?;
    let ply = df.column("ply").and_then(|c| c.u32().cloned()).map_err(perr)?;
    let pm = df.column("policy_moves").and_then(|c| c.list().cloned()).map_err(perr)?;
    let pp = df.column("policy_probs").and_then(|c| c.list().cloned()).map_err(perr)?;
    let res = df.column("result").and_then(|c| c.i8().cloned()).map_err(perr)?;
    let rv = df.column("root_value").and_then(|c| c.f32().cloned()).map_err(perr)?;
    for i in 0..df.height() {
        let bad = |what: &str| DatasetError::Invalid {
            path: ps.clone(),
            msg: format!("row {i}: {what} is null"),
        };
        let moves_s = pm.get_as_series(i).ok_or_else(|| bad("policy_moves"))?;
        let probs_s = pp.get_as_series(i).ok_or_else(|| bad("policy_probs"))?;
        let moves: Vec<String> =
            moves_s.str().map_err(perr)?.iter().map(|s| s.unwrap_or("").to_string()).collect();
        let probs: Vec<f32> =
            probs_s.f32().map_err(perr)?.iter().map(|p| p.unwrap_or(0.0)).collect();
        if moves.len() != probs.len() {
            return Err(DatasetError::Invalid {
                path: ps.clone(),
                msg: format!("row {i}: policy_moves and policy_probs differ in length"),
            });
        }
        out.push(Sample {
            game_id: gid.get(i).ok_or_else(|| bad("game_id"))?.to_string(),
            sfen: sfen.get(i).ok_or_else(|| bad("sfen"))?.to_string(),
            ply: ply.get(i).unwrap_or(0),
            policy_moves: moves,
            policy_probs: probs,
            root_value: rv.get(i).ok_or_else(|| bad("root_value"))?,
            result: res.get(i).ok_or_else(|| bad("result"))?,
        });
    }
    Ok(())
}

fn col_expr(name: &str) -> Expr {
    polars::prelude::col(name)
}

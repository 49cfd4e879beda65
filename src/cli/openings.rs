//! `--openings FILE` of `match` and `gauntlet`: a file of openings, one per line in `replay`
//! syntax (`startpos [moves ...]` or `sfen SFEN [moves ...]`; blank lines and lines starting
//! with `#` are skipped), read from a path or a store URL (`s3://bucket/key`, so that the tasks
//! of a cluster job read the same file). Every line is checked before a game is played: its
//! position must parse in the variant, its moves must be legal and must not end the game. The
//! match's settings record the file and its SHA-256, so that parts of a match split into tasks
//! merge only with parts that played the same openings.

use anyhow::{bail, Context, Result};
use shogilab_cli::engine_cmds::replay::parse_line;
use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::{Opening, OpeningList};
use shogilab_store::{cache::sha256_hex, Store};
use std::sync::Arc;

/// A file's openings and what the match settings record of it.
pub struct OpeningsFile {
    pub list: OpeningList,
    /// `{"file", "sha256", "count"}`.
    pub settings: serde_json::Value,
}

/// Read and check the openings of `url` in `v`.
pub fn read_openings(v: &Arc<Variant>, url: &str) -> Result<OpeningsFile> {
    let bytes = read_bytes(url)?;
    let text = std::str::from_utf8(&bytes)
        .with_context(|| format!("openings file {url}: not UTF-8 text"))?;
    let mut list = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let opening =
            opening_of(v, line).with_context(|| format!("openings file {url}, line {}", i + 1))?;
        list.push(opening);
    }
    let count = list.len();
    let Some(list) = OpeningList::new(list) else {
        bail!("openings file {url}: no opening in it (every line is blank or a # comment)");
    };
    let settings = serde_json::json!({ "file": url, "sha256": sha256_hex(&bytes), "count": count });
    Ok(OpeningsFile { list, settings })
}

/// The bytes of a local file or of a store object.
fn read_bytes(url: &str) -> Result<Vec<u8>> {
    if !url.contains("://") {
        return std::fs::read(url).with_context(|| format!("openings file {url}: cannot read it"));
    }
    let (location, name) = url.rsplit_once('/').context("no object name")?;
    let store = Store::open(location).with_context(|| format!("openings file {url}"))?;
    let bytes = store.get(name).with_context(|| format!("openings file {url}"))?;
    bytes.with_context(|| format!("openings file {url}: no such object"))
}

/// One line's opening, checked by playing its moves.
fn opening_of(v: &Arc<Variant>, line: &str) -> Result<Opening> {
    let parsed = parse_line(line)?;
    let start = match &parsed.sfen {
        Some(s) => Position::from_sfen(v, s).with_context(|| format!("the position {s:?}"))?,
        None => Position::start(v),
    };
    let mut game = Game::new(start.clone());
    let mut moves = Vec::with_capacity(parsed.moves.len());
    for (ply, usi) in parsed.moves.iter().enumerate() {
        let m = game.parse_usi(usi).with_context(|| format!("move {} ({usi})", ply + 1))?;
        game.play(m);
        moves.push(m);
    }
    if game.status().is_over() {
        bail!("the game is over after its moves ({}): nothing left to play", game.status());
    }
    Ok(Opening { start, moves })
}

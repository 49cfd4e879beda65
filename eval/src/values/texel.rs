//! Texel-style regression on self-play datasets: the result of the game (from Black's side,
//! draws 0.5) regressed on the per-kind material difference of each quiet position, plus a
//! constant and a side-to-move term; bootstrap over games.
//!
//! A position counts as quiet when the move played from it changes no material (no capture, no
//! promotion): positions in the middle of an exchange would credit the material to the wrong
//! side. Identical rows within a game (same material difference, side to move and result) are merged
//! into one weighted row.

use super::stats::{ratio_bootstrap, Design};
use super::{estimates_from, positions_fit_notes, width_curve, Kinds, MethodResult};
use shogilab_engine::{Color, EngineError, Position, Variant};
use shogilab_selfplay::dataset::{is_positions_file, read_samples, DatasetError, Sample};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Datasets that cannot be read or fitted, naming the path.
#[derive(Debug, thiserror::Error)]
pub enum TexelError {
    #[error("--datasets {path}: {source}")]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--datasets {path}: no positions-*.parquet files in it")]
    NoFiles { path: PathBuf },
    #[error("--datasets {path}: no such file or folder")]
    Missing { path: PathBuf },
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    #[error("{file}: position {sfen:?} does not parse: {source}")]
    Position {
        file: PathBuf,
        sfen: String,
        #[source]
        source: EngineError,
    },
    #[error("the variant has no pawn and no other unit was chosen: no unit for the values")]
    NoUnit,
    #[error("the datasets hold no positions")]
    Empty,
}

/// Positions files under the given paths: a file is taken as it is (it must exist), a folder
/// is searched recursively for `positions-*.parquet`. Errors name the path.
pub fn dataset_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, TexelError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), TexelError> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| TexelError::Folder { path: dir.into(), source: e })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(is_positions_file) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = out.len();
            walk(p, &mut out)?;
            if out.len() == before {
                return Err(TexelError::NoFiles { path: p.clone() });
            }
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(TexelError::Missing { path: p.clone() });
        }
    }
    Ok(out)
}

/// Regression rows read from datasets.
#[derive(Debug, Clone)]
pub struct TexelData {
    pub design: Design,
    pub games: usize,
    pub positions: usize,
    pub quiet: usize,
    pub files: usize,
    /// Up to a few hundred sampled mid-game positions (for probing).
    pub sample_sfens: Vec<(String, u32)>,
}

/// Read every file (schema and variant checked by [`read_samples`]) into regression rows.
pub fn load(files: &[PathBuf], v: &Arc<Variant>, kinds: &Kinds) -> Result<TexelData, TexelError> {
    let mut d = Design::new(2 + kinds.len());
    let (mut games, mut positions, mut quiet) = (0usize, 0usize, 0usize);
    let mut sample_sfens = Vec::new();
    for f in files {
        let samples = read_samples(std::slice::from_ref(f), &v.name)?;
        for game in game_slices(&samples) {
            let rows = game_rows(f, v, kinds, game, &mut sample_sfens)?;
            positions += rows.len();
            quiet += add_quiet_rows(&mut d, &rows, games);
            games += 1;
        }
    }
    d.clusters = games;
    Ok(TexelData { design: d, games, positions, quiet, files: files.len(), sample_sfens })
}

/// The samples of a file cut into games: a new game starts where the ply does not increase.
fn game_slices(samples: &[Sample]) -> impl Iterator<Item = &[Sample]> {
    samples.chunk_by(|a, b| b.ply > a.ply)
}

/// One game's positions as regression rows: (intercept, side to move, per-kind count
/// differences for Black; Black's score). Keeps a few mid-game positions for probing.
fn game_rows(
    file: &Path,
    v: &Arc<Variant>,
    kinds: &Kinds,
    game: &[Sample],
    sample_sfens: &mut Vec<(String, u32)>,
) -> Result<Vec<(Vec<f64>, f64)>, TexelError> {
    let mut rows = Vec::with_capacity(game.len());
    for s in game {
        let pos = Position::from_sfen(v, &s.sfen).map_err(|source| TexelError::Position {
            file: file.to_path_buf(),
            sfen: s.sfen.clone(),
            source,
        })?;
        let black = pos.side_to_move() == Color::Black;
        let score_stm = (s.result.clamp(-1, 1) as f64 + 1.0) / 2.0;
        let y = if black { score_stm } else { 1.0 - score_stm };
        let mut x = Vec::with_capacity(2 + kinds.len());
        x.push(1.0);
        x.push(if black { 1.0 } else { -1.0 });
        x.extend(kinds.diff(&pos, Color::Black));
        rows.push((x, y));
        if s.ply >= 20 && s.ply % 7 == 0 && sample_sfens.len() < 5000 {
            sample_sfens.push((s.sfen.clone(), s.ply));
        }
    }
    Ok(rows)
}

/// Add a game's quiet rows (the material does not change at the next position, or the game
/// ends) to the design, identical rows (same features and result) as one weighted row, all in
/// the bootstrap cluster `game`; returns how many were quiet.
fn add_quiet_rows(d: &mut Design, rows: &[(Vec<f64>, f64)], game: usize) -> usize {
    let mut index: std::collections::HashMap<Vec<i64>, usize> = std::collections::HashMap::new();
    let mut quiet = 0;
    for (i, (x, y)) in rows.iter().enumerate() {
        let stable = rows.get(i + 1).is_none_or(|next| x[2..] == next.0[2..]);
        if !stable {
            continue;
        }
        quiet += 1;
        let key: Vec<i64> = x.iter().map(|v| *v as i64).chain([(y * 2.0) as i64]).collect();
        match index.get(&key) {
            Some(&r) => d.w[r] += 1.0,
            None => {
                index.insert(key, d.rows());
                d.push(x, *y, 1.0, game);
            }
        }
    }
    quiet
}

/// Fit the dataset rows.
pub fn fit(
    kinds: &Kinds,
    data: &TexelData,
    resamples: usize,
    seed: u64,
    description: String,
) -> Result<MethodResult, TexelError> {
    let unit = kinds.unit.ok_or(TexelError::NoUnit)?;
    if data.design.rows() == 0 {
        return Err(TexelError::Empty);
    }
    let ridge = 1e-3;
    let r = ratio_bootstrap(&data.design, 2 + unit, ridge, resamples, seed);
    let estimates = estimates_from(kinds, &r, 2);
    let (curve, effect_curve) = width_curve(
        &data.design,
        2 + unit,
        2,
        kinds.len(),
        ridge,
        (resamples / 2).max(50),
        seed,
        &|s| s.clusters as f64,
    );
    let head = format!(
        "{} games, {} positions in {} files, {} quiet positions ({} weighted rows)",
        data.games,
        data.positions,
        data.files,
        data.quiet,
        data.design.rows()
    );
    let notes = positions_fit_notes(head, kinds, &r, &estimates, " in quiet positions");
    Ok(MethodResult {
        method: "texel".into(),
        description,
        estimates,
        games: data.games,
        samples: data.quiet,
        curve,
        effect_curve,
        notes,
        ..Default::default()
    }
    .with_draws(kinds, &r, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ply: u32) -> Sample {
        Sample {
            game_id: String::new(),
            sfen: String::new(),
            ply,
            policy_moves: Vec::new(),
            policy_probs: Vec::new(),
            root_value: 0.0,
            result: 0,
        }
    }

    #[test]
    fn a_file_splits_into_games_where_the_ply_stops_rising() {
        let samples: Vec<Sample> = [0, 1, 2, 0, 1, 5, 5, 6].map(sample).to_vec();
        let lengths: Vec<usize> = game_slices(&samples).map(<[Sample]>::len).collect();
        assert_eq!(lengths, vec![3, 3, 2]);
        assert_eq!(game_slices(&[]).count(), 0);
    }

    #[test]
    fn quiet_rows_merge_into_weights_within_their_game() {
        // features: intercept, side, two kinds; the material changes after the second row
        let row = |side: f64, a: f64, y: f64| (vec![1.0, side, a, 0.0], y);
        let rows = vec![
            row(1.0, 1.0, 1.0),  // quiet (same material next), kept
            row(-1.0, 1.0, 0.0), // not quiet: the next row's material differs
            row(1.0, 0.0, 1.0),  // quiet, kept
            row(1.0, 0.0, 1.0),  // quiet, identical to the row before: its weight
            row(1.0, 0.0, 1.0),  // the last position is quiet too
        ];
        let mut d = Design::new(4);
        assert_eq!(add_quiet_rows(&mut d, &rows, 7), 4);
        assert_eq!(d.rows(), 2);
        assert_eq!(d.w, vec![1.0, 3.0]);
        assert_eq!(d.y, vec![1.0, 1.0]);
        assert_eq!(d.cluster, vec![7, 7]);
        assert_eq!(d.clusters, 8);
    }
}

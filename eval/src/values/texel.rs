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
use shogilab_selfplay::dataset::{is_positions_file, read_samples, DatasetError};
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
    let p = 2 + kinds.len();
    let mut d = Design::new(p);
    let (mut games, mut positions, mut quiet) = (0usize, 0usize, 0usize);
    let mut sample_sfens = Vec::new();
    for f in files {
        let samples = read_samples(std::slice::from_ref(f), &v.name)?;
        // split into games: a new game starts when the ply does not increase
        let mut start = 0;
        while start < samples.len() {
            let mut end = start + 1;
            while end < samples.len() && samples[end].ply > samples[end - 1].ply {
                end += 1;
            }
            let cluster = games;
            games += 1;
            let mut rows: Vec<(Vec<f64>, f64)> = Vec::with_capacity(end - start);
            for s in &samples[start..end] {
                let pos = Position::from_sfen(v, &s.sfen).map_err(|source| {
                    TexelError::Position { file: f.clone(), sfen: s.sfen.clone(), source }
                })?;
                let black = pos.side_to_move() == Color::Black;
                let score_stm = (s.result.clamp(-1, 1) as f64 + 1.0) / 2.0;
                let y = if black { score_stm } else { 1.0 - score_stm };
                let mut x = Vec::with_capacity(p);
                x.push(1.0);
                x.push(if black { 1.0 } else { -1.0 });
                x.extend(kinds.diff(&pos, Color::Black));
                rows.push((x, y));
                if s.ply >= 20 && s.ply % 7 == 0 && sample_sfens.len() < 5000 {
                    sample_sfens.push((s.sfen.clone(), s.ply));
                }
            }
            positions += rows.len();
            // identical rows of one game (same features and result) become one weighted row
            let mut index: std::collections::HashMap<Vec<i64>, usize> =
                std::collections::HashMap::new();
            for i in 0..rows.len() {
                let stable = i + 1 == rows.len() || rows[i].0[2..] == rows[i + 1].0[2..];
                if !stable {
                    continue;
                }
                quiet += 1;
                let key: Vec<i64> =
                    rows[i].0.iter().map(|x| *x as i64).chain([(rows[i].1 * 2.0) as i64]).collect();
                match index.get(&key) {
                    Some(&r) => d.w[r] += 1.0,
                    None => {
                        index.insert(key, d.rows());
                        d.push(&rows[i].0, rows[i].1, 1.0, cluster);
                    }
                }
            }
            start = end;
        }
    }
    d.clusters = games;
    Ok(TexelData { design: d, games, positions, quiet, files: files.len(), sample_sfens })
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

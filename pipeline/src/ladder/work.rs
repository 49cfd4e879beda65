//! The work folder of a ladder (`runs/ladder-<variant>/` by default): `ladder.toml`, the
//! settings that decide the games, and one JSON file per finished pairing (`pairs/NN.json`,
//! `h2h/NN.json`), each written atomically. A run in a folder whose `ladder.toml` differs from
//! its own settings is refused, naming the first setting that differs: one folder never mixes
//! games played under different settings. Notes and hints are not settings: changing them only
//! changes the report.

use super::config::LadderConfig;
use super::limits::spec_with_limits;
use super::record::PairLog;
use super::LadderError;
use crate::settings::{describe, diff_tables};
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// The settings that decide the games of a run: game settings, the agents on the ladder (in
/// order, with their specs and limits as played) and the head-to-head matches.
pub fn settings_table(cfg: &LadderConfig, on: &[usize], limits: &[String]) -> Table {
    let mut t = Table::new();
    t.insert("variant".into(), Value::String(cfg.variant.clone()));
    t.insert("seed".into(), Value::Integer(cfg.seed as i64));
    t.insert("games_per_pair".into(), Value::Integer(cfg.games_per_pair as i64));
    t.insert("max_plies".into(), Value::Integer(i64::from(cfg.max_plies)));
    t.insert("opening_plies".into(), Value::Integer(cfg.opening_plies as i64));
    if cfg.still_royals {
        // only when set, so that the settings of runs from before the option still match
        t.insert("still_royals".into(), Value::Boolean(true));
    }
    t.insert("h2h_seed".into(), Value::Integer(cfg.h2h_seed() as i64));
    let mut agents = Table::new();
    for (pos, (&i, spec)) in on.iter().zip(limits).enumerate() {
        let mut a = Table::new();
        a.insert("position".into(), Value::Integer(pos as i64));
        a.insert("spec".into(), Value::String(spec.clone()));
        agents.insert(cfg.agents[i].display_name().to_string(), Value::Table(a));
    }
    t.insert("agents".into(), Value::Table(agents));
    let mut h2h = Table::new();
    for (k, h) in cfg.h2h.iter().enumerate() {
        let v = format!("{} vs {}, {} games", h.a, h.b, h.games);
        h2h.insert(format!("{k:02}"), Value::String(v));
    }
    t.insert("h2h".into(), Value::Table(h2h));
    t
}

/// The agent specs as played, `@LIMITS` included, for [`settings_table`].
pub fn played_specs(cfg: &LadderConfig, on: &[usize]) -> Vec<String> {
    on.iter()
        .map(|&i| {
            let a = &cfg.agents[i];
            spec_with_limits(&a.spec, &super::limits::effective_limits(&a.spec, &a.limits()))
        })
        .collect()
}

/// An opened work folder.
pub struct WorkDir {
    dir: PathBuf,
}

impl WorkDir {
    /// Open `dir` for a run with `settings`: a new folder records them, an existing one must
    /// hold the same.
    pub fn open(dir: &Path, settings: &Table) -> Result<WorkDir, LadderError> {
        let file = dir.join("ladder.toml");
        if file.exists() {
            let text = std::fs::read_to_string(&file)
                .map_err(|source| LadderError::Read { path: file.clone(), source })?;
            let saved: Table = toml::from_str(&text)
                .map_err(|e| LadderError::Parse { path: file.clone(), message: e.to_string() })?;
            let diffs = diff_tables(&saved, settings, &[]);
            if let Some(first) = diffs.first() {
                return Err(LadderError::SettingsChanged {
                    dir: dir.to_path_buf(),
                    key: first.key.clone(),
                    all: describe(&diffs),
                });
            }
        } else {
            let text = toml::to_string(settings)
                .map_err(|e| LadderError::Encode { path: file.clone(), message: e.to_string() })?;
            shogilab_fsio::write_atomic(&file, text.as_bytes())?;
        }
        Ok(WorkDir { dir: dir.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    fn pair_file(&self, group: &str, k: usize) -> PathBuf {
        self.dir.join(group).join(format!("{k:02}.json"))
    }

    /// A finished pairing of `group` (`pairs` or `h2h`), if saved.
    pub fn load(&self, group: &str, k: usize) -> Result<Option<PairLog>, LadderError> {
        let path = self.pair_file(group, k);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|source| LadderError::Read { path: path.clone(), source })?;
        let log = serde_json::from_str(&text)
            .map_err(|e| LadderError::Parse { path: path.clone(), message: e.to_string() })?;
        Ok(Some(log))
    }

    /// Save a finished pairing.
    pub fn save(&self, group: &str, k: usize, log: &PairLog) -> Result<(), LadderError> {
        let path = self.pair_file(group, k);
        let text = serde_json::to_string_pretty(log)
            .map_err(|e| LadderError::Encode { path: path.clone(), message: e.to_string() })?;
        shogilab_fsio::write_atomic(&path, text.as_bytes())?;
        Ok(())
    }
}

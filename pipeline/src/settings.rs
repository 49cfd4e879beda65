//! Saved settings of a stage and the check that a continued stage uses the same ones: the
//! settings are written as a TOML record next to the outputs (`run.toml`, `selfplay.toml`), and
//! a later run in the same folder is compared with it key by key, so that one folder never
//! mixes data made under different settings.

use crate::error::PipelineError;
use serde::Serialize;
use shogilab_store::Store;
use std::fmt;
use std::path::Path;
use toml::{Table, Value};

/// One setting that differs between a saved record and the present run.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingDiff {
    /// Dotted key, e.g. `selfplay.search.simulations`.
    pub key: String,
    /// The saved value (`None`: the record lacks the key).
    pub saved: Option<String>,
    /// The present value (`None`: the present settings lack the key).
    pub now: Option<String>,
}

impl fmt::Display for SettingDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".into());
        write!(f, "`{}` was {}, now {}", self.key, show(&self.saved), show(&self.now))
    }
}

/// The settings that differ between `saved` and `now`, as dotted keys in key order; keys in
/// `ignore` (dotted) are left out.
pub fn diff_tables(saved: &Table, now: &Table, ignore: &[&str]) -> Vec<SettingDiff> {
    let mut out = Vec::new();
    diff_into(saved, now, "", ignore, &mut out);
    out
}

fn diff_into(
    saved: &Table,
    now: &Table,
    prefix: &str,
    ignore: &[&str],
    out: &mut Vec<SettingDiff>,
) {
    let mut keys: Vec<&String> = saved.keys().chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        if ignore.contains(&key.as_str()) {
            continue;
        }
        match (saved.get(k), now.get(k)) {
            (Some(Value::Table(a)), Some(Value::Table(b))) => diff_into(a, b, &key, ignore, out),
            (a, b) if a != b => out.push(SettingDiff {
                key,
                saved: a.map(Value::to_string),
                now: b.map(Value::to_string),
            }),
            _ => {}
        }
    }
}

/// `diffs` as one line: `a` was 1, now 2; `b` was x, now y.
pub fn describe(diffs: &[SettingDiff]) -> String {
    diffs.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// A record as a TOML table (to compare with a saved one).
pub(crate) fn to_table(path: &Path, value: &impl Serialize) -> Result<Table, PipelineError> {
    Table::try_from(value)
        .map_err(|e| PipelineError::BadRecord { path: path.to_path_buf(), reason: e.to_string() })
}

/// A saved TOML record; `None` when the file does not exist.
pub(crate) fn read_table(path: &Path) -> Result<Option<Table>, PipelineError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(PipelineError::io(path)(e)),
    };
    toml::from_str(&text)
        .map(Some)
        .map_err(|e| PipelineError::BadRecord { path: path.to_path_buf(), reason: e.to_string() })
}

/// A saved TOML record in a location; `None` when there is no such object.
pub(crate) fn read_table_at(store: &Store, name: &str) -> Result<Option<Table>, PipelineError> {
    let Some(bytes) = store.get(name)? else { return Ok(None) };
    let bad = |reason: String| PipelineError::BadRecord { path: store.url_of(name).into(), reason };
    let text = String::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
    toml::from_str(&text).map(Some).map_err(|e| bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_keys_are_named_with_both_values() {
        let a: Table =
            toml::from_str("seed = 1\ngames = 4\n[s.search]\nsims = 4\nk = 2\n").unwrap();
        let b: Table =
            toml::from_str("seed = 1\ngames = 8\n[s.search]\nsims = 16\nc = 1\n").unwrap();
        let d = diff_tables(&a, &b, &["games"]);
        let keys: Vec<&str> = d.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, ["s.search.c", "s.search.k", "s.search.sims"]);
        assert_eq!(d[2].to_string(), "`s.search.sims` was 4, now 16");
        assert_eq!(d[0].to_string(), "`s.search.c` was (absent), now 1");
        assert!(diff_tables(&a, &a, &[]).is_empty());
    }
}

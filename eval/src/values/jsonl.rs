//! The JSON-lines game logs of earlier versions (`games/<variant>.jsonl`, one [`GameLine`] per
//! line, and `games/<variant>-sessions.jsonl`, one [`SessionLine`] per line), read only to
//! convert them into the Parquet log ([`super::log`]): `shogilab values --convert-log FILE`.
//! The study itself refuses a report folder that still holds only the old log, naming the
//! command that converts it.

use super::imbalance::GameLine;
use super::log::{GameLog, LogError, SessionLine, Table};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// A failure reading or converting a JSON-lines log, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum JsonlError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: line {line}: not a {what} record: {source}")]
    Line {
        path: PathBuf,
        line: usize,
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path}: expected a JSON-lines game log named <variant>.jsonl")]
    Name { path: PathBuf },
    #[error("{dir}: already holds a Parquet game log; nothing converted (remove it first to convert again)")]
    Exists { dir: PathBuf },
    #[error("{dir}: the log read back differs from {path} at {what} {index}; the new parts were removed")]
    ReadBack { dir: PathBuf, path: PathBuf, what: &'static str, index: usize },
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Records of a JSON-lines file and whether its last line was cut short (dropped: an
/// interrupted append). A missing file has no records.
pub fn read_lines<T: DeserializeOwned>(
    path: &Path,
    what: &'static str,
) -> Result<(Vec<T>, bool), JsonlError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), false)),
        Err(e) => return Err(JsonlError::Io { path: path.into(), source: e }),
    };
    let mut lines: Vec<&str> = text.split('\n').collect();
    // the piece after the last newline: empty for a complete file, else a torn line
    let torn = lines.pop().is_some_and(|last| !last.is_empty());
    let mut out = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let r = serde_json::from_str(l).map_err(|e| JsonlError::Line {
            path: path.into(),
            line: i + 1,
            what,
            source: e,
        })?;
        out.push(r);
    }
    Ok((out, torn))
}

/// What a conversion wrote.
#[derive(Debug, Clone)]
pub struct Converted {
    /// The Parquet log folder.
    pub log: PathBuf,
    pub games: usize,
    pub sessions: usize,
    /// The old log's last line was cut short and is not in the new one.
    pub torn: bool,
}

/// The files of an old log: `<dir>/<variant>.jsonl` and `<dir>/<variant>-sessions.jsonl`,
/// and the Parquet log folder they convert into, `<dir>/<variant>/`.
pub fn paths_of(jsonl: &Path) -> Result<(PathBuf, GameLog), JsonlError> {
    let stem = jsonl
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".jsonl"))
        .filter(|s| !s.is_empty() && !s.ends_with("-sessions"))
        .ok_or_else(|| JsonlError::Name { path: jsonl.into() })?;
    let dir = jsonl.parent().unwrap_or(Path::new(""));
    Ok((dir.join(format!("{stem}-sessions.jsonl")), GameLog::new(dir.join(stem))))
}

/// Convert an old log (the games file and the sessions file beside it, if any) into a Parquet
/// log beside them, in the same order; refuses a destination that already holds a log. The
/// new log is read back and compared with the old one record by record (every field): a
/// difference removes the new parts and is an error. The old files are left as they are.
pub fn convert(jsonl: &Path) -> Result<Converted, JsonlError> {
    let (sessions_path, log) = paths_of(jsonl)?;
    if !jsonl.is_file() {
        return Err(JsonlError::Io {
            path: jsonl.into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    }
    if !log.is_empty()? {
        return Err(JsonlError::Exists { dir: log.url().into() });
    }
    let (games, torn) = read_lines::<GameLine>(jsonl, "game")?;
    let (sessions, _) = read_lines::<SessionLine>(&sessions_path, "session")?;
    log.append_games(&games)?;
    log.append_sessions(&sessions)?;
    let differs = match first_difference(&log.read_games()?, &games) {
        Some(i) => Some((jsonl.to_path_buf(), "game", i)),
        None => first_difference(&log.read_sessions()?, &sessions)
            .map(|i| (sessions_path, "session", i)),
    };
    if let Some((path, what, index)) = differs {
        for table in [Table::Games, Table::Sessions] {
            let _ = log.remove_parts(&log.parts(table)?);
        }
        return Err(JsonlError::ReadBack { dir: log.url().into(), path, what, index });
    }
    Ok(Converted { log: log.url().into(), games: games.len(), sessions: sessions.len(), torn })
}

/// The index of the first record that differs between two lists (or the shorter length).
fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y).or((a.len() != b.len()).then(|| a.len().min(b.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_dropped_and_a_bad_line_named() {
        let dir = std::env::temp_dir().join(format!("shogilab-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("s.jsonl");
        let line = r#"{"agent":"a","played":2,"seconds":3,"threads":1}"#;
        std::fs::write(&p, format!("{line}\n{line}\n{{\"agent\":")).unwrap();
        let (s, torn) = read_lines::<SessionLine>(&p, "session").unwrap();
        assert_eq!((s.len(), torn), (2, true));
        assert_eq!(s[0].seconds, 3.0);
        std::fs::write(&p, format!("{line}\n{{\"agent\":1}}\n")).unwrap();
        let e = read_lines::<SessionLine>(&p, "session").unwrap_err().to_string();
        assert!(e.contains("s.jsonl: line 2: not a session record"), "{e}");
        assert!(matches!(paths_of(&dir.join("x-sessions.jsonl")), Err(JsonlError::Name { .. })));
        std::fs::remove_dir_all(&dir).ok();
    }
}

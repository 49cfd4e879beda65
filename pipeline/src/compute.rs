//! The compute a run has spent: one row per stage that ran (`compute.csv`: `generation`,
//! `stage`, `seconds`, `threads`), kept across resumptions, so that the strength of each
//! network can be drawn against the CPU-hours that made it. Evaluation games are not counted:
//! they measure the networks, they do not make them.

use crate::error::PipelineError;
use shogilab_fsio::write_atomic;
use std::path::{Path, PathBuf};

/// One stage's time.
#[derive(Debug, Clone, PartialEq)]
pub struct StageTime {
    /// The generation whose data or network the stage made (the teacher stage: 0).
    pub generation: u32,
    /// `teacher`, `selfplay` or `train`.
    pub stage: String,
    pub seconds: f64,
    /// Threads the stage could use (the machine's cores).
    pub threads: usize,
}

/// `compute.csv` of a run directory.
pub struct ComputeLog {
    path: PathBuf,
}

const HEADER: &str = "generation,stage,seconds,threads";

/// The cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

impl ComputeLog {
    pub fn new(run_dir: &Path) -> ComputeLog {
        ComputeLog { path: run_dir.join("compute.csv") }
    }

    /// Every row (none when the file does not exist yet).
    pub fn read(&self) -> Result<Vec<StageTime>, PipelineError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(PipelineError::io(&self.path)(e)),
        };
        let bad = |line: usize, what: &str| PipelineError::BadRecord {
            path: self.path.clone(),
            reason: format!("line {line}: {what}"),
        };
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let [g, stage, secs, threads] = f[..] else {
                return Err(bad(i + 1, "expected 4 fields"));
            };
            rows.push(StageTime {
                generation: g.parse().map_err(|_| bad(i + 1, "generation is not a number"))?,
                stage: stage.to_string(),
                seconds: secs.parse().map_err(|_| bad(i + 1, "seconds is not a number"))?,
                threads: threads.parse().map_err(|_| bad(i + 1, "threads is not a number"))?,
            });
        }
        Ok(rows)
    }

    /// Append one row (the file is rewritten whole, atomically).
    pub fn add(&self, row: StageTime) -> Result<(), PipelineError> {
        let mut rows = self.read()?;
        rows.push(row);
        let mut text = format!("{HEADER}\n");
        for r in &rows {
            text.push_str(&format!(
                "{},{},{:.3},{}\n",
                r.generation, r.stage, r.seconds, r.threads
            ));
        }
        write_atomic(&self.path, text.as_bytes())?;
        Ok(())
    }
}

/// CPU-hours spent on the network that generation `g`'s training wrote (`models/gen-{g+1}`),
/// or with `g = None` on the teacher network: every stage up to it, seconds times threads.
pub fn cpu_hours_through(rows: &[StageTime], g: Option<u32>) -> f64 {
    rows.iter()
        .filter(|r| match g {
            None => r.stage == "teacher",
            Some(g) => r.generation <= g,
        })
        .map(|r| r.seconds * r.threads as f64 / 3600.0)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_survive_a_reread_and_sum_to_cpu_hours() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = ComputeLog::new(dir.path());
        assert!(log.read().expect("no file yet").is_empty());
        let row = |g, stage: &str, seconds| StageTime {
            generation: g,
            stage: stage.into(),
            seconds,
            threads: 2,
        };
        log.add(row(0, "teacher", 1800.0)).expect("written");
        log.add(row(0, "selfplay", 900.0)).expect("written");
        log.add(row(0, "train", 900.0)).expect("written");
        log.add(row(1, "selfplay", 3600.0)).expect("written");
        let rows = ComputeLog::new(dir.path()).read().expect("read back");
        assert_eq!(rows.len(), 4);
        assert!((cpu_hours_through(&rows, None) - 1.0).abs() < 1e-9);
        assert!((cpu_hours_through(&rows, Some(0)) - 2.0).abs() < 1e-9);
        assert!((cpu_hours_through(&rows, Some(1)) - 4.0).abs() < 1e-9);
        std::fs::write(
            dir.path().join("compute.csv"),
            "generation,stage,seconds,threads\nx,a,1,2\n",
        )
        .expect("written");
        let e = log.read().expect_err("refused").to_string();
        assert!(e.contains("compute.csv") && e.contains("line 2"), "{e}");
    }
}

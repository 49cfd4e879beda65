//! The learning-rate schedule: a linear warm-up, then constant or cosine decay to a floor.
//!
//! Steps are counted in the network's own steps (all training it ever had). A schedule starts
//! at `start`: the first step of the training job (each job warms up and decays on its own), or
//! 0 for a run trained in several resumable chunks (`--init` the previous chunk) that follows
//! one curve to its `horizon`.

use serde::{Deserialize, Serialize};

/// How the learning rate moves after the warm-up.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// The base rate throughout.
    #[default]
    Constant,
    /// Half a cosine from the base rate down to `min_lr_ratio` of it at the horizon.
    Cosine,
}

impl std::str::FromStr for LrSchedule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "constant" => Ok(LrSchedule::Constant),
            "cosine" => Ok(LrSchedule::Cosine),
            _ => Err(format!("unknown schedule {s:?}: expected constant or cosine")),
        }
    }
}

/// A schedule with its numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub kind: LrSchedule,
    pub base: f64,
    pub warmup_steps: u64,
    /// Step (in the network's total steps) where the warm-up begins.
    pub start: u64,
    /// Step (in the network's total steps) where a cosine reaches its floor.
    pub horizon: u64,
    pub min_lr_ratio: f64,
}

impl Schedule {
    /// The learning rate of the network's `step`-th step (0-based).
    pub fn lr_at(&self, step: u64) -> f64 {
        let k = step.saturating_sub(self.start);
        if k < self.warmup_steps {
            return self.base * (k + 1) as f64 / self.warmup_steps as f64;
        }
        match self.kind {
            LrSchedule::Constant => self.base,
            LrSchedule::Cosine => {
                let len = self.horizon.saturating_sub(self.start).max(1);
                let t = (k as f64 / len as f64).min(1.0);
                let floor = self.base * self.min_lr_ratio;
                floor + (self.base - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmup_then_cosine_to_the_floor() {
        let s = Schedule {
            kind: LrSchedule::Cosine,
            base: 1e-3,
            warmup_steps: 10,
            start: 0,
            horizon: 110,
            min_lr_ratio: 0.1,
        };
        assert!((s.lr_at(0) - 1e-4).abs() < 1e-12);
        assert!((s.lr_at(9) - 1e-3).abs() < 1e-12);
        assert!(s.lr_at(50) < s.lr_at(20) && s.lr_at(100) < s.lr_at(50));
        assert!((s.lr_at(110) - 1e-4).abs() < 1e-12);
        assert!((s.lr_at(500) - 1e-4).abs() < 1e-12, "stays at the floor past the horizon");
        let c = Schedule { kind: LrSchedule::Constant, ..s };
        assert_eq!(c.lr_at(500), 1e-3);
        // a job that starts at the network's step 1000 warms up and decays on its own
        let job = Schedule { start: 1000, horizon: 1110, ..s };
        assert_eq!(job.lr_at(1000), s.lr_at(0));
        assert_eq!(job.lr_at(1050), s.lr_at(50));
        assert_eq!(job.lr_at(1110), s.lr_at(110));
    }
}

//! The learning-rate schedule: a linear warm-up, then constant or cosine decay to a floor.
//!
//! Positions are counted in the network's own steps (all training it ever had), so a run
//! trained in several resumable chunks (`--init` the previous chunk) follows one curve.

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
    /// Step (in the network's total steps) where a cosine reaches its floor.
    pub horizon: u64,
    pub min_lr_ratio: f64,
}

impl Schedule {
    /// The learning rate of the network's `step`-th step (0-based).
    pub fn lr_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.base * (step + 1) as f64 / self.warmup_steps as f64;
        }
        match self.kind {
            LrSchedule::Constant => self.base,
            LrSchedule::Cosine => {
                let t = (step as f64 / self.horizon.max(1) as f64).min(1.0);
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
    }
}

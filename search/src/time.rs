//! Time controls and the time manager.
//!
//! A search gets a soft and a hard time. The soft time is the share of the clock it aims to use;
//! the hard time is never exceeded (the search is abandoned there, keeping what it found). After
//! each iteration the manager predicts the next one's time from the last two (their ratio, the
//! effective branching factor) and does not start one that would end past the hard time, or one
//! that starts past the soft time.

use std::time::{Duration, Instant};

/// How much time a move may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeControl {
    /// No clock: depth, node limits or a stop end the search.
    #[default]
    None,
    /// A fixed time a move (USI `movetime`, XBoard `st`).
    MoveTime(Duration),
    /// A game clock: time left, increment a move, byoyomi a move (after the main time), and the
    /// moves to play before the next time control, where known.
    Clock { remaining: Duration, increment: Duration, byoyomi: Duration, moves_to_go: Option<u32> },
}

/// A time control that cannot be played.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TimeError {
    #[error("a move time of 0 ms cannot be played")]
    ZeroMoveTime,
    #[error(
        "the clock has no time left, no increment and no byoyomi: no move can be played in time"
    )]
    NoTime,
    #[error("moves to go is 0: a time control needs at least one move")]
    ZeroMovesToGo,
}

impl TimeControl {
    /// Refuse what cannot be played.
    pub fn validate(&self) -> Result<(), TimeError> {
        match *self {
            TimeControl::MoveTime(t) if t.is_zero() => Err(TimeError::ZeroMoveTime),
            TimeControl::Clock { moves_to_go: Some(0), .. } => Err(TimeError::ZeroMovesToGo),
            TimeControl::Clock { remaining, increment, byoyomi, .. }
                if remaining.is_zero() && increment.is_zero() && byoyomi.is_zero() =>
            {
                Err(TimeError::NoTime)
            }
            _ => Ok(()),
        }
    }
}

/// Time kept back for the move to reach the opponent (communication, process scheduling).
pub const OVERHEAD: Duration = Duration::from_millis(10);

/// The budget of one search.
#[derive(Debug, Clone, Copy)]
pub struct TimeManager {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
}

impl TimeManager {
    /// The budget of a search started at `start` under `tc`.
    pub fn new(tc: TimeControl, start: Instant) -> TimeManager {
        let (soft, hard) = match tc {
            TimeControl::None => (None, None),
            TimeControl::MoveTime(t) => {
                let t = t.saturating_sub(OVERHEAD).max(Duration::from_millis(1));
                (Some(t), Some(t))
            }
            TimeControl::Clock { remaining, increment, byoyomi, moves_to_go } => {
                let (soft, hard) = clock_budget(remaining, increment, byoyomi, moves_to_go);
                (Some(soft), Some(hard))
            }
        };
        TimeManager { start, soft, hard }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Past the hard time: the search must stop now.
    pub fn out_of_time(&self) -> bool {
        self.hard.is_some_and(|h| self.start.elapsed() >= h)
    }

    /// Whether to start another iteration after one that took `last` (and one before it that
    /// took `before`).
    pub fn start_iteration(&self, last: Duration, before: Duration) -> bool {
        let elapsed = self.start.elapsed();
        let (Some(soft), Some(hard)) = (self.soft, self.hard) else {
            return true;
        };
        if elapsed >= soft {
            return false;
        }
        let ratio = if before.as_micros() > 0 {
            (last.as_secs_f64() / before.as_secs_f64()).clamp(1.5, 8.0)
        } else {
            4.0
        };
        elapsed + last.mul_f64(ratio) <= hard
    }

    /// The soft and hard times (for reports).
    pub fn budget(&self) -> (Option<Duration>, Option<Duration>) {
        (self.soft, self.hard)
    }
}

/// Soft and hard time of one move on a clock.
fn clock_budget(
    remaining: Duration,
    increment: Duration,
    byoyomi: Duration,
    moves_to_go: Option<u32>,
) -> (Duration, Duration) {
    let moves = moves_to_go.unwrap_or(40).clamp(1, 40);
    let usable = remaining.saturating_sub(OVERHEAD);
    let share = usable / moves + increment.mul_f64(0.8);
    // byoyomi is time a move that is lost if unused: use most of it
    let by = byoyomi.saturating_sub(OVERHEAD);
    let soft = (share + by.mul_f64(0.9)).min(usable / 2 + by);
    let hard = (share * 4 + by).min(usable.mul_f64(0.6) + by);
    let floor = Duration::from_millis(1);
    (soft.max(floor), hard.max(soft).max(floor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn unplayable_time_controls_are_refused() {
        assert_eq!(TimeControl::MoveTime(ms(0)).validate(), Err(TimeError::ZeroMoveTime));
        let clock = |r, i, b, m| TimeControl::Clock {
            remaining: ms(r),
            increment: ms(i),
            byoyomi: ms(b),
            moves_to_go: m,
        };
        assert_eq!(clock(0, 0, 0, None).validate(), Err(TimeError::NoTime));
        assert_eq!(clock(1000, 0, 0, Some(0)).validate(), Err(TimeError::ZeroMovesToGo));
        assert_eq!(clock(0, 0, 1000, None).validate(), Ok(()));
    }

    #[test]
    fn a_clock_move_never_plans_past_the_time_left() {
        for (r, i, b, m) in [
            (60_000, 0, 0, None),
            (1_000, 0, 0, None),
            (300, 100, 0, Some(1)),
            (0, 0, 5_000, None),
            (10_000, 0, 1_000, None),
        ] {
            let (soft, hard) = clock_budget(ms(r), ms(i), ms(b), m);
            assert!(soft <= hard, "{r} {i} {b}");
            assert!(hard <= ms(r) + ms(b), "{r} {i} {b}: {hard:?}");
        }
        // byoyomi alone: most of it is used
        let (soft, _) = clock_budget(ms(0), ms(0), ms(5_000), None);
        assert!(soft >= ms(4_000), "{soft:?}");
    }

    #[test]
    fn no_iteration_starts_that_would_end_past_the_hard_time() {
        let tm = TimeManager::new(TimeControl::MoveTime(ms(1_000)), Instant::now());
        assert!(tm.start_iteration(ms(10), ms(5)));
        // a last iteration of 400 ms, four times the one before: the next would take 1.6 s
        assert!(!tm.start_iteration(ms(400), ms(100)));
        assert!(TimeManager::new(TimeControl::None, Instant::now()).start_iteration(ms(400), ms(1)));
    }
}

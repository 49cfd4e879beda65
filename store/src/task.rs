//! The task contract: a job split into `count` independent tasks, `index` one of them.
//!
//! Any scheduler can run the tasks (a Ray task, a Slurm array element, a Kubernetes indexed Job
//! pod): a task needs only its index and the count. Work units (imbalance setups, self-play
//! shards) go to tasks round-robin, unit `u` to task `u % count`, and every random seed is
//! derived from the run's seed and the unit, never from the task, the host, the time or the
//! attempt, so that a retried or duplicated task produces the same data. Each task's output is
//! whole objects named after the task ([`Task::object_name`]), written once complete.

/// One task of a job split into `count` tasks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Task {
    pub index: u32,
    pub count: u32,
}

/// A task index and count that do not make a task.
#[derive(Debug, thiserror::Error)]
#[error("--task-index {index} --task-count {count}: {reason}")]
pub struct TaskError {
    pub index: u64,
    pub count: u64,
    pub reason: &'static str,
}

impl Task {
    /// Task `index` of `count` (`index < count`, `count` at most 99,999).
    pub fn new(index: u64, count: u64) -> Result<Task, TaskError> {
        let err = |reason| Err(TaskError { index, count, reason });
        if count == 0 || count > 99_999 {
            return err("the task count must be between 1 and 99999");
        }
        if index >= count {
            return err("the task index must be below the task count (indices start at 0)");
        }
        Ok(Task { index: index as u32, count: count as u32 })
    }

    /// Whether work unit `unit` is this task's.
    pub fn owns(&self, unit: u64) -> bool {
        unit % self.count as u64 == self.index as u64
    }

    /// The task's object: `<stem>-IIIII-of-NNNNN.<ext>` (`task-00003-of-00008.parquet`).
    pub fn object_name(&self, stem: &str, ext: &str) -> String {
        format!("{stem}-{:05}-of-{:05}.{ext}", self.index, self.count)
    }

    /// The task an object name of [`Task::object_name`]'s shape names, if any.
    pub fn parse_object_name(name: &str, stem: &str, ext: &str) -> Option<Task> {
        let rest = name.strip_prefix(stem)?.strip_prefix('-')?;
        let rest = rest.strip_suffix(ext)?.strip_suffix('.')?;
        let (i, n) = rest.split_once("-of-")?;
        let digits = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(i) || !digits(n) {
            return None;
        }
        Task::new(i.parse().ok()?, n.parse().ok()?).ok()
    }
}

impl std::fmt::Display for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "task {} of {}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_go_round_robin_and_names_round_trip() {
        let tasks: Vec<Task> = (0..3).map(|i| Task::new(i, 3).unwrap()).collect();
        for unit in 0..20u64 {
            let owners: Vec<u32> = tasks.iter().filter(|t| t.owns(unit)).map(|t| t.index).collect();
            assert_eq!(owners, [(unit % 3) as u32], "unit {unit}: exactly one owner");
        }
        let name = tasks[2].object_name("task", "parquet");
        assert_eq!(name, "task-00002-of-00003.parquet");
        assert_eq!(Task::parse_object_name(&name, "task", "parquet"), Some(tasks[2]));
        for other in [
            "task-2-of-3.parquet",
            ".task-00002-of-00003.parquet.x.tmp",
            "task-00003-of-00003.parquet",
        ] {
            assert_eq!(Task::parse_object_name(other, "task", "parquet"), None, "{other}");
        }
    }

    #[test]
    fn impossible_tasks_are_refused() {
        assert!(Task::new(3, 3).unwrap_err().to_string().contains("--task-index 3 --task-count 3"));
        assert!(Task::new(0, 0).is_err());
    }
}

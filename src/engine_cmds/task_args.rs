//! The task contract's options, shared by `values`, `selfplay`, `match` and `gauntlet`, the
//! output options of the last two, and the one JSON line a task prints last for its scheduler
//! (`shogilab_store::Task`; the README's "Running on a cluster").

use anyhow::Result;
use clap::Args;
use shogilab_store::Task;
use std::time::Instant;

/// Where `match` and `gauntlet` write their result, and their task options.
#[derive(Args)]
pub struct ResultArgs {
    /// Location (a folder or s3://bucket/prefix) of the result's files: games.txt, games.jsonl
    /// and match.json, match.md, games.log (match) or elo.json, elo.md (gauntlet). When it
    /// holds the parts of this job's tasks, nothing is played: the parts are merged (every task
    /// must be there). A task (--task-index) stores its part there, so it needs --out.
    #[arg(long, value_name = "URL")]
    pub out: Option<String>,
    /// Print the result as JSON as the last line.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub task: TaskArgs,
}

#[derive(Args)]
pub struct TaskArgs {
    /// Run only task I of the job split into N tasks: the work units u with u % N == I
    /// (values: imbalance setups, both colours; selfplay: shards; match: openings, both
    /// colours), stored as the task's own objects; a stored task plays nothing. Prints one
    /// JSON line last. The same command without the task options merges.
    #[arg(long, value_name = "I", requires = "task_count")]
    pub task_index: Option<u64>,
    /// Number of tasks the job is split into (with --task-index).
    #[arg(long, value_name = "N", requires = "task_index")]
    pub task_count: Option<u64>,
}

impl TaskArgs {
    /// The task asked for, if any (checked).
    pub fn task(&self) -> Result<Option<Task>> {
        match (self.task_index, self.task_count) {
            (Some(i), Some(n)) => Ok(Some(Task::new(i, n)?)),
            _ => Ok(None),
        }
    }
}

/// A task's report line, timed from its creation.
pub struct TaskLine {
    task: Task,
    t0: Instant,
}

impl TaskLine {
    pub fn start(task: Task) -> TaskLine {
        TaskLine { task, t0: Instant::now() }
    }

    /// Print `{"task","tasks","games","played","seconds", key: output}` on one line.
    pub fn print(&self, games: usize, played: usize, (key, output): (&str, serde_json::Value)) {
        let mut line = serde_json::json!({
            "task": self.task.index,
            "tasks": self.task.count,
            "games": games,
            "played": played,
            "seconds": self.t0.elapsed().as_secs_f64(),
        });
        line[key] = output;
        println!("{line}");
    }
}

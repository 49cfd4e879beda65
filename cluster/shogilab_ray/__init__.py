"""shogilab_ray: run `shogilab values`, `selfplay`, `match` and `gauntlet` jobs as Ray tasks, and the
pipeline loop (self-play, training, evaluation per generation) on top of them.

The binary's task contract (`--task-index I --task-count N`, immutable per-task objects under a
storage URL, a JSON summary line last) makes every task independent and idempotent, so a task
that dies is simply run again. Modules: `launcher` (driver: task runner, progress, merge),
`task` (worker side), `pipeline` (the loop). See cluster/README.md; entry point:
`python -m shogilab_ray`.
"""

__version__ = "0.1.0"

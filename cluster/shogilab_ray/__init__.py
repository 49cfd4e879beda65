"""shogilab_ray: run `shogilab values` and `shogilab selfplay` jobs as Ray tasks.

The binary's task contract (`--task-index I --task-count N`, immutable per-task objects under a
storage URL, a JSON summary line last) makes every task independent and idempotent, so a task
that dies is simply run again. See cluster/README.md; entry point: `python -m shogilab_ray`.
"""

__version__ = "0.1.0"

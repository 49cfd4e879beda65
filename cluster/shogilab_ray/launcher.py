"""Driver side: submit the tasks of one `shogilab` run to Ray, report progress, then merge.

1. Connect to a Ray cluster (`--address` or RAY_ADDRESS) or start a local one (`--num-cpus`).
   The job's runtime_env ships this package to the workers and passes on the AWS_* variables
   and LD_LIBRARY_PATH, so tasks reach the same storage with the same credentials.
2. Submit N tasks (`task.run_task`), one per task index, each asking for `--cpus-per-task` CPUs
   and retried up to `--max-retries` times (worker death or non-zero exit).
3. While they run, print progress to stderr: tasks done/failed/retried, games, games/hour, ETA.
4. Run the merge (the same shogilab command without task flags) here, with its output on ours,
   and print one JSON summary line last on stdout.

`run_tasks` (submit and watch any set of tasks) and `run_job` (a task-contract job and its
merge) are the building blocks that the pipeline loop (`pipeline.py`, the `pipeline` command)
calls for each of its stages.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import ray

import shogilab_ray
from shogilab_ray import task

COMMANDS = ("values", "selfplay", "match", "gauntlet")
PIPELINE = "pipeline"
LAUNCHER_FLAGS = ("--task-index", "--task-count", "--threads")
PASSED_ENV_PREFIXES = ("AWS_",)
PASSED_ENV = ("LD_LIBRARY_PATH",)
PROGRESS_EVERY_S = 30.0
POLL_S = 1.0


def default_binary():
    """$SHOGILAB_BINARY, else target/release/shogilab of the repository holding this package
    (when run from a checkout), else `shogilab` on the PATH, else ./target/release/shogilab."""
    if os.environ.get("SHOGILAB_BINARY"):
        return os.environ["SHOGILAB_BINARY"]
    in_repo = Path(__file__).resolve().parents[2] / "target" / "release" / "shogilab"
    if in_repo.exists():
        return str(in_repo)
    return shutil.which("shogilab") or "target/release/shogilab"


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m shogilab_ray",
        description="Run one shogilab values/selfplay/match/gauntlet job as Ray tasks, then merge; or "
        "the pipeline loop (self-play, training, evaluation; see `pipeline --help`).",
        epilog="Example: python -m shogilab_ray --tasks 8 values -- -v shogi --games 400 "
        "--log s3://bucket/run1 --out reports/run1",
    )
    p.add_argument("--address", help="Ray cluster to join ('auto': the one on this node); "
                   "default $RAY_ADDRESS, else a local cluster is started")
    p.add_argument("--num-cpus", type=int, help="CPUs of the local cluster (local only; "
                   "default: every core)")
    p.add_argument("--binary", default=default_binary(), help="shogilab binary, at this path "
                   "on every node (default: %(default)s)")
    p.add_argument("--cpus-per-task", type=int, default=1, help="CPUs (game threads) per task")
    p.add_argument("--max-retries", type=int, default=3, help="reruns of a failed task")
    p.add_argument("--tasks", type=int, help="task count N (default: the cluster's CPUs / "
                   "cpus-per-task); keep it fixed when resuming a run")
    p.add_argument("command", choices=(*COMMANDS, PIPELINE))
    p.add_argument("args", nargs=argparse.REMAINDER, help="shogilab arguments (after --); "
                   "for pipeline: its options, then -- and the arguments of every command")
    opts = p.parse_args(argv)
    if opts.command == PIPELINE:
        from shogilab_ray import pipeline  # it builds on this module: imported when used

        pipeline.parse_args(opts)
    else:
        if opts.args[:1] == ["--"]:
            opts.args = opts.args[1:]
        for flag in flags_in(opts.args, LAUNCHER_FLAGS):
            p.error(f"{flag} is set by the launcher")
    address = opts.address or os.environ.get("RAY_ADDRESS")
    if address and opts.num_cpus is not None:
        p.error("--num-cpus is for a local cluster only (not with --address/RAY_ADDRESS)")
    if min(opts.cpus_per_task, 1 if opts.tasks is None else opts.tasks) < 1 or opts.max_retries < 0:
        p.error("--cpus-per-task and --tasks must be positive, --max-retries not negative")
    opts.address = address
    opts.binary = os.path.abspath(opts.binary)  # the same path on every node
    return opts


def flags_in(args, flags):
    """The flags of `flags` that a shogilab argument list sets (`--flag V` or `--flag=V`)."""
    return [f for f in flags if any(a == f or a.startswith(f + "=") for a in args)]


def option_value(args, name):
    """The value of `name` in a shogilab argument list (`--name V` or `--name=V`), or None."""
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def init_ray(opts):
    env = {k: v for k, v in os.environ.items()
           if k.startswith(PASSED_ENV_PREFIXES) or k in PASSED_ENV}
    runtime_env = {"py_modules": [shogilab_ray], "env_vars": env}
    # Workers print nothing of interest; failures come back through the Tracker.
    common = dict(runtime_env=runtime_env, logging_level="WARNING", log_to_driver=False)
    if opts.address:
        ray.init(address=opts.address, **common)
    else:
        ray.init(num_cpus=opts.num_cpus or os.cpu_count(), include_dashboard=False, **common)


def duration(seconds):
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}h{rest // 60:02d}m" if h else f"{rest // 60}m{rest % 60:02d}s"


class Progress:
    """Counts finished tasks and their games; prints one stderr line when something changed."""

    def __init__(self, count, total_games, games=True):
        self.count = count
        self.total_games = total_games  # the run's --games, when given
        self.games = games  # False: tasks that play no games (training)
        self.t0 = time.time()
        self.results = {}
        self.failures = {}
        self.starts = {}
        self.attempt_failures = 0
        self.seconds = None
        self.last_state = None
        self.last_time = 0.0

    def retries(self):
        return sum(max(0, len(s) - 1) for s in self.starts.values())

    def report(self):
        """Print the progress line when a count changed or PROGRESS_EVERY_S passed."""
        now = time.time()
        elapsed = now - self.t0
        games = sum(r["games"] for r in self.results.values())
        played = sum(r["played"] for r in self.results.values())
        rate = played / elapsed * 3600 if elapsed > 0 else 0.0
        done = len(self.results)
        running = len([i for i in self.starts if i not in self.results and i not in self.failures])
        state = (done, len(self.failures), self.retries(), running)
        line = (f"tasks {done}/{self.count} done, {len(self.failures)} failed, "
                f"{self.retries()} retried, {running} running")
        if self.games:
            line += f"; games {games}"
            total = self.total_games or (games / done * self.count if done else None)
            if self.total_games:
                line += f"/{self.total_games}"
            line += f", {rate:.0f} games/h"
            if played and total is not None and done < self.count:
                line += f", ETA {duration(max(0.0, total - games) / rate * 3600)}"
        if state != self.last_state or now - self.last_time >= PROGRESS_EVERY_S:
            print(f"[{duration(elapsed)}] {line}", file=sys.stderr, flush=True)
            self.last_state, self.last_time = state, now


def failure_message(err):
    """The launcher's own message for a task's final error (the TaskFailed text when it is one)."""
    cause = getattr(err, "cause", None)
    if isinstance(cause, task.TaskFailed):
        return str(cause)
    return f"{type(err).__name__}: {err}"


def remote_function(opts, function, **options):
    """`function` as a Ray task asking for --cpus-per-task CPUs (plus `options`, e.g. num_gpus),
    rerun up to --max-retries times when its worker dies or it raises."""
    return ray.remote(function).options(num_cpus=opts.cpus_per_task,
                                        max_retries=opts.max_retries, retry_exceptions=True,
                                        **options)


def task_count(opts, count=None):
    """`count`, else --tasks, else as many tasks as the cluster has slots of --cpus-per-task."""
    slots = int(ray.cluster_resources().get("CPU", 0)) // opts.cpus_per_task
    return count or opts.tasks or max(1, slots)


def run_tasks(label, resources, count, submit, total_games=None, games=True):
    """Submit `count` tasks (`submit(index, tracker)` returns the ObjectRef of task `index`) and
    wait for them all, printing progress on stderr; return the Progress with the outcome.
    `label` and `resources` (what each task asks for, in words) are for the first line."""
    tracker = ray.remote(num_cpus=0)(task.Tracker).remote()
    progress = Progress(count, total_games, games)
    pending = {submit(i, tracker): i for i in range(count)}
    print(f"submitted {count} {label} tasks ({resources} each, "
          f"{int(ray.cluster_resources().get('CPU', 0))} CPUs in the cluster)",
          file=sys.stderr, flush=True)
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=POLL_S)
        failed_now = []
        for ref in ready:
            index = pending.pop(ref)
            try:
                progress.results[index] = ray.get(ref)
            except (ray.exceptions.RayError, task.TaskFailed) as err:
                progress.failures[index] = failure_message(err)
                failed_now.append(index)
        progress.starts, attempts_failed = ray.get(tracker.snapshot.remote())
        for index, reason in attempts_failed[progress.attempt_failures:]:
            if index not in progress.failures:  # else its final failure is printed below
                print(f"task {index}: an attempt failed, retrying ({reason})", file=sys.stderr)
        progress.attempt_failures = len(attempts_failed)
        for index in failed_now:
            print(f"task {index} failed: {progress.failures[index]}", file=sys.stderr)
        progress.report()
    progress.seconds = time.time() - progress.t0
    return progress


def run_job(opts, command, args, count, out=None, merge_flags=()):
    """Run `shogilab COMMAND ARGS` as `count` tasks, then its merge (ARGS + `merge_flags`, no task
    flags) here, the merge's stdout copied to `out` (default: stdout).

    Returns (Progress, the merge's stdout); the stdout is None when a task failed (no merge then)
    or the merge failed, which is said on stderr.
    """
    remote = remote_function(opts, task.run_task)
    games = option_value(args, "--games")
    progress = run_tasks(
        command, f"{opts.cpus_per_task} CPU", count,
        lambda i, tracker: remote.remote(opts.binary, command, args, i, count,
                                         opts.cpus_per_task, tracker),
        int(games) if games and games.isdigit() else None)
    if progress.failures:
        print(f"shogilab_ray: {len(progress.failures)} of {count} tasks failed "
              f"(tasks {sorted(progress.failures)}); no merge", file=sys.stderr)
        return progress, None
    cmd = task.shogilab_command(opts.binary, command, [*args, *merge_flags])
    print("== merge: " + " ".join(cmd), file=sys.stderr, flush=True)
    merge = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    out = out or sys.stdout
    out.write(merge.stdout)
    out.flush()
    if merge.returncode != 0:
        print(f"shogilab_ray: the merge exited with status {merge.returncode}", file=sys.stderr)
        return progress, None
    return progress, merge.stdout


def summary(command, count, progress, total_seconds):
    results = progress.results.values()
    played = sum(r["played"] for r in results)
    first = {i: min(s) for i, s in progress.starts.items() if s}
    waits = [t - progress.t0 for t in first.values()]
    return {
        "command": command,
        "tasks": count,
        "failed": len(progress.failures),
        "retries": progress.retries(),
        "games": sum(r["games"] for r in results),
        "played": played,
        # the tasks' own seconds (binary start to its last line), summed: `seconds` * CPUs
        # minus this is what scheduling, process start and idle CPUs cost
        "task_seconds": round(sum(r["seconds"] for r in results), 3),
        "seconds": round(progress.seconds, 3),
        "total_seconds": round(total_seconds, 3),
        "games_per_hour": round(played / progress.seconds * 3600, 1) if progress.seconds else 0,
        "start_overhead_s": round(sum(waits) / len(waits), 3) if waits else None,
        "first_start_s": round(min(waits), 3) if waits else None,
        "hosts": sorted({r["host"] for r in results}),
        "nodes": len({r["node"] for r in results}),
    }


def main(argv=None):
    t0 = time.time()
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    if not os.access(opts.binary, os.X_OK):
        print(f"shogilab_ray: no executable shogilab binary at {opts.binary} (--binary)",
              file=sys.stderr)
        return 2
    init_ray(opts)
    try:
        if opts.command == PIPELINE:
            from shogilab_ray import pipeline

            return pipeline.run(opts)
        count = task_count(opts)
        progress, merged = run_job(opts, opts.command, opts.args, count)
    finally:
        ray.shutdown()
    print(json.dumps(summary(opts.command, count, progress, time.time() - t0)), flush=True)
    return 0 if merged is not None else 1

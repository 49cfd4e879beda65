"""Worker side of the launcher: one task of the `shogilab` task contract, run as a subprocess.

A task is `BINARY {values,selfplay,match} ARGS... --task-index I --task-count N` (values also gets
`--threads T`). The binary plays only its share of the games, stores it as immutable objects
under the run's URL (a rerun of a stored task plays nothing) and prints one JSON line last:
`{"task":I,"tasks":N,"games":K,"played":P,"seconds":X,...}`. The pipeline's training step is
one more kind of task (`run_train`): `BINARY train ... --publish URL`, whose result is the URL of
the published checkpoint.

The subprocess is bound to the Ray worker that started it: on Linux it receives SIGKILL when the
worker dies (prctl PR_SET_PDEATHSIG), so a killed worker leaves no orphan that would keep
playing (and writing) beside the task's retry.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

STDERR_TAIL_CHARS = 3000
PR_SET_PDEATHSIG = 1


class TaskFailed(RuntimeError):
    """A shogilab task that exited non-zero, was killed, or printed no result (JSON summary line,
    or `published URL` for training)."""


def shogilab_command(binary, command, args, index=None, count=None, threads=None):
    """The command line of a task (`index`/`count` given) or of the merge (neither given)."""
    cmd = [binary, command, *args]
    if index is not None:
        cmd += ["--task-index", str(index), "--task-count", str(count)]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    return cmd


def _die_with_parent():
    """A preexec_fn that makes the child receive SIGKILL when its parent dies (Linux only)."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    parent = os.getpid()

    def preexec():
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def last_json_line(stdout):
    """The JSON object printed on the last non-empty line of `stdout`, or None."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        value = json.loads(lines[-1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def error_line(text):
    """The last line of `text` that starts with "error" (the binary's message), else its last."""
    lines = text.splitlines() or [""]
    return next((line for line in reversed(lines) if line.startswith("error")), lines[-1])


def _status(returncode):
    if returncode < 0:
        return f"was killed by {signal.Signals(-returncode).name}"
    return f"exited with status {returncode}"


def _tell(method, *args):
    """Call a Tracker `method` and wait until the actor has it.

    A call that is only sent can be lost when this worker is killed right after (it waits in the
    worker until the actor is up), and the launcher would then miss an attempt it must count.
    """
    _confirm(_send(method, *args))


def _send(method, *args):
    """Send a Tracker `method` call without waiting; returns the reference to wait on."""
    return method.remote(*args)


def _confirm(sent):
    """Wait until a call sent with [`_send`] has reached the actor."""
    import ray  # only on a Ray worker; the rest of this module runs without Ray

    ray.get(sent)


def _node_id():
    """The Ray node this task runs on (several may share a host)."""
    import ray

    return ray.get_runtime_context().get_node_id()


def run_process(cmd, index, count, cpus, tracker, parse, expected):
    """Run one attempt of task `index` of `count`: `cmd` with OMP_NUM_THREADS=`cpus`.

    `parse(stdout)` turns the output of a successful run into the task's result (a dict), or
    returns None when the output lacks it (`expected` names what is missing, in words). Returns
    that dict plus `started`, `host`, `node` (the Ray node) and (when the binary gave none)
    `seconds`. Raises TaskFailed
    (with the tail of the task's stderr) when the subprocess fails; the launcher submits tasks
    with `retry_exceptions=True`, so Ray then runs them again elsewhere. `tracker` (a Tracker
    actor, optional) is told when the subprocess starts and why it failed.
    """
    env = dict(os.environ, OMP_NUM_THREADS=str(cpus))
    started = time.time()
    # The start is sent, not waited for: waiting inside a task lends its CPUs back to Ray, which
    # starts another task on them meanwhile (two tasks on one CPU for the whole attempt; the
    # values job on 2 CPUs ran 8 tasks in 217 task-seconds instead of about 130). It is waited
    # for after the subprocess, so a start is lost only if the worker dies before the call left.
    sent = _send(tracker.started, index, started) if tracker is not None else None
    proc = subprocess.run(
        cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        preexec_fn=_die_with_parent(),
    )
    if sent is not None:
        _confirm(sent)
    summary = parse(proc.stdout) if proc.returncode == 0 else None
    if summary is None:
        problem = _status(proc.returncode) if proc.returncode else f"printed no {expected}"
        tail = (proc.stderr.strip() or proc.stdout)[-STDERR_TAIL_CHARS:].rstrip()
        if tracker is not None:
            _tell(tracker.failed, index, f"{problem}: {error_line(tail)}")
        raise TaskFailed(f"task {index} of {count} ({' '.join(cmd)}) {problem}:\n{tail}")
    summary.setdefault("seconds", round(time.time() - started, 3))
    summary["started"] = started
    summary["host"] = os.uname().nodename
    summary["node"] = _node_id()
    return summary


def run_task(binary, command, args, index, count, cpus, tracker=None):
    """Run task `index` of `count` of a task-contract command with `cpus` threads; return its
    JSON summary line (`{"task":I,"tasks":N,"games":K,"played":P,"seconds":X,...}`) plus timings.
    """
    threads = cpus if command == "values" else None
    cmd = shogilab_command(binary, command, args, index, count, threads)
    return run_process(cmd, index, count, cpus, tracker, last_json_line, "JSON summary line")


TRAINED = re.compile(r"^trained (\d+) steps on (\d+) positions .* on (\S+): .*\(loss ([\d.]+), "
                     r"([\d.]+) samples/s\)$", re.M)
HELD_OUT = re.compile(r"^held out (\d+) positions: policy loss ([\d.]+), value loss ([\d.]+), "
                      r"policy accuracy ([\d.]+)$", re.M)


def published_checkpoint(stdout):
    """{"checkpoint": URL, "games": 0, "played": 0} from train's `published URL` line, or None;
    plus `training` (steps, positions, device, loss, samples/s of its `trained ...` line) and
    `held_out` (positions, policy and value loss, accuracy) where train printed them."""
    urls = [line.split(None, 1)[1].strip() for line in stdout.splitlines()
            if line.startswith("published ")]
    if not urls:
        return None
    result = {"checkpoint": urls[-1], "games": 0, "played": 0}
    if m := TRAINED.search(stdout):
        steps, positions, device, loss, sps = m.groups()
        result["training"] = {"steps": int(steps), "positions": int(positions),
                              "device": device, "loss": float(loss),
                              "samples_per_second": float(sps)}
    if m := HELD_OUT.search(stdout):
        positions, policy, value, accuracy = m.groups()
        result["held_out"] = {"positions": int(positions), "policy_loss": float(policy),
                              "value_loss": float(value), "policy_accuracy": float(accuracy)}
    return result


def run_train(binary, args, cpus, tracker=None):
    """One training task: `BINARY train ARGS --out TMP/model.ot` with `cpus` OpenMP threads.

    `args` must hold `--publish URL`: the checkpoint is stored there under its content hash, and
    the printed URL (`published URL/<sha256>.ot`) is the result's `checkpoint`. The local copy
    (and its metrics) lives in a temporary folder of the worker that is removed afterwards.
    """
    with tempfile.TemporaryDirectory(prefix="shogilab-train-") as tmp:
        cmd = [binary, "train", *args, "--out", os.path.join(tmp, "model.ot")]
        return run_process(cmd, 0, 1, cpus, tracker, published_checkpoint,
                           "`published URL` line")


class Tracker:
    """Records each task attempt's start and failure (a Ray actor, 0 CPUs).

    Ray reruns a task whose worker died or that raised; every attempt reports here, so the
    launcher can count retries, say why an attempt failed, and measure how long tasks waited.
    """

    def __init__(self):
        self.starts = {}  # task index -> start times of its attempts
        self.failures = []  # (task index, one-line reason), in order

    def started(self, index, when):
        self.starts.setdefault(index, []).append(when)

    def failed(self, index, reason):
        self.failures.append((index, reason))

    def snapshot(self):
        return self.starts, self.failures

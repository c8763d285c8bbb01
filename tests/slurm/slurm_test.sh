#!/usr/bin/env bash
# slurm_test.sh WORKER SOURCE OUT
# A real Slurm cluster on loopback: munged, slurmctld and slurmd started here, their state in a
# temporary directory, stopped on exit. scripts/slurm_suite.sh trains a quick suite as a 3-task
# array (--shard I/3). One node is lost mid-run -- its worker dies at step 10 and its slurmd is
# killed -- and a later `serve` re-claims that shard's run and finishes it. The merged shard DBs
# must hold the same runs with the same metrics as a single-machine run of the suite.
# Exit 77 (skip) without slurm-wlm and munge, or when not root (slurmd runs jobs as their user).
set -u
worker=$(readlink -f "$1") source=$(cd "$2" && pwd) out=$3
suite=$source/assets/suites/th_projections.toml
fail() {
  echo "FAIL: $*" >&2
  for log in "$dir"/*.log; do echo "--- $log" >&2; tail -15 "$log" >&2; done
  exit 1
}
skip() {
  echo "SKIP: $*"
  exit 77
}
for tool in munged slurmctld slurmd sbatch squeue sinfo python3; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (scripts/setup.sh installs slurm-wlm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "starting slurmd needs root"

rm -rf "$out" && mkdir -p "$out"
dir=$(mktemp -d /tmp/headroom-slurm.XXXXXX)
chmod 700 "$dir"
mkdir -p "$dir/ctld" "$dir/spool" "$dir/out"
cleanup() {
  for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid; do [ -f "$pid" ] && kill -9 "$(cat "$pid")" 2>/dev/null; done
  pkill -9 -f "$dir/" 2>/dev/null  # job steps still running from this cluster
  munged --stop --socket="$dir/munge.socket" >/dev/null 2>&1
  cp "$dir"/*.log "$out/" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
export OMP_NUM_THREADS=1  # the same thread count everywhere: training is deterministic per count
unset HEADROOM_ASSETS

# munge: Slurm's authentication, with a key of our own.
head -c 1024 /dev/urandom >"$dir/munge.key" && chmod 400 "$dir/munge.key"
munged --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" || fail "munged did not start"

# Two free ports next to each other for slurmctld and slurmd.
port=$(python3 -c 'import socket
for p in range(20000 + __import__("os").getpid() % 20000, 60000, 2):
    try:
        s = [socket.socket(), socket.socket()]
        s[0].bind(("127.0.0.1", p)); s[1].bind(("127.0.0.1", p + 1))
        print(p); break
    except OSError: pass')
cat >"$dir/slurm.conf" <<CONF
ClusterName=headroomtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
NodeName=hrnode NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=4 RealMemory=32000 State=UNKNOWN
PartitionName=hr Nodes=hrnode Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N hrnode || fail "slurmd did not start"
for _ in $(seq 100); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %t | grep -q idle || fail "the node did not come up: $(sinfo 2>&1)"

# The lossy node: task 1's worker dies at step 10 of its first run, and so does its slurmd.
cat >"$dir/lossy_worker.sh" <<LOSSY
#!/usr/bin/env bash
if [ "\$SLURM_ARRAY_TASK_ID" = 1 ]; then
  "$worker" "\$@" --crash-after-step 10
  rc=\$?
  kill -9 "\$(cat "$dir/slurmd.pid")"
  touch "$dir/node_lost"  # the test waits for this, not for the absence of this process
  exit \$rc
fi
exec "$worker" "\$@"
LOSSY
chmod +x "$dir/lossy_worker.sh"

job=$(cd "$source" && HEADROOM_WORKER="$dir/lossy_worker.sh" sbatch --parsable --array=0-2 --cpus-per-task=1 --mem=1G \
  --output="$dir/task-%a.log" scripts/slurm_suite.sh "$suite" quick "$dir/out/suite") || fail "sbatch refused the array"
echo "submitted array job $job"

# A single-machine run of the same suite meanwhile, for comparison.
"$worker" run "$suite" --scale quick --db "$dir/single.sqlite" --quiet --nice 0 || fail "the single-machine run failed"

# Tasks 0 and 2 finish (their DBs say so: the lost node's slurmd cannot report to Slurm any more).
shard_done() {
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db, shard = sys.argv[1], int(sys.argv[2])
try:
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = c.execute("SELECT status FROM runs WHERE shard_key % 3 = ?", (shard,)).fetchall()
    sys.exit(0 if rows and all(s == "done" for (s,) in rows) else 1)
except sqlite3.Error:
    sys.exit(1)
PY
}
for _ in $(seq 600); do
  shard_done "$dir/out/suite.shard-0.sqlite" 0 && shard_done "$dir/out/suite.shard-2.sqlite" 2 &&
    [ -f "$dir/node_lost" ] && ! pgrep -f "lossy_worker.sh" >/dev/null && break
  sleep 0.5
done
shard_done "$dir/out/suite.shard-0.sqlite" 0 || fail "shard 0 did not finish"
shard_done "$dir/out/suite.shard-2.sqlite" 2 || fail "shard 2 did not finish"
# Dead: gone, or a zombie nobody reaps (a daemon's parent is PID 1, which in a container may not
# reap), so kill -0 is not the test.
alive() { [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
# kill -9 is asynchronous: give the kernel a moment to take slurmd down.
[ -f "$dir/node_lost" ] || fail "task 1 never lost its node (no crash at step 10)"
for _ in $(seq 50); do alive "$(cat "$dir/slurmd.pid" 2>/dev/null)" || break; sleep 0.1; done
alive "$(cat "$dir/slurmd.pid" 2>/dev/null)" && fail "the lost node's slurmd is still alive"
shard_done "$dir/out/suite.shard-1.sqlite" 1 && fail "shard 1 finished although its node was lost mid-run"
"$worker" status --db "$dir/out/suite.shard-1.sqlite" | tee "$out/shard1_after_loss.txt"
# Its worker's process is gone (the node ran on this host), so status names the run interrupted.
lost=$(awk '$3 == "interrupted" { print $2 }' "$out/shard1_after_loss.txt")
[ -n "$lost" ] || fail "the lost node left no run that status shows as interrupted"

# A later serve re-claims the dead node's run and finishes the shard.
"$worker" serve --db "$dir/out/suite.shard-1.sqlite" --shard 1/3 --nice 0 >"$dir/serve.log" 2>&1 ||
  fail "serve could not finish shard 1"
grep -qF "$lost  step 30/30" "$dir/serve.log" || fail "serve did not re-claim the lost run $lost: $(cat "$dir/serve.log")"
shard_done "$dir/out/suite.shard-1.sqlite" 1 || fail "shard 1 is still unfinished after serve"

"$worker" merge "$dir/merged.sqlite" "$dir"/out/suite.shard-*.sqlite >"$dir/merge.log" 2>&1 || fail "merge failed"
# Same runs, same metrics (all but throughput, which is timing), by run name: merged runs get
# new ids.
for db in single merged; do
  "$worker" status --db "$dir/$db.sqlite" --json >"$out/${db}_status.json" || fail "status of $db failed"
  "$worker" export --db "$dir/$db.sqlite" --csv >"$dir/$db.csv" || fail "export of $db failed"
  python3 - "$out/${db}_status.json" "$dir/$db.csv" >"$out/$db.csv" <<'PY' || fail "cannot read the $db export"
import csv, json, sys
names = {str(r["id"]): r["name"] for r in json.load(open(sys.argv[1]))["runs"] if r["status"] == "done"}
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["metric"] != "tokens_per_s"]
for line in sorted(f'{names.get(r["run"], "?" + r["run"])},{r["metric"]},{r["step"]},{r["value"]}' for r in rows):
    print(line)
PY
done
runs=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"]; print(len(r), sum(x["status"]=="done" for x in r))' "$out/merged_status.json")
[ "$runs" = "8 8" ] || fail "the merged DB holds $runs (runs, done); expected 8 8"
[ "$(wc -l <"$out/single.csv")" -gt 100 ] || fail "the single-machine export is nearly empty"
cmp -s "$out/single.csv" "$out/merged.csv" ||
  fail "the merged shards differ from the single-machine run: $(diff "$out/single.csv" "$out/merged.csv" | head -5)"
echo "PASS: Slurm array of 3 (one node lost mid-run and re-claimed by serve), merged = single machine ($(wc -l <"$out/merged.csv") metric rows, 8 runs)"

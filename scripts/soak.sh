#!/usr/bin/env bash
# scripts/soak.sh: a worker writes at full speed for DURATION seconds (default 600) while the GUI,
# under Xvfb, browses the same DB with live refresh (the explorer's --bench-frames: the table
# scrolls and the plot pans and zooms through 12 stored runs and the writer's own run, a new window
# every 4 frames). The DB is the explorer benchmark's (200 runs x 20,000 steps x 3 metrics), copied.
#
# It passes (exit 0) when, over the whole soak:
#   - the GUI saw no read error in any frame (no "database is locked") and the worker none either;
#   - the worker kept committing and the GUI kept reloading what it wrote (live refresh);
#   - frame p95 <= 33 ms (the explorer's target, README);
#   - the GUI's resident memory grew <= 10% from the minute after warm-up (WARMUP s) to the
#     soak's last minute (medians of the samples in each);
#   - the DB passes PRAGMA integrity_check afterwards.
# Otherwise exit 1, naming what failed. Not part of the default tests (10 minutes of both cores).
# Prints a markdown table for the README; the samples stay in $SOAK_DIR (default a temp dir).
#   DURATION=600 WARMUP=60 SAMPLE=5 bash scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-600}"
WARMUP="${WARMUP:-60}"
SAMPLE="${SAMPLE:-5}"
if [ $((WARMUP + 120)) -gt "$DURATION" ]; then
  echo "soak: DURATION=$DURATION is too short for WARMUP=$WARMUP; it needs a minute after warm-up and a last minute (>= $((WARMUP + 120)))" >&2
  exit 2
fi
for tool in xvfb-run python3; do
  command -v "$tool" > /dev/null || { echo "soak: $tool is missing; run scripts/setup.sh" >&2; exit 2; }
done
[ -x build/app/gui/headroom ] && [ -x build/app/worker/headroom-worker ] && [ -x build/bench/make_explorer_db ] ||
  bash scripts/build.sh

work="${SOAK_DIR:-$(mktemp -d)}"
mkdir -p "$work"
source_db="${BENCH_DB:-build/bench/explorer_bench.sqlite}"
if [ ! -f "$source_db" ]; then
  echo "soak: generating $source_db (200 runs x 20,000 steps x 3 metrics, about a minute)" >&2
  build/bench/make_explorer_db "$source_db" 200 20000 2> /dev/null
fi
db="$work/soak.sqlite"
rm -f "$db" "$db-wal" "$db-shm"
cp "$source_db" "$db"

gui_pid="" writer=""
cleanup() {
  [ -n "$gui_pid" ] && kill -TERM "$gui_pid" 2> /dev/null || true
  [ -n "$writer" ] && kill -TERM "$writer" 2> /dev/null || true
  wait 2> /dev/null || true
}
trap cleanup EXIT

# The writer: a small model committing every step (the explorer benchmark's writer), at the
# worker's default niceness (training is a background job).
writer_name="soak-writer-$$"
build/app/worker/headroom-worker train --db "$db" --name "$writer_name" --corpus copy --d-model 64 --heads 4 \
  --layers 2 --context 32 --batch 16 --steps 100000000 --log-every 1 --eval-every 50 --checkpoint-every 200 \
  --quiet 2> "$work/worker.err" &
writer=$!
for _ in $(seq 100); do  # its run exists once it has committed a step
  python3 - "$db" "$writer_name" > /dev/null 2>&1 <<'PY' && break
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
sys.exit(0 if c.execute("SELECT 1 FROM runs WHERE name = ?", (sys.argv[2],)).fetchone() else 1)
PY
  sleep 0.2
done

scene="$work/scene.json"
python3 - "$db" "$scene" "$writer_name" <<'PY'
import json, sqlite3, sys
names = [r[0] for r in sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(
    "SELECT name FROM runs WHERE name LIKE 'bench-explorer/%' ORDER BY id LIMIT 12")]
json.dump({"view": "Explorer", "explorer": {"select": names + [sys.argv[3]]}}, open(sys.argv[2], "w"))
PY

# The GUI measures frames until it is told to stop (SIGTERM closes it cleanly and it prints what
# it measured); the frame count is only an upper bound.
xvfb-run -a -s "-screen 0 1280x800x24" build/app/gui/headroom --db "$db" --scene "$scene" \
  --bench-frames 100000000 > "$work/gui.json" 2> "$work/gui.err" &
xvfb=$!
for _ in $(seq 100); do
  gui_pid=$(pgrep -f -- "^build/app/gui/headroom --db $db --scene" || true)  # not xvfb-run's own shell
  [ -n "$gui_pid" ] && break
  sleep 0.1
done
[ -n "$gui_pid" ] || { echo "soak: the GUI did not start; see $work/gui.err" >&2; exit 1; }

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2> /dev/null || echo 0; }
echo "seconds,gui_rss_kb,worker_rss_kb" > "$work/samples.csv"
echo "soak: $DURATION s, samples every $SAMPLE s in $work/samples.csv" >&2
start=$(date +%s)
while :; do
  now=$(date +%s)
  elapsed=$((now - start))
  [ "$elapsed" -ge "$DURATION" ] && break
  kill -0 "$gui_pid" 2> /dev/null || { echo "soak: the GUI exited after $elapsed s; see $work/gui.err" >&2; exit 1; }
  kill -0 "$writer" 2> /dev/null || { echo "soak: the worker exited after $elapsed s; see $work/worker.err" >&2; exit 1; }
  echo "$elapsed,$(rss_kb "$gui_pid"),$(rss_kb "$writer")" >> "$work/samples.csv"
  sleep "$SAMPLE"
done

kill -TERM "$gui_pid"
wait "$xvfb" || { echo "soak: the GUI did not close cleanly on SIGTERM; see $work/gui.err" >&2; exit 1; }
gui_pid=""
kill -TERM "$writer"
worker_rc=0
wait "$writer" || worker_rc=$?
writer=""

python3 - "$work" "$db" "$writer_name" "$DURATION" "$WARMUP" "$worker_rc" <<'PY'
import csv, json, sqlite3, statistics, sys
work, db, writer, duration, warmup, worker_rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
lines = [l for l in open(f"{work}/gui.json") if l.startswith("{")]
if not lines:
    sys.exit(f"soak: the GUI printed no measurements; see {work}/gui.err")
gui = json.loads(lines[-1])
samples = [(int(r["seconds"]), int(r["gui_rss_kb"]), int(r["worker_rss_kb"])) for r in csv.DictReader(open(f"{work}/samples.csv"))]
after_warmup = [rss for t, rss, _ in samples if warmup <= t < warmup + 60]
last_minute = [rss for t, rss, _ in samples if t >= duration - 60]
base, end = statistics.median(after_warmup), statistics.median(last_minute)
peak = max(rss for t, rss, _ in samples if t >= warmup)
growth = (end - base) / base
worker_err = open(f"{work}/worker.err", errors="replace").read()
con = sqlite3.connect(db)
integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
steps = con.execute("SELECT COUNT(*) FROM metrics m JOIN metric_series s ON s.id = m.series_id "
                    "JOIN runs r ON r.id = s.run_id WHERE r.name = ?", (writer,)).fetchone()[0]
lock_words = ("locked", "busy")
checks = [
    ("GUI frames with a read error", gui.get("db_error_frames", -1), "0", gui.get("db_error_frames", -1) == 0),
    ("worker errors (exit code; 'locked' / 'busy' on stderr)",
     f"{worker_rc}; {'yes' if any(w in worker_err.lower() for w in lock_words) else 'none'}", "0; none",
     worker_rc == 0 and not any(w in worker_err.lower() for w in lock_words)),
    ("metric rows the worker committed", steps, "> 0", steps > 0),
    ("run-table reloads the GUI made (live refresh)", gui.get("rows_version", 0), "> 1", gui.get("rows_version", 0) > 1),
    ("frames measured", gui["frames"], "-", gui["frames"] > 0),
    ("frame median (ms)", f"{gui['frame_ms_median']:.1f}", "-", True),
    ("frame p95 (ms)", f"{gui['frame_ms_p95']:.1f}", "<= 33", gui["frame_ms_p95"] <= 33),
    ("frame p95, first half / second half (ms)",
     f"{gui.get('frame_ms_p95_first_half', float('nan')):.1f} / {gui.get('frame_ms_p95_second_half', float('nan')):.1f}", "-", True),
    ("frame p99 / max (ms)", f"{gui['frame_ms_p99']:.1f} / {gui['frame_ms_max']:.1f}", "-", True),
    (f"GUI resident memory, minute after warm-up ({warmup} s) -> last minute (MB)",
     f"{base / 1024:.1f} -> {end / 1024:.1f} ({growth * 100:+.1f}%; peak {peak / 1024:.1f})", "<= +10%", growth <= 0.10),
    ("PRAGMA integrity_check", integrity, "ok", integrity == "ok"),
]
print(f"| soak: {duration} s, worker writing while the explorer browses | measured | target |")
print("|---|---|---|")
for label, value, target, _ in checks:
    print(f"| {label} | {value} | {target} |")
failed = [label for label, _, _, ok in checks if not ok]
if "db_first_error" in gui:
    print(f"first read error the GUI saw: {gui['db_first_error']}")
if failed:
    sys.exit("soak: FAILED: " + "; ".join(failed) + f" (samples and logs in {work})")
print(f"soak: passed (samples and logs in {work})")
PY

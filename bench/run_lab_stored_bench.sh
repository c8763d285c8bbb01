#!/usr/bin/env bash
# The window never waits for a checkpoint: a stored run whose weights are ~50 MB per step
# (d = 512, L = 4, 13M parameters, float32) opened in the lab from the explorer ("Open in lab"),
# then scrubbed to the next stored step as soon as the last one loaded, under Xvfb's software renderer, measured by
# the GUI's own --bench-frames (frame median / p95 / p99, and how many steps were asked for and
# loaded: each load reads the blob and decodes it on the lab engine's thread). Prints a table for
# the README; ROUNDS rounds (default 3), medians.
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES="${FRAMES:-180}"
ROUNDS="${ROUNDS:-3}"
DB="${BENCH_DB:-build/bench/lab_stored_bench.sqlite}"
[ -x build/app/gui/headroom ] && [ -x build/app/worker/headroom-worker ] || bash scripts/build.sh
if [ ! -f "$DB" ]; then
  echo "bench: training a d = 512, L = 4 model for 8 steps into $DB (weights stored every 2 steps)" >&2
  OMP_NUM_THREADS=2 build/app/worker/headroom-worker train --db "$DB" --name big-model --corpus kjv --d-model 512 \
    --heads 8 --layers 4 --context 64 --batch 4 --steps 8 --eval-every 2 --checkpoint-every 2 --quiet
fi
blob_mb=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(f'file:{sys.argv[1]}?mode=ro',uri=True); print('%.1f' % (max(r[0] for r in c.execute(\"SELECT length(bytes) FROM artifacts WHERE kind='weights'\"))/1e6)); print(c.execute(\"SELECT count(*) FROM artifacts WHERE kind='weights'\").fetchone()[0])" "$DB" | paste -sd' ')
scene=$(mktemp --suffix=.json)
printf '{"view": "Explorer", "explorer": {"open_in_lab": "big-model"}}\n' > "$scene"
lines=()
for r in $(seq "$ROUNDS"); do
  lines+=("$(xvfb-run -a -s "-screen 0 1280x800x24" build/app/gui/headroom --db "$DB" --scene "$scene" --bench-frames "$FRAMES" | tail -1)")
done
rm -f "$scene"
python3 - "$blob_mb" "${lines[@]}" <<'PY'
import json, statistics, sys
mb, steps = sys.argv[1].split()
runs = [json.loads(x) for x in sys.argv[2:]]
med = lambda k: statistics.median(r.get(k, float("nan")) for r in runs)
print(f"| lab, stored run of {mb} MB weights x {steps} steps, scrubbed to the next step as soon as one loaded (median of {len(runs)} rounds) | measured | target |")
print("|---|---|---|")
print(f"| frame median (ms) | {med('frame_ms_median'):.1f} | - |")
print(f"| frame p95 (ms) | {med('frame_ms_p95'):.1f} | - |")
print(f"| frame p99 (ms) | {med('frame_ms_p99'):.1f} | <= 33 |")
print(f"| frame max (ms) | {med('frame_ms_max'):.1f} | - |")
print(f"| steps asked for / loaded (per round) | {med('stored_step_requests'):.0f} / {med('stored_step_loads'):.0f} | - |")
print("p99 per round:", [r["frame_ms_p99"] for r in runs])
PY

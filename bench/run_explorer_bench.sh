#!/usr/bin/env bash
# The explorer on a generated DB of 200 runs x 20,000 steps x 3 metrics (bench/make_explorer_db),
# under Xvfb's software renderer, measured by the GUI's own --bench-frames:
#   - Open -> every wanted curve drawn (the DB opened again in the running window; startup, with
#     window and fonts, reported beside it),
#   - frame times while the plot pans and zooms through the runs (a new window every 4 frames,
#     each re-fetched from the store's min/max pyramid),
#   - the same while a real worker trains into the same DB at full speed, at the worker's default
#     niceness (10: training is a background job) and at --nice 0 (competing with the window for
#     the same cores as an equal).
# Prints a markdown table for the README.
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES="${FRAMES:-150}"
DB="${BENCH_DB:-build/bench/explorer_bench.sqlite}"
[ -x build/app/gui/headroom ] && [ -x build/bench/make_explorer_db ] || bash scripts/build.sh
if [ ! -f "$DB" ]; then
  echo "bench: generating $DB (200 runs x 20,000 steps x 3 metrics, about a minute)" >&2
  build/bench/make_explorer_db "$DB" 200 20000 2>/dev/null
fi
# The same twelve runs selected in both measurements (the writer's run must not change it).
scene=$(mktemp --suffix=.json)
python3 - "$DB" "$scene" <<'PY'
import json, sqlite3, sys
names = [r[0] for r in sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(
    "SELECT name FROM runs WHERE name LIKE 'bench-explorer/%' ORDER BY id LIMIT 12")]
json.dump({"view": "Explorer", "explorer": {"select": names}}, open(sys.argv[2], "w"))
PY
gui() { xvfb-run -a -s "-screen 0 1280x800x24" build/app/gui/headroom --db "$DB" --scene "$scene" --bench-frames "$FRAMES"; }

ROUNDS="${ROUNDS:-3}"
idle=() busy=() rude=()
for r in $(seq "$ROUNDS"); do  # interleaved, so drift on the machine hits both alike
  idle+=("$(gui | tail -1)")
  # A worker writing at full speed into the same file (a small model: a commit every ~2 s).
  for nice in 10 0; do
    build/app/worker/headroom-worker train --db "$DB" --name "bench-writer-$$-$r-$nice" --corpus copy --d-model 64 \
      --heads 4 --layers 2 --context 32 --batch 16 --steps 1000000 --log-every 1 --eval-every 50 \
      --checkpoint-every 200 --nice "$nice" --quiet &
    writer=$!
    sleep 3
    if [ "$nice" = 10 ]; then busy+=("$(gui | tail -1)"); else rude+=("$(gui | tail -1)"); fi
    kill -TERM "$writer"; wait "$writer" || true
  done
done

python3 - "$ROUNDS" "${idle[@]}" "${busy[@]}" "${rude[@]}" <<'PY'
import json, statistics, sys
n = int(sys.argv[1])
idle = [json.loads(x) for x in sys.argv[2:2 + n]]
busy = [json.loads(x) for x in sys.argv[2 + n:2 + 2 * n]]
rude = [json.loads(x) for x in sys.argv[2 + 2 * n:2 + 3 * n]]
def med(runs, key):
    vals = [r[key] for r in runs if key in r and r[key] is not None and r[key] >= 0]
    return statistics.median(vals) if vals else float("nan")
rows = [("Open -> full draw (ms)", "open_to_full_draw_ms", "%.0f", "<= 500"),
        ("startup (window, fonts) -> full draw (ms)", "startup_to_full_draw_ms", "%.0f", "-"),
        ("pan/zoom frame median (ms)", "frame_ms_median", "%.1f", "-"),
        ("pan/zoom frame p95 (ms)", "frame_ms_p95", "%.1f", "<= 33"),
        ("zoom re-fetch median (ms)", "zoom_refetch_ms_median", "%.0f", "-"),
        ("run table reload (ms)", "rows_load_ms", "%.0f", "-")]
print(f"| explorer, 200 runs x 20k steps x 3 metrics (median of {n} rounds) | idle | worker writing "
      "| worker writing at --nice 0 | target |")
print("|---|---|---|---|---|")
for label, key, fmt, target in rows:
    print(f"| {label} | {fmt % med(idle, key)} | {fmt % med(busy, key)} | {fmt % med(rude, key)} | {target} |")
for key in ("open_to_full_draw_ms", "frame_ms_p95"):
    print(f"{key} per round, idle:", [round(r[key], 1) for r in idle], "writing:", [round(r[key], 1) for r in busy],
          "writing at --nice 0:", [round(r[key], 1) for r in rude])
PY

#!/usr/bin/env bash
# What full checkpoints cost a run, side by side in one run: the same short training job (a
# 38M-parameter model, d 512, L 12, h 8, n 32, B 1, bytes) checkpointing every CK_EVERY steps,
# once writing the full checkpoint (weights + AdamW's moments) at each such step
# (`--checkpoint-interval 0`, the default) and once only at the last step (`--checkpoint-interval
# 3600`); the weights for the GUI are stored at every such step in both. Interleaved rounds,
# medians; prints the wall times, their ratio, and the seconds each extra full checkpoint cost.
# STEPS (8), CK_EVERY (2), ROUNDS (3), WIDTH (512), LAYERS (12); DIR: where the DBs go (a temp
# folder: put it on the disk you want measured). Pause any training worker on the machine first.
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS="${STEPS:-8}"
CK_EVERY="${CK_EVERY:-2}"
ROUNDS="${ROUNDS:-3}"
WIDTH="${WIDTH:-512}"
LAYERS="${LAYERS:-12}"
worker=build/app/worker/headroom-worker
[ -x "$worker" ] || bash scripts/build.sh
dir="${DIR:-$(mktemp -d)}"
out=$(mktemp)
for round in $(seq "$ROUNDS"); do
  for interval in 0 3600; do
    rm -f "$dir"/ck.sqlite*
    start=$(date +%s.%N)
    "$worker" train --db "$dir/ck.sqlite" --name ck --d-model "$WIDTH" --heads 8 --layers "$LAYERS" --context 32 \
      --batch 1 --steps "$STEPS" --eval-every 100000 --checkpoint-every "$CK_EVERY" --checkpoint-interval "$interval" \
      --quiet --nice 0
    end=$(date +%s.%N)
    python3 - "$dir/ck.sqlite" "$interval" "$start" "$end" >>"$out" <<'PY'
import sqlite3, sys
db, interval, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
full = c.execute("SELECT COALESCE(MAX(length(bytes)), 0) FROM artifacts WHERE kind = 'checkpoint'").fetchone()[0]
params = c.execute("SELECT param_count FROM runs").fetchone()[0]
print(interval, end - start, full, params)
PY
  done
done
rm -f "$dir"/ck.sqlite*
python3 - "$out" "$STEPS" "$CK_EVERY" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
steps, every = int(sys.argv[2]), int(sys.argv[3])
each = {iv: [float(r[1]) for r in rows if r[0] == iv] for iv in ("0", "3600")}
full_bytes, params = int(rows[0][2]), int(rows[0][3])
a, b = statistics.median(each["0"]), statistics.median(each["3600"])
extra = (steps - 1) // every  # full checkpoints written only with interval 0 (the last step's is in both)
print(f"{params / 1e6:.1f}M parameters, {steps} steps, checkpoint_every {every}; one full checkpoint "
      f"{full_bytes / 1e9:.2f} GB; medians of {len(each['0'])} interleaved rounds\n")
print("| --checkpoint-interval | full checkpoints | wall s (each round) | median s |")
print("|---|---|---|---|")
print(f"| 0 (default) | {extra + 1} | {', '.join(f'{x:.1f}' for x in each['0'])} | {a:.1f} |")
print(f"| 3600 | 1 | {', '.join(f'{x:.1f}' for x in each['3600'])} | {b:.1f} |")
print(f"\nratio {a / b:.2f}x; each extra full checkpoint: {(a - b) / max(extra, 1):.2f} s")
PY

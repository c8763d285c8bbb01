#!/usr/bin/env bash
# weights_twin_test.sh HEADROOM WORKER OUTDIR
# A results export stores the weights of two runs of one model once (export --results-only): the
# Run tab of the run left without them names the run that has them, and its "Show that run" button
# moves the tab there (where "Open in lab" is). The focused run comes back through --state-out.
set -u
headroom=$1 worker=$2 out=$3
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"

# a and b: the same flags and seed, so the same model; the export keeps a's weights only.
for name in a b; do
  "$worker" train --db "$out/twins.sqlite" --name "$name" --corpus copy --d-model 16 --heads 2 --layers 1 \
    --context 8 --batch 4 --steps 20 --quiet || fail "training run $name failed"
done
report=$("$worker" export --db "$out/twins.sqlite" --results-only --weights-per-suite 2 --out "$out/shared.sqlite") ||
  fail "the export failed"
case $report in
*"b: final weights byte for byte a's"*) ;;
*) fail "the export did not name b's twin: $report" ;;
esac

printf '{"view": "Explorer", "explorer": {"db": "%s", "tab": "run", "select": ["b"]}}\n' "$out/shared.sqlite" \
  >"$out/scene.json"
open_window "$out" "$headroom" --scene "$out/scene.json" --state-out "$out/state.json"
wait_for_state "$out/state.json" 'j["explorer"]["focused"] == "b"' 30 || fail "the Run tab did not show b"
# At 1280x800 "Show that run" sits under the line naming the twin, at (66, 479).
xdotool mousemove --window "$win" 66 479 sleep 0.3 click 1 sleep 1
close_window twin
state_equals twin "$out/state.json" 'j["explorer"]["focused"]' "'a'"
echo PASS

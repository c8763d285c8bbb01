#!/usr/bin/env bash
# neurons_view_test.sh HEADROOM PNG_CHECK OUTDIR
# The neurons view in the real window: one head's logits for one query taken apart into products.
# The state says what it drew: the head and query asked for, the keys up to the query (causal),
# d_k components each, and cells that add up to the logits shown; a head's button names its role.
set -u
headroom=$1 png_check=$2 out=$3
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
require_xvfb
fresh_home "$out"
cat >"$out/scene.json" <<'JSON'
{"view": "Lab", "lab": {"d": 32, "heads": 4, "layers": 2, "map_view": "neurons", "neuron_head": 2,
 "lines_query": 10, "text": "In the beginning God created the heaven and the earth."}}
JSON
in_xvfb "$headroom" --scene "$out/scene.json" --size 1280x800 --frames 60 --screenshot "$out/neurons.png" \
  --state-out "$out/state.json" || fail "headroom exited with $?"
"$png_check" "$out/neurons.png" 1280 800 || fail "screenshot check failed"
v='j["neurons_view"]'
state_equals neurons "$out/state.json" "($v['head'], $v['query'], $v['keys'], $v['r'])" "(2, 10, 11, 8)"
state_equals neurons "$out/state.json" "$v['sum_error'] < 1e-4" "True"
# The query's row and 11 keys' rows of 8 products each.
state_equals neurons "$out/state.json" 'j["widgets"]["neuron_cells"]' "96"
# Hovering head 2's button says what the head does (its role, read off its weights).
open_window "$out" "$headroom" --scene "$out/scene.json" --state-out "$out/hover.json"
# Over the picked head's button, where the first run drew it (a longer badge above moves it down).
read -r bx by < <(python3 -c "import json; b = json.load(open('$out/state.json'))['neurons_view']['head_button']; print(round(b[0]), round(b[1]))")
xdotool mousemove --window "$win" $((bx - 1)) "$by" sleep 0.3 mousemove --window "$win" "$bx" "$by" sleep 0.7
close_window hover
state_equals hover "$out/hover.json" 'j["tooltip"].split(":")[0]' "'head 2'"
echo PASS

#!/usr/bin/env bash
# name_tooltip_test.sh HEADROOM OUTDIR
# The run table clips long names to their column; hovering one shows it whole in a tooltip (the
# tooltip's text comes back through --state-out), and so does a clipped suite.
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"

# hover_and_check NAME X Y EXPECTED: with the mouse resting at (X, Y), the last frame's tooltip.
hover_and_check() {
  local name=$1 x=$2 y=$3 expected=$4
  mkdir -p "$out/$name"
  cat >"$out/$name/scene.json" <<'JSON'
{"view": "Explorer", "explorer": {"db": "@results", "filter": "vb-attention-ratio", "tab": "curves"}}
JSON
  open_window "$out/$name" "$headroom" --scene "$out/$name/scene.json" --state-out "$out/$name/state.json"
  xdotool mousemove --window "$win" "$x" "$y" sleep 0.3 mousemove --window "$win" $((x + 2)) "$y" sleep 1
  close_window "$name"
  state_equals "$name" "$out/$name/state.json" 'j.get("tooltip")' "'$expected'"
}
# At 1280x800 the first row (y = 174) is ratio-1/width=128,seed=0: name from x = 130, suite before.
hover_and_check name 200 174 "ratio-1/width=128,seed=0"
hover_and_check suite 60 174 "vb-attention-ratio"
# The kind column holds "fixed-head" whole: no tooltip.
hover_and_check kind 340 174 ""
echo PASS

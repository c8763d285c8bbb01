#!/usr/bin/env bash
# lines_view_test.sh HEADROOM PNG_CHECK OUTDIR
# The Attention maps tab's lines view (BertViz's head view) in the real window (Xvfb + xdotool):
# it draws lines and no heatmaps, and a click on a query token pins that query, whose lines alone
# are then drawn; with the query pinned, a click on a head's name in the focus panel opens the
# neurons view of that head and query (checked through --state-out).
set -u
headroom=$1 png_check=$2 out=$3
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
require_xvfb
fresh_home "$out"
export XDG_CONFIG_HOME="$out/config"
cat >"$out/scene.json" <<'JSON'
{"view": "Lab", "lab": {"map_view": "lines", "text": "In the beginning God created the heaven and the earth."}}
JSON
# 1. A screenshot: where the view is, and that every query's lines are drawn.
in_xvfb "$headroom" --scene "$out/scene.json" --size 1280x800 --screenshot "$out/lines.png" --frames 60 \
  --state-out "$out/before.json" || fail "headroom exited with $?"
"$png_check" "$out/lines.png" 1280 800 || fail "the screenshot is blank or the wrong size"
query=20  # the space after "God"
read -r x y <<<"$(python3 - "$out/before.json" $query <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
q = int(sys.argv[2])
v = j.get("lines_view")
assert v, "no lines view drawn"
assert j["heatmaps_drawn"] == 0, "heatmaps drawn in the lines view"
assert j["widgets"]["attention_lines"] > 0, "no lines drawn"
assert v["focus_query"] == -1 and j["lab"]["lines_query"] == -1, "a query in focus before any click"
assert v["tokens"] == j["model"]["n"] > q, v
x, y, w, h = v["rect"]
print(int(x + 6), int(y + v["top"] + (q + 0.5) * v["row_h"]))
PY
)" || fail "state before the click ($out/before.json)"
echo "query $query at $x,$y"
# 2. The real window: click the query's label, move the mouse off the view, quit.
open_window "$out" "$headroom" --scene "$out/scene.json" --state-out "$out/after.json"
xdotool mousemove --window "$win" "$x" "$y" click 1 sleep 0.3 mousemove --window "$win" 5 790 sleep 0.5
xdotool key --window "$win" ctrl+q
wait $app || fail "headroom exited with $?"
python3 - "$out/after.json" $query <<'PY' || fail "state after the click ($out/after.json)"
import json, sys
j = json.load(open(sys.argv[1]))
q = int(sys.argv[2])
v, heads = j["lines_view"], j["model"]["attention"]["heads"]
lines = j["widgets"]["attention_lines"]
print("pinned", j["lab"]["lines_query"], "focus", v["focus_query"], "lines", lines, "heads", heads)
# Causal: query q reads keys 0..q, so at most heads x (q + 1) lines, at least one per head.
assert j["lab"]["lines_query"] == q and v["focus_query"] == q, "the click did not pin the query"
assert heads <= lines <= heads * (q + 1), "not the pinned query's lines alone"
assert j["blocking_io_on_ui_thread"] == 0
PY
kill $xvfb_pid 2>/dev/null
# 3. The query pinned by the scene: where head 1's name is, then a click on it.
mkdir -p "$out/link"
cat >"$out/link/scene.json" <<JSON
{"view": "Lab", "lab": {"map_view": "lines", "lines_query": $query,
 "text": "In the beginning God created the heaven and the earth."}}
JSON
in_xvfb "$headroom" --scene "$out/link/scene.json" --size 1280x800 --frames 60 --state-out "$out/link/before.json" ||
  fail "headroom exited with $?"
read -r x y <<<"$(python3 - "$out/link/before.json" <<'PY'
import json, sys
links = {k["head"]: k for k in json.load(open(sys.argv[1]))["lines_view"].get("head_links", [])}
assert 1 in links, f"no link on head 1's name: {links}"
print(int(links[1]["x"]), int(links[1]["y"]))
PY
)" || fail "state with the query pinned ($out/link/before.json)"
open_window "$out/link" "$headroom" --scene "$out/link/scene.json" --state-out "$out/link/after.json"
xdotool mousemove --window "$win" "$x" "$y" click 1 sleep 0.5
close_window link
state_equals link "$out/link/after.json" \
  '(j["lab"]["map_view"], j["lab"]["neuron_head"], j["neurons_view"]["head"], j["neurons_view"]["query"])' \
  "('neurons', 1, 1, $query)"
echo PASS

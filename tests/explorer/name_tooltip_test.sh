#!/usr/bin/env bash
# name_tooltip_test.sh HEADROOM WORKER OUTDIR
# The run table gives run names the room of 9 in 10 of them, up to 280 px, and clips longer names to
# their column; hovering one shows it whole in a tooltip (the tooltip's text comes back through
# --state-out), and so does a suite name longer than its column. A long tooltip wraps at 30 em.
set -u
headroom=$1 worker=$2 out=$3
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"

# A DB whose suite name is longer than the suite column: enqueued only, nothing trained.
long_db="$out/long_suite.sqlite"
rm -f "$long_db"
# lrb_heads under a longer name.
sed 's/^name = .*/name = "a-suite-whose-name-is-longer-than-its-column"/' \
  "$(dirname "$0")/../../assets/suites/lrb_heads.toml" >"$out/long_suite.toml"
"$worker" enqueue "$out/long_suite.toml" --db "$long_db" --quiet || fail "enqueue of the long-named suite failed"

# hover_and_check NAME DB FILTER X Y EXPECTED [SELECT]: with the mouse resting at (X, Y), the last
# frame's tooltip. The table scrolls to the selection (by default the newest suite's runs); SELECT,
# a JSON list of run names, selects the run that is the first row instead.
hover_and_check() {
  local name=$1 db=$2 filter=$3 x=$4 y=$5 expected=$6 select=${7:-[]}
  mkdir -p "$out/$name"
  printf '{"view": "Explorer", "explorer": {"db": "%s", "filter": "%s", "select": %s, "tab": "curves"}}\n' \
    "$db" "$filter" "$select" >"$out/$name/scene.json"
  open_window "$out/$name" "$headroom" --scene "$out/$name/scene.json" --state-out "$out/$name/state.json"
  xdotool mousemove --window "$win" "$x" "$y" sleep 0.3 mousemove --window "$win" $((x + 2)) "$y" sleep 1
  close_window "$name"
  state_equals "$name" "$out/$name/state.json" 'j.get("tooltip")' "'$expected'"
}
# At 1280x800 the first row is at y = 174, the suite column from x = 10 and the names from x = 155.
# vb-depth-width's longest names (~430 px) pass the 280 px the names may take: clipped, tooltip.
long_name="shallow-low-rank/embed_rank=56,width=44,seed=0,tokenizer=bpe:2000"
hover_and_check name @results shallow-low-rank 250 174 "$long_name" "[\"vb-depth-width/$long_name\"]"
# Names that fit (vb-attention-ratio's, seed included) are shown whole: no tooltip.
hover_and_check short_name @results vb-attention-ratio 250 174 ""
hover_and_check suite "$long_db" "" 60 174 "a-suite-whose-name-is-longer-than-its-column"
# The kind column holds "fixed-head" whole: no tooltip.
hover_and_check kind @results vb-attention-ratio 400 174 ""

# A long tooltip wraps at 30 em instead of running off the window's right edge (as it did before):
# the Run tab's "N% off the diagonal" under a talking-heads run's first P_l, at (590, 571).
mkdir -p "$out/wrapped"
printf '{"view": "Explorer", "explorer": {"db": "@results", "select": ["th-head-dims/6-24-6/seed=0"], "tab": "run"}}\n' \
  >"$out/wrapped/scene.json"
open_window "$out/wrapped" "$headroom" --scene "$out/wrapped/scene.json" --state-out "$out/wrapped/state.json"
sleep 3  # the run and its P_l / P_w load
xdotool mousemove --window "$win" 590 571 sleep 0.3 mousemove --window "$win" 592 571 sleep 1
close_window wrapped
state_equals wrapped "$out/wrapped/state.json" 'j.get("tooltip", "").startswith("The share of the matrix")' True
state_equals wrapped "$out/wrapped/state.json" '20 < j.get("tooltip_width_em", 0) <= 31.5' True
echo PASS

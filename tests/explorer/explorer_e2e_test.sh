#!/usr/bin/env bash
# explorer_e2e_test.sh HEADROOM WORKER PNG_CHECK ASSETS OUTDIR
# The explorer in the real window (Xvfb) on a DB that the worker's quick suites produced:
# a screenshot per tab with its state checked, "Open in lab" landing in the lab with the run's
# model, and a foreign file explained in the window and left byte-identical.
set -u
here="$(cd "$(dirname "$0")/../gui" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 worker=$2 png_check=$3 assets=$4 out=$5
mkdir -p "$out"
db="$out/quick.sqlite"
rm -f "$db" "$db-wal" "$db-shm"
# A suite of a question of its own (no paper figure, nor one it pools into), enqueued first so the
# worker bar still offers the last shipped suite.
sed -e 's/^name = "lrb-head-size"/name = "my-sweep"/' -e 's/^reproduces = .*/reproduces = "a question of my own"/' \
  "$assets/suites/lrb_head_size.toml" > "$out/my_sweep.toml"
for suite in "$out/my_sweep.toml" th_heads vb_attention_ratio; do
  case $suite in /*) file=$suite ;; *) file="$assets/suites/$suite.toml" ;; esac
  "$worker" run "$file" --scale quick --db "$db" --quiet || fail "worker run $suite failed"
done
runs=$("$worker" status --db "$db" --json | grep -o '"id":' | wc -l)
[ "$runs" -gt 0 ] || fail "the quick suites produced no runs"

# state_value FILE KEY: the first number after "KEY": in a pretty-printed state file.
state_value() { grep -o "\"$2\": [0-9]*" "$1" | head -1 | grep -o '[0-9]*$'; }

no_blocking_io() {  # no_blocking_io STATE NAME: no SQL or checkpoint decode ran on the UI thread
  [ "$(state_value "$1" blocking_io_on_ui_thread)" = 0 ] || fail "$2: SQL or a checkpoint decode ran on the UI thread"
}

shot() {  # shot NAME SCENE-JSON: screenshot + state of the explorer with that scene
  printf '%s\n' "$2" > "$out/$1.json"
  in_xvfb "$headroom" --db "$db" --scene "$out/$1.json" --screenshot "$out/$1.png" --frames 6 \
    --state-out "$out/$1.state.json" || fail "$1: headroom exited with $?"
  "$png_check" "$out/$1.png" 1280 800 || fail "$1: screenshot check failed"
  no_blocking_io "$out/$1.state.json" "$1"
}

shot curves '{"view": "Explorer", "explorer": {"tab": "curves", "metric": "val_loss"}}'
[ "$(state_value "$out/curves.state.json" runs)" -eq "$runs" ] || fail "curves: the table does not hold all $runs runs"
[ "$(state_value "$out/curves.state.json" curves_drawn)" -ge 1 ] || fail "curves: no curve drawn"
[ "$(state_value "$out/curves.state.json" table_names_clipped)" -eq 0 ] || fail "curves: 1280 px wide, run names cut short"
[ "$(state_value "$out/curves.state.json" table_columns_dropped)" -le 1 ] || fail "curves: 1280 px wide, the table dropped more than tok/s"
# 1024 px wide, the table leaves out its least telling columns so the run names keep their room.
in_xvfb "$headroom" --db "$db" --scene "$out/curves.json" --size 1024x768 --screenshot "$out/narrow.png" --frames 6 \
  --state-out "$out/narrow.state.json" || fail "narrow: headroom exited with $?"
[ "$(state_value "$out/narrow.state.json" table_columns_dropped)" -ge 1 ] || fail "narrow: no column left out at 1024 px"
[ "$(state_value "$out/narrow.state.json" table_names_clipped)" -eq 0 ] || fail "narrow: 1024 px wide, run names cut short"
# The same in presentation type in a window as narrow for its type as a 5:4 projector (900x800: type
# 1.3x, 690 px at scale 1): more columns than the seven go, and the names keep their room.
in_xvfb "$headroom" --presentation --db "$db" --scene "$out/curves.json" --size 900x800 --screenshot "$out/projector.png" \
  --frames 6 --state-out "$out/projector.state.json" || fail "projector: headroom exited with $?"
[ "$(state_value "$out/projector.state.json" table_columns_dropped)" -ge 8 ] || fail "projector: fewer than 8 columns left out"
[ "$(state_value "$out/projector.state.json" table_names_clipped)" -eq 0 ] || fail "projector: run names cut short"
grep -q '"curves_controls_overflow": false' "$out/projector.state.json" || fail "projector: the curves' controls run past the window"
# The worker bar offers the suite and scale this DB was last enqueued with, not the first file.
grep -q '"enqueue": "vb_attention_ratio quick"' "$out/curves.state.json" || fail "curves: the worker bar does not offer the DB's own suite"
[ "$(state_value "$out/curves.state.json" plots_drawn)" -ge 1 ] || fail "curves: no plot drawn"

# Exports of the shown curves: CSV rows for every selected run, an SVG with one line per run.
rm -f "$out/export.csv" "$out/export.svg"
shot export "{\"view\": \"Explorer\", \"explorer\": {\"export\": \"$out/export\", \"select\": [\"th-heads/multi-head/heads=2\", \"th-heads/talking-heads/heads=2\"]}}"
[ -f "$out/export.csv" ] || fail "export: no CSV written"
head -1 "$out/export.csv" | grep -q '^series,run,metric,step,x,y,y_min,y_max' || fail "export: CSV header"
[ "$(grep -c 'th-heads/talking-heads/heads=2' "$out/export.csv")" -ge 3 ] || fail "export: the talking-heads run's points are missing"
grep -q '<svg' "$out/export.svg" || fail "export: no SVG written"
[ "$(grep -o '<polyline' "$out/export.svg" | wc -l)" -ge 2 ] || fail "export: expected a polyline per run in the SVG"
grep -q 'talking-heads/heads=2' "$out/export.svg" || fail "export: the SVG legend lacks the run"

# A scene's selection below the rows in view: the table scrolls to it.
shot scrolled '{"view": "Explorer", "explorer": {"select": ["vb-attention-ratio/ratio-8/width=12,seed=1"]}}'
grep -q '"table_focused_row_visible": true' "$out/scrolled.state.json" || fail "scrolled: the selected last run is not in view"

shot filtered '{"view": "Explorer", "explorer": {"filter": "kind=talking-heads h>=8", "select": ["th-heads/talking-heads/heads=8"]}}'
[ "$(state_value "$out/filtered.state.json" runs_shown)" -eq 1 ] || fail "filter: expected exactly one talking-heads run with h >= 8"

rm -f "$out/figure.csv"
shot figures "{\"view\": \"Explorer\", \"explorer\": {\"tab\": \"figures\", \"figure\": \"th-heads\", \"export\": \"$out/figure\"}}"
[ "$(state_value "$out/figures.state.json" figures)" -eq 2 ] || fail "figures: expected one figure per stored suite (2)"
[ "$(state_value "$out/figures.state.json" plots_drawn)" -ge 2 ] || fail "figures: expected ours and the paper's plots"
# The figure's table as CSV (the tab's CSV button): our 6 quick runs, then TH Table 1's rows.
[ -f "$out/figure.csv" ] || fail "figures: no CSV written"
head -1 "$out/figure.csv" | grep -q '^figure,source,series,x,x_category,value,min,max,sd,runs_done,runs,citation' || fail "figures: CSV header"
[ "$(grep -c '^th-heads,ours,' "$out/figure.csv")" -eq 6 ] || fail "figures: expected a CSV line per quick run"
grep -q '^th-heads,paper,TH Table 1: talking-heads,48,,1.903,' "$out/figure.csv" || fail "figures: TH Table 1's h = 48 row is missing"
# With no figure named, the tab shows the figure of what the table shows: the selected runs' suite,
# else (none of them in a figure) the filtered rows'. th-heads is the first figure, so the filter's
# shot tells the two apart; the selection wins over rows shown of another suite.
shot figures_filtered '{"view": "Explorer", "explorer": {"tab": "figures", "filter": "vb-attention-ratio"}}'
grep -q '"figure": "vb-attention-ratio"' "$out/figures_filtered.state.json" || fail "figures: a filter to vb-attention-ratio shows another suite's figure"
# Runs in no figure: the tab names their suite, so the figure it still shows is not taken for theirs.
shot figures_unplaced '{"view": "Explorer", "explorer": {"tab": "figures", "filter": "my-sweep"}}'
grep -q '"figure_unplaced": "my-sweep"' "$out/figures_unplaced.state.json" || fail "figures: runs in no figure are not named as such"
grep -q '"figure_unplaced": ""' "$out/figures_filtered.state.json" || fail "figures: runs in a figure are named as in none"
shot figures_selected '{"view": "Explorer", "explorer": {"tab": "figures", "filter": "kind=multi-head", "select": ["th-heads/multi-head/heads=2"]}}'
grep -q '"figure": "th-heads"' "$out/figures_selected.state.json" || fail "figures: a selected th-heads run shows another suite's figure"

shot run '{"view": "Explorer", "explorer": {"tab": "run", "select": ["th-heads/talking-heads/heads=8"]}}'
[ "$(state_value "$out/run.state.json" heatmaps_drawn)" -ge 2 ] || fail "run: expected the P_l and P_w replay maps"

shot lab '{"view": "Explorer", "explorer": {"open_in_lab": "th-heads/talking-heads/heads=8"}}'
grep -q '"view": "Lab"' "$out/lab.state.json" || fail "open in lab: the lab tab is not shown"
grep -q '"kind": "talking-heads"' "$out/lab.state.json" || fail "open in lab: the lab does not show the run's model"
[ "$(state_value "$out/lab.state.json" heatmaps_drawn)" -eq 8 ] || fail "open in lab: expected the 8 heads' maps"

# open_shipped NAME DB_NAME FILE MIN_RUNS: `--db DB_NAME` opens FILE, a database Headroom ships,
# read-only (the file unchanged, no journal files beside it), with at least MIN_RUNS runs.
open_shipped() {
  local name=$1 db=$2 file=$3 min_runs=$4 sum
  sum=$(md5sum < "$file")
  in_xvfb "$headroom" --db "$db" --view explorer --screenshot "$out/$name.png" --frames 6 \
    --state-out "$out/$name.state.json" || fail "$name: headroom exited with $?"
  grep -q "\"db\": \".*/${file#"$assets"/}\"" "$out/$name.state.json" || fail "$name: $file is not open"
  grep -q '"error": ""' "$out/$name.state.json" || fail "$name: $file reported an error"
  [ "$(state_value "$out/$name.state.json" runs)" -ge "$min_runs" ] || fail "$name: fewer than $min_runs runs shown"
  no_blocking_io "$out/$name.state.json" "$name"
  [ "$(md5sum < "$file")" = "$sum" ] || fail "$name: $file was modified"
  [ ! -e "$file-wal" ] && [ ! -e "$file-shm" ] || fail "$name: opening $file left journal files"
}

# The results Headroom ships ("@results"), and a run in it opens in the lab with its weights.
open_shipped results @results "$assets/results/headroom_results.sqlite" 1
# With no scene, the newest suite's runs are selected, and the table scrolls to them (sorted by
# suite, the shipped DB's newest suite lies far below the first rows).
[ "$(state_value "$out/results.state.json" selected)" -ge 1 ] || fail "results: no runs selected by default"
grep -q '"table_focused_row_visible": true' "$out/results.state.json" || fail "results: the default selection is not in view"
# So in presentation type on a 1024x768 projector, where the hidden suite column moves the sort to
# the names after the first rows are in, and the selection lies ~300 rows down.
in_xvfb "$headroom" --presentation --db @results --view explorer --size 1024x768 --screenshot "$out/results_projector.png" \
  --frames 6 --state-out "$out/results_projector.state.json" || fail "results_projector: headroom exited with $?"
grep -q '"table_focused_row_visible": true' "$out/results_projector.state.json" ||
  fail "results_projector: the default selection is not in view"
printf '%s\n' '{"view": "Explorer", "explorer": {"db": "@results", "open_in_lab": "th-head-dims/6-24-6/seed=0"}}' \
  > "$out/results_lab.json"
in_xvfb "$headroom" --scene "$out/results_lab.json" --screenshot "$out/results_lab.png" --frames 6 \
  --state-out "$out/results_lab.state.json" || fail "results in lab: headroom exited with $?"
grep -q '"view": "Lab"' "$out/results_lab.state.json" || fail "results in lab: the lab tab is not shown"
grep -q '"kind": "talking-heads"' "$out/results_lab.state.json" || fail "results in lab: the lab lacks the run's model"
grep -q '"heads": 16' "$out/results_lab.state.json" || fail "results in lab: expected the run's 16 heads"

# A worker killed outright leaves its run "running" in the DB: the table and the Run tab say it was
# interrupted, and how to resume it.
killed="$out/killed.sqlite"
rm -f "$killed" "$killed-wal" "$killed-shm"
"$worker" train --db "$killed" --name killed --corpus copy --d-model 32 --heads 4 --layers 1 --steps 300 \
  --crash-after-step 50 --quiet >/dev/null 2>&1
[ $? -eq 137 ] || fail "killed: the worker did not die at --crash-after-step"
printf '%s\n' '{"view": "Explorer", "explorer": {"tab": "run", "select": ["killed"]}}' > "$out/killed.json"
in_xvfb "$headroom" --db "$killed" --scene "$out/killed.json" --screenshot "$out/killed.png" --frames 6 \
  --state-out "$out/killed.state.json" || fail "killed: headroom exited with $?"
[ "$(state_value "$out/killed.state.json" runs_without_worker)" -eq 1 ] || fail "killed: the run does not read as interrupted"
no_blocking_io "$out/killed.state.json" killed
"$worker" status --db "$killed" | grep -q "^run 1 interrupted at step" || fail "killed: status does not say the run was interrupted"

# A paper-scale export shipped with Headroom ("@paper/<suite>", th_extreme_heads' 4 runs); an
# unknown suite is named in the window with the ones there are.
open_shipped paper @paper/th_extreme_heads "$assets/results/paper/th_extreme_heads_gpu.sqlite" 4
in_xvfb "$headroom" --db @paper/nope --view explorer --screenshot "$out/paper_bad.png" --frames 4 \
  --state-out "$out/paper_bad.state.json" || fail "paper, unknown: headroom exited with $?"
grep -q 'names no paper-scale results shipped with Headroom (there are @paper/th_extreme_heads' "$out/paper_bad.state.json" ||
  fail "paper, unknown: the window does not say which paper-scale results there are"

# A foreign file: explained in the window, never modified.
printf 'not a database, just notes\n' > "$out/notes.sqlite"
before=$(md5sum < "$out/notes.sqlite")
in_xvfb "$headroom" --db "$out/notes.sqlite" --view explorer --screenshot "$out/foreign.png" --frames 4 \
  --state-out "$out/foreign.state.json" || fail "foreign: headroom exited with $?"
grep -q '"error": ".*notes.sqlite' "$out/foreign.state.json" || fail "foreign: no message naming the file"
no_blocking_io "$out/foreign.state.json" foreign
[ "$(md5sum < "$out/notes.sqlite")" = "$before" ] || fail "foreign: the file was modified"
# First launch without --db: the default DB is created in the data dir and the quick suites offered.
rm -rf "$out/data"
XDG_DATA_HOME="$out/data" in_xvfb "$headroom" --view explorer --screenshot "$out/first.png" --frames 4 \
  --state-out "$out/first.state.json" || fail "first launch: headroom exited with $?"
[ -f "$out/data/headroom/experiments.sqlite" ] || fail "first launch: no default DB in \$XDG_DATA_HOME/headroom"
no_blocking_io "$out/first.state.json" "first launch"
grep -q "\"db\": \"$out/data/headroom/experiments.sqlite\"" "$out/first.state.json" || fail "first launch: the default DB is not open"
[ "$(state_value "$out/first.state.json" runs)" -eq 0 ] || fail "first launch: a new DB should have no runs"
"$worker" status --db "$out/data/headroom/experiments.sqlite" --json >/dev/null || fail "first launch: the new DB is not a Headroom DB"
echo "PASS"

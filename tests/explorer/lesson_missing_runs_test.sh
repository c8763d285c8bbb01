#!/usr/bin/env bash
# lesson_missing_runs_test.sh HEADROOM WORKER ASSETS OUTDIR
# A lesson's Explorer steps on a database that lacks what they show: the step is drawn with the
# reason in place of its panel (no figure, no waiting for a figure that never comes), and the
# reason names the suite file or the run that would fill it.
set -u
here="$(cd "$(dirname "$0")/../gui" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 worker=$2 assets=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
db="$out/queued.sqlite"
# Queued runs of one suite, none trained: the DB has rows, but not vb-rank's, and no run "nope".
"$worker" enqueue "$assets/suites/th_head_dims.toml" --scale quick --db "$db" >/dev/null || fail "enqueue failed"
cat >"$out/lesson.toml" <<TOML
title = "Stored runs that are not there"

[[step]]
title = "A figure of a suite the DB lacks"
view = "Explorer"
focus = "figures"
text = "VB Fig. 2 from stored runs."
[step.explorer]
db = "$db"
figure = "vb-rank"

[[step]]
title = "A run the DB lacks"
view = "Explorer"
focus = "replay"
text = "A run's projections, replayed."
[step.explorer]
db = "$db"
select = ["nope/seed=0"]
TOML
start=$(date +%s)
xvfb-run -a -s "-screen 0 1024x768x24" "$headroom" --lesson "$out/lesson.toml" --handout "$out/handout" \
  --size 1024x768 2>"$out/stderr.txt"
rc=$?
cat "$out/stderr.txt" >&2
[ "$rc" -eq 0 ] || fail "headroom exited with $rc, expected 0"
json="$out/handout/lesson.json"
[ -f "$json" ] || fail "no $json"
grep -qF "has no runs of the suite vb-rank. Make them with: headroom-worker run assets/suites/vb_rank.toml --scale full --db $db" "$json" ||
  fail "step 1 does not say that the DB lacks vb-rank and how to make it (see $json)"
grep -qF "has no run named nope/seed=0." "$json" || fail "step 2 does not say that the DB lacks the run (see $json)"
# Drawn with its reason is settled: neither step waited out the 30 s limit.
if grep -q "did not settle" "$out/stderr.txt"; then fail "a step waited for a panel that cannot be drawn"; fi
echo "PASS in $(($(date +%s) - start)) s"

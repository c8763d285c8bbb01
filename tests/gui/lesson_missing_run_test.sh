#!/usr/bin/env bash
# lesson_missing_run_test.sh HEADROOM OUTDIR
# A lesson whose steps open stored runs that are not there (a run name the shipped results do
# not have, a DB file that does not exist), each in a focused Theorem panel: the handout must show
# every step settled, the lab's own model, and the panel itself saying what is missing (the
# controls column that usually says it is hidden while a panel is focused).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
lesson="$out/missing_run.toml"
cat >"$lesson" <<'TOML'
title = "Runs that are not there"

[[step]]
title = "A run the results do not have"
focus = "theorem"
text = "The lab should say the run is missing."
[step.lab]
stored_run = { name = "no-such-suite/no-such-run" }

[[step]]
title = "A DB that does not exist"
focus = "theorem"
text = "The lab should say the file is missing."
[step.lab]
stored_run = { name = "th-head-dims/6-24-6/seed=0", db = "/nonexistent/headroom-results.db" }
TOML
xvfb-run -a -s "-screen 0 1280x800x24" "$headroom" --lesson "$lesson" --handout "$out/handout" --size 1280x800
rc=$?
[ "$rc" -eq 0 ] || fail "headroom exited with $rc, expected 0 (the handout is in $out/handout)"
python3 - "$out/handout/lesson.json" <<'PY' || fail "the handout does not say what is missing (it is in $out/handout)"
import json, sys
doc = json.load(open(sys.argv[1]))
steps = doc["steps"]
want = [("no-such-suite/no-such-run", "there is no run named"), ("/nonexistent/headroom-results.db", "")]
problems = []
if len(steps) != len(want):
    problems.append(f"{len(steps)} steps in the handout, expected {len(want)}")
for step, (name, phrase) in zip(steps, want):
    state = step["view_state"]
    said = state.get("panel_problem", "")
    if state.get("panel") != "theorem":
        problems.append(f"step '{step['title']}': panel {state.get('panel')!r} drawn, expected 'theorem'")
    if name not in said or phrase not in said or "showing the lab's own model instead" not in said:
        problems.append(f"step '{step['title']}': the panel says {said!r}, expected it to name {name!r}")
    if "stored_run" in state:
        problems.append(f"step '{step['title']}': the lab claims a stored run: {state['stored_run']}")
    if not state.get("wait", {}).get("snapshot_valid"):
        problems.append(f"step '{step['title']}': no model shown: {state.get('wait')}")
    if not (state.get("theorem") or {}).get("method"):
        problems.append(f"step '{step['title']}': the Theorem tab has no answer: {state.get('theorem')}")
if problems:
    sys.exit("FAIL: " + "; ".join(problems))
print("the panel names each missing run or DB:", [s["view_state"]["panel_problem"] for s in steps])
PY
echo "PASS"

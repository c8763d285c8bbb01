#!/usr/bin/env bash
# lesson_catch_up_test.sh HEADROOM LESSON STEP OUTDIR
# A lesson step that goes on with the weights earlier steps trained (keep_weights) shows the same
# trained model however it is reached:
#   1. opened at STEP (--lesson-step) it trains those steps first: its handout's STEP equals the
#      handout played from step 1 (training step and loss on the input, to the last bit);
#   2. moved past a training step before that training ends (Right twice, at once), the training
#      still finishes: the lab is at the lesson's full step count, not where the key cut it.
set -u
headroom=$1 lesson=$2 step=$3 out=$4
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
rm -rf "$out"
mkdir -p "$out"
in_xvfb "$headroom" --lesson "$lesson" --handout "$out/in_order" --size 1280x800 >/dev/null ||
  fail "the handout played from step 1 failed"
in_xvfb "$headroom" --lesson "$lesson" --lesson-step "$step" --handout "$out/opened_at" --size 1280x800 >/dev/null ||
  fail "the handout opened at step $step failed"
python3 - "$out" "$step" <<'PY' || fail "opened at step $step, the lesson shows another model"
import json, sys
out, step = sys.argv[1], int(sys.argv[2])
def at(name):
    steps = json.load(open(f"{out}/{name}/lesson.json"))["steps"]
    s = next(s for s in steps if s["step"] == step)["view_state"]
    return s["training_step"], s["input_loss"]
in_order, opened_at = at("in_order"), at("opened_at")
print(f"step {step} played in order: trained {in_order[0]} steps, loss on the input {in_order[1]!r}")
print(f"step {step} opened at once:  trained {opened_at[0]} steps, loss on the input {opened_at[1]!r}")
sys.exit(0 if in_order == opened_at and in_order[0] > 0 else 1)
PY
trained=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['steps'][-1]['view_state']['training_step'])" \
  "$out/in_order/lesson.json")

command -v xdotool >/dev/null || { echo "SKIP (part 2): needs xdotool"; echo PASS; exit 0; }
open_window "$out" "$headroom" --lesson "$lesson" --state-out "$out/state.json"
xdotool key --window "$win" Right Right   # onto the training step and off it at once
sleep 8
close_window "Right, Right"
state_equals "Right twice at once" "$out/state.json" "j['lab_snapshot']['training_step']" "$trained"
echo PASS

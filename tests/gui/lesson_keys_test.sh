#!/usr/bin/env bash
# lesson_keys_test.sh HEADROOM LESSON OUTDIR
# Plays a lesson in a real window (Xvfb + xdotool) with the keys a presentation clicker sends and
# checks through --state-out where it ended: Right, Page Down and Space go forward, Left and Page Up
# back, N shows the speaker notes, and a click on the bar's next button counts once (the button's
# keyboard focus must not turn a later Space into two steps).
set -u
headroom=$1 lesson=$2 out=$3
. "$(cd "$(dirname "$0")" && pwd)/gui_test_lib.sh"
mkdir -p "$out"
rm -f "$out/state.json"
open_window "$out" "$headroom" --lesson "$lesson" --state-out "$out/state.json"
press() { xdotool key --window "$win" "$1"; sleep 0.4; }
press Right      # 2
press Next       # 3 (Page Down)
press space      # 4
press Left       # 3
press Prior      # 2 (Page Up)
press n          # notes on
# The bar's next button (the second button of the lesson bar at 1280x800; see lesson_presenter.cpp),
# then Space: two steps forward, not three.
xdotool mousemove --window "$win" 98 60 click 1; sleep 0.4   # 3
press space      # 4
sleep 0.5
xdotool key --window "$win" ctrl+q
wait $app || { echo "FAIL: headroom exited with $?"; exit 1; }
[ -f "$out/state.json" ] || { echo "FAIL: no state written"; exit 1; }
step=$(sed -n '/"lesson"/,/}/p' "$out/state.json" | grep -o '"step": [0-9]*' | head -n 1 | grep -o '[0-9]*$')
notes=$(sed -n '/"lesson"/,/}/p' "$out/state.json" | grep -o '"notes_shown": [a-z]*' | head -n 1 | grep -o '[a-z]*$')
echo "after the keys: step=$step notes_shown=$notes"
[ "$step" = "4" ] || { echo "FAIL: expected step 4 after Right, Page Down, Space, Left, Page Up, a click on next and Space"; exit 1; }
[ "$notes" = "true" ] || { echo "FAIL: N did not show the speaker notes"; exit 1; }
echo PASS

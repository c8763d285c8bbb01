#!/usr/bin/env bash
# idle_test.sh HEADROOM OUTDIR
# A window with nothing to do waits for input instead of drawing 60 frames a second
# (app/gui/frame_pacing.h): a few frames a second while idle, the frame cap again as soon as the
# mouse moves, and back to idle a second after it stops. Frames are counted from the state the
# window writes on SIGUSR1 (not in automation mode: --frames and --screenshot keep every frame).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
headroom=$1 out=$2
command -v Xvfb >/dev/null && command -v xdotool >/dev/null || { echo "SKIP: needs Xvfb and xdotool"; exit 77; }
rm -rf "$out" && mkdir -p "$out"
display=":$(( (RANDOM % 400) + 100 ))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill $app $xvfb_pid 2>/dev/null' EXIT
sleep 1
export DISPLAY=$display XDG_CONFIG_HOME="$out/config" HOME="$out/home"
mkdir -p "$HOME"
"$headroom" --view About --size 800x600 --state-out "$out/state.json" 2>"$out/err.txt" &
app=$!
win=$(timeout 20 xdotool search --sync --name '^Headroom$' | head -n 1)
[ -n "$win" ] || fail "no window titled Headroom: $(cat "$out/err.txt")"
frames() {  # the frames drawn so far, from a fresh state
  rm -f "$out/state.json"
  kill -USR1 "$app" || fail "headroom exited: $(cat "$out/err.txt")"
  for _ in $(seq 100); do
    [ -s "$out/state.json" ] && python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' \
      "$out/state.json" 2>/dev/null && return
    sleep 0.05
  done
  fail "no state after SIGUSR1"
}
sleep 3  # startup, and the second of full rate after it
f0=$(frames); sleep 3; f1=$(frames)
idle=$((f1 - f0))
echo "idle: $idle frames in 3 s"
# 4 a second while idle (plus the SIGUSR1 wake-ups); the frame cap would be ~180.
[ "$idle" -le 30 ] || fail "$idle frames in 3 s of idling, expected at most 30 (waiting for events)"
[ "$idle" -ge 3 ] || fail "$idle frames in 3 s of idling, expected a few (an idle window still draws 4 a second)"
for x in $(seq 100 20 500); do xdotool mousemove --window "$win" "$x" 300; sleep 0.02; done
f2=$(frames); sleep 0.5; f2b=$(frames)
after=$((f2b - f2))
echo "the half second after the mouse stopped: $after frames"
# Input keeps the frame cap for a second (hover highlights, tooltips): idle would draw 2 here.
[ "$after" -ge 8 ] || fail "$after frames in the half second after input, expected the frame cap (at least 8)"
sleep 1.5; f3=$(frames); sleep 3; f4=$(frames)
again=$((f4 - f3))
echo "idle again: $again frames in 3 s"
[ "$again" -le 30 ] || fail "$again frames in 3 s after the mouse stopped, expected at most 30"
kill -TERM "$app"
wait "$app" || fail "headroom exited with $? after SIGTERM"
echo "PASS"

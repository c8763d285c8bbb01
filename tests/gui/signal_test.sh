#!/usr/bin/env bash
# signal_test.sh HEADROOM OUTDIR
# SIGTERM and SIGINT (Ctrl+C in a terminal) close the window as its close button does: exit 0,
# one line saying so, and --bench-frames prints what it measured before the signal (the soak
# script, scripts/soak.sh, stops the GUI this way).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
headroom=$1 out=$2
command -v Xvfb >/dev/null || { echo "SKIP: needs Xvfb"; exit 77; }
mkdir -p "$out"
display=":$(( (RANDOM % 400) + 100 ))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill $xvfb_pid 2>/dev/null' EXIT
sleep 1
export DISPLAY=$display XDG_CONFIG_HOME="$out/config"
for sig in TERM INT; do
  "$headroom" --bench-frames 100000000 --size 800x600 >"$out/$sig.json" 2>"$out/$sig.err" &
  app=$!
  # Until it is measuring frames (its first 10 are warm-up), then the signal.
  sleep 4
  kill -0 "$app" 2>/dev/null || fail "headroom exited before SIG$sig: $(cat "$out/$sig.err")"
  kill -"$sig" "$app"
  rc=0
  timeout 20 tail --pid="$app" -f /dev/null || fail "headroom still running 20 s after SIG$sig"
  wait "$app" || rc=$?
  [ "$rc" -eq 0 ] || fail "after SIG$sig headroom exited with $rc, expected 0; stderr: $(cat "$out/$sig.err")"
  grep -q "SIG$sig received; closed cleanly" "$out/$sig.err" || fail "no 'closed cleanly' line after SIG$sig: $(cat "$out/$sig.err")"
  python3 - "$out/$sig.json" "$sig" <<'PY' || fail "no bench JSON after SIG$sig: $(cat "$out/$sig.json")"
import json, sys
j = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])
assert j["stopped_by_signal"] == "SIG" + sys.argv[2], j
assert j["frames"] > 0 and j["frame_ms_p95"] > 0, j
assert "frame_ms_p95_first_half" in j and "frame_ms_p95_second_half" in j, j
PY
done
echo "PASS"

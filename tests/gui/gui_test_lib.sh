# Shared helpers for the GUI end-to-end tests (sourced, not run).
# A virtual display for the window; exit 77 (ctest SKIP_RETURN_CODE) when it cannot exist.
require_xvfb() {
  if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "SKIP: xvfb-run is not installed (apt-get install xvfb xauth)"
    exit 77
  fi
}

# Runs a command on a fresh 1280x800 virtual screen.
in_xvfb() {
  xvfb-run -a -s "-screen 0 1280x800x24" "$@"
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# For tests that drive the window with xdotool: `open_window OUT HEADROOM ARGS...` starts Xvfb
# (1280x800) and headroom with ARGS (plus --size 1280x800 --frames 100000, so it outlasts the
# input; the test ends it with Ctrl+Q), settings in OUT/config, and sets $app (its pid) and $win
# (its window). Exit 77 without Xvfb or xdotool; Xvfb is stopped on exit.
open_window() {
  local out=$1 headroom=$2
  shift 2
  command -v Xvfb >/dev/null && command -v xdotool >/dev/null || { echo "SKIP: needs Xvfb and xdotool"; exit 77; }
  local display=":$(( (RANDOM % 400) + 500 ))"
  Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  trap 'kill $xvfb_pid 2>/dev/null' EXIT
  sleep 1
  export DISPLAY=$display XDG_CONFIG_HOME="$out/config"
  "$headroom" "$@" --size 1280x800 --frames 100000 &
  app=$!
  win=$(timeout 20 xdotool search --sync --name '^Headroom$' | head -n 1)
  [ -n "$win" ] || fail "no window titled Headroom"
  sleep 2
}

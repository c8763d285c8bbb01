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
# (1280x800) and headroom with ARGS (plus --size 1280x800, or HEADROOM_TEST_SIZE, and --frames 100000, so it outlasts the
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
  "$headroom" "$@" --size "${HEADROOM_TEST_SIZE:-1280x800}" --frames 100000 &
  app=$!
  win=$(timeout 20 xdotool search --sync --name '^Headroom$' | head -n 1)
  [ -n "$win" ] || fail "no window titled Headroom"
  sleep 2
}

# Ends what open_window started: Ctrl+Q to the window (the app writes its --state-out), waits for
# it (a non-zero exit fails the test, named by $1) and stops its Xvfb, so a test may open another.
close_window() {
  xdotool key --window "$win" ctrl+q
  wait $app || fail "$1: headroom exited with $?"
  kill $xvfb_pid 2>/dev/null
}

# state_equals NAME FILE EXPR EXPECTED: prints EXPR (Python over j, the parsed --state-out FILE)
# and fails the test unless it equals EXPECTED (a Python literal).
state_equals() {
  python3 - "$2" "$3" "$4" <<'PY' || fail "$1: state check failed ($2)"
import ast, json, sys
j = json.load(open(sys.argv[1]))
got, expected = eval(sys.argv[2], {"j": j}), ast.literal_eval(sys.argv[3])
print(sys.argv[2], "=", repr(got), "expected", repr(expected))
sys.exit(0 if got == expected else 1)
PY
}

# fresh_home OUT: an empty OUT with a home of its own (HOME, XDG_DATA_HOME under OUT/home), so the
# window starts as on a first launch: no settings, no recent files, no default database.
fresh_home() {
  rm -rf "$1" && mkdir -p "$1/home"
  export HOME="$1/home" XDG_DATA_HOME="$1/home/data"
}

# wait_for_state FILE EXPR [SECONDS]: with a window from open_window started with --state-out FILE,
# asks for the state (SIGUSR1) every half second until EXPR (Python over j, the parsed state) holds,
# for at most SECONDS (default 120: a loaded machine's niced background threads can be slow).
# Returns non-zero when it never held; FILE then holds the last state.
wait_for_state() {
  local file=$1 expr=$2 seconds=${3:-120} i
  for i in $(seq $((seconds * 2))); do
    rm -f "$file"
    kill -USR1 "$app" 2>/dev/null || return 1
    sleep 0.5
    [ -f "$file" ] && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$file" \
      2>/dev/null && return 0
  done
  return 1
}

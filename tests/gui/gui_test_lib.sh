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

#!/usr/bin/env bash
# expect_exit.sh [--xvfb] CODE PATTERN -- COMMAND...
# Runs COMMAND and checks that it exits with exactly CODE and that its stderr
# contains PATTERN (a fixed string), so error messages stay helpful.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
use_xvfb=0
if [ "$1" = "--xvfb" ]; then use_xvfb=1; shift; fi
code=$1 pattern=$2
shift 2
[ "$1" = "--" ] && shift
if [ $use_xvfb -eq 1 ]; then require_xvfb; fi
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
if [ $use_xvfb -eq 1 ]; then in_xvfb "$@" 2>"$err"; else "$@" 2>"$err"; fi
rc=$?
cat "$err" >&2
[ "$rc" -eq "$code" ] || fail "exit code $rc, expected $code"
grep -qF -- "$pattern" "$err" || fail "stderr does not mention '$pattern'"
echo "PASS: exit $rc with '$pattern'"

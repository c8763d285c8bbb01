#!/usr/bin/env bash
# bench_test.sh HEADROOM CMAKE CHECK_BENCH OUTDIR FRAMES
# --bench-frames prints one JSON line with frame-time median and p95.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 cmake=$2 check_bench=$3 out=$4 frames=$5
mkdir -p "$out"
in_xvfb "$headroom" --bench-frames "$frames" --size 800x600 >"$out/bench.txt"
rc=$?
[ "$rc" -eq 0 ] || fail "headroom --bench-frames exited with $rc, expected 0"
"$cmake" -DOUT="$out/bench.txt" -DFRAMES="$frames" -P "$check_bench" || fail "bench output check failed"
echo "PASS"

#!/usr/bin/env bash
# quick_suite_test.sh WORKER CMAKE CHECK_SCRIPT SUITE OUTDIR
# Runs one suite of assets/suites at its quick scale into a fresh DB and checks that every run
# finished with finite losses.
set -u
worker=$1 cmake=$2 check=$3 suite=$4 out=$5
mkdir -p "$out"
db="$out/$(basename "$suite" .toml).sqlite"
rm -f "$db" "$db-wal" "$db-shm"
"$worker" run "$suite" --scale quick --db "$db" --quiet || { echo "FAIL: run exited with $?"; exit 1; }
"$worker" status --db "$db" --json >"$out/status.json" || { echo "FAIL: status exited with $?"; exit 1; }
"$cmake" -DSTATUS="$out/status.json" -P "$check" || exit 1
echo PASS

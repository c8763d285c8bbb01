#!/usr/bin/env bash
# install_test.sh BUILD SOURCE CMAKE CPACK PNG_CHECK OUT
# Installs Headroom into a temporary prefix, hides the build and source trees (a private mount
# namespace with empty file systems over them: as if they had been moved away), and runs what
# was installed: the worker trains a quick suite found by name in PREFIX/share/headroom, and the
# GUI opens the result in the explorer (Xvfb screenshot). Then CPack makes the .deb, whose
# dependencies must be Debian packages and on which lintian must report no errors.
# Exit 77 (skip) when a mount namespace, Xvfb, lintian or dpkg-shlibdeps is not available.
set -u
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) cmake=$3 cpack=$4 png_check=$5 out=$6
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
skip() {
  echo "SKIP: $*"
  exit 77
}
for tool in xvfb-run unshare lintian dpkg-shlibdeps; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (scripts/setup.sh installs it)"
done
if [ "$(id -u)" -eq 0 ]; then ns=(unshare --mount); else ns=(unshare --user --map-root-user --mount); fi
"${ns[@]}" true 2>/dev/null || skip "cannot make a private mount namespace here (unshare) to hide the build tree"

rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d /tmp/headroom-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
unset HEADROOM_ASSETS

# 1. cmake --install to a prefix of our choosing.
"$cmake" --install "$build" --prefix "$prefix" >"$out/install.log" 2>&1 || fail "cmake --install failed: $(tail -5 "$out/install.log")"
for f in bin/headroom bin/headroom-worker share/headroom/suites/lrb_heads.toml share/headroom/reference/vb_setups.csv \
  share/applications/headroom.desktop share/icons/hicolor/scalable/apps/headroom.svg \
  share/metainfo/io.github.headroom.headroom.metainfo.xml share/man/man1/headroom.1.gz \
  share/man/man1/headroom-worker.1.gz share/doc/headroom/copyright; do
  [ -s "$prefix/$f" ] || fail "the install lacks $f"
done
for program in headroom headroom-worker; do
  man -l "$prefix/share/man/man1/$program.1.gz" 2>&1 | grep "$program" >/dev/null || fail "the manual page of $program does not render"
  readelf -d "$prefix/bin/$program" | grep -E "RPATH|RUNPATH" | grep -qF -e "$build" -e "$source" &&
    fail "$program still looks for libraries in the build or source tree"
done
appstreamcli validate --no-net "$prefix/share/metainfo/io.github.headroom.headroom.metainfo.xml" >"$out/appstream.log" 2>&1 ||
  fail "AppStream metadata: $(cat "$out/appstream.log")"

# 2. The installed programs with the build and source trees out of sight.
cat >"$work/installed.sh" <<'INNER'
set -u
prefix=$1 work=$2; shift 2
for dir in "$@"; do mount -t tmpfs headroom-hidden "$dir" || { echo "cannot hide $dir"; exit 3; }; done
for dir in "$@"; do [ -z "$(ls -A "$dir")" ] || { echo "$dir is still visible"; exit 3; }; done
W=$prefix/bin/headroom-worker
$W --version || exit 4
$W run lrb_head_size --scale quick --db "$work/runs.sqlite" --quiet || exit 5
$W status --db "$work/runs.sqlite" --json >"$work/status.json" || exit 6
xvfb-run -a -s "-screen 0 1280x800x24" "$prefix/bin/headroom" --db "$work/runs.sqlite" --view Explorer \
  --screenshot "$work/installed.png" --frames 40 --state-out "$work/state.json" || exit 7
INNER
hidden=("$source")
case "$build/" in "$source"/*) ;; *) hidden+=("$build") ;; esac
"${ns[@]}" bash "$work/installed.sh" "$prefix" "$work" "${hidden[@]}" >"$out/installed.log" 2>&1
rc=$?
cat "$out/installed.log"
[ "$rc" -eq 0 ] || fail "the installed programs failed (step $rc; log above)"
cp "$work/installed.png" "$work/state.json" "$work/status.json" "$out/"
"$png_check" "$out/installed.png" 1280 800 || fail "the installed GUI's screenshot is blank or the wrong size"
python3 - "$out/state.json" "$out/status.json" "$prefix/share/headroom" <<'PY' || fail "the installed GUI or worker did not do its job (above)"
import json, sys
explorer = json.load(open(sys.argv[1]))["explorer"]
runs = json.load(open(sys.argv[2]))["runs"]
problems = []
if explorer["assets_dir"] != sys.argv[3]:
    problems.append(f"the GUI read its data from {explorer['assets_dir']}, not {sys.argv[3]}")
if explorer["suites"] < 12:
    problems.append(f"the GUI lists {explorer['suites']} suites, expected the 12 shipped")
if not runs or any(r["status"] != "done" for r in runs):
    problems.append("the worker left runs unfinished: " + ", ".join(f"{r['name']} {r['status']}" for r in runs))
if explorer["runs"] != len(runs) or explorer["error"]:
    problems.append(f"the explorer shows {explorer['runs']} of {len(runs)} runs; error: {explorer['error']!r}")
if explorer["curves_drawn"] < 1:
    problems.append("the explorer drew no curves")
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
PY
echo "installed programs: ok ($(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$out/status.json") runs trained, GUI screenshot $out/installed.png)"

# 3. The .deb: CPack stages the same install under /usr, strips it and asks dpkg-shlibdeps for
#    the library packages.
(cd "$work" && "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb") >"$out/cpack.log" 2>&1 ||
  fail "cpack failed: $(tail -20 "$out/cpack.log")"
deb=$(ls "$work"/deb/headroom_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no headroom_*.deb: $(tail -5 "$out/cpack.log")"
cp "$deb" "$out/"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for needed in libtorch libglfw3 libsqlite3 libopenblas0 fonts-dejavu-core; do
  case "$depends" in *"$needed"*) ;; *) fail "the package does not depend on $needed" ;; esac
done
dpkg-deb -c "$deb" >"$out/contents.txt" || fail "dpkg-deb cannot list $deb"
grep -q "\./usr/bin/headroom-worker$" "$out/contents.txt" || fail "the package lacks /usr/bin/headroom-worker"
grep -q "\./usr/share/headroom/suites/lrb_heads.toml$" "$out/contents.txt" || fail "the package lacks the suites"
# lintian leaves a Berkeley DB (mldbm-elf-*) in its temporary directory: ours, removed at exit.
TMPDIR=$work lintian --fail-on error --tag-display-limit 0 "$deb" >"$out/lintian.log" 2>&1
rc=$?
cat "$out/lintian.log"
[ "$rc" -eq 0 ] || fail "lintian reports errors on $(basename "$deb") (above)"
echo "PASS: installed and packaged ($(basename "$deb"), lintian: $(grep -c '^E:' "$out/lintian.log") errors, $(grep -c '^W:' "$out/lintian.log") warnings)"

#!/usr/bin/env bash
# compare_test.sh HEADROOM SOURCE_DIR OUTDIR
# The explorer's Compare tab on the shipped results DB against scripts/suite_report.py --compare,
# the write-ups' own tool (two implementations, one answer): two selected runs of P_l and of
# multi-head at h = 32 pool their configurations over seeds and suites, and the pairs, per-seed
# differences, mean, sd, standard error and sign count equal what suite_report prints for the same groups. One
# selected configuration alone asks for a second. Pinned comparisons pool as suite_report.py --pool
# pools them.
set -u
here="$(cd "$(dirname "$0")/../gui" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 src=$2 out=$3
fresh_home "$out"
db="$src/assets/results/headroom_results.sqlite"

shot() {  # shot NAME SCENE-JSON
  printf '%s\n' "$2" > "$out/$1.json"
  in_xvfb "$headroom" --scene "$out/$1.json" --screenshot "$out/$1.png" --frames 6 --state-out "$out/$1.state.json" ||
    fail "$1: headroom exited with $?"
}

# A (P_l) in two suites, B (multi-head) in four: the seed check's runs and a repeat of one seed
# in another suite pool with them.
shot pooled '{"view": "Explorer", "explorer": {"db": "@results", "tab": "compare", "filter": "h=32",
  "select": ["th-projections-heads/logits-proj/heads=32,seed=0", "th-projections-heads-seeds/multi-head/heads=32,seed=3"]}}'
python3 "$src/scripts/suite_report.py" "$db" th-projections-heads,th-projections-heads-seeds,th-heads,th-heads-seeds \
  --groups logits-proj/heads=32,multi-head/heads=32 --compare logits-proj/heads=32 multi-head/heads=32 \
  > "$out/suite_report.md" || fail "suite_report.py failed"
python3 - "$out/pooled.state.json" "$out/suite_report.md" <<'PY' || fail "pooled: the Compare tab and suite_report.py disagree"
import json, sys
c = json.load(open(sys.argv[1]))["explorer"]["compare"]
row = next(l for l in open(sys.argv[2]) if l.startswith("| logits-proj/heads=32 - multi-head/heads=32 |"))
cells = [x.strip() for x in row.strip().strip("|").split("|")]
seeds, diffs, mean, sd, se, better = int(cells[1]), cells[2].split(" / "), *cells[3:7]
got = {
    "a": c["a"], "b": c["b"], "pairs": len(c["pairs"]),
    "diffs": [f"{p['difference']:+.4f}" for p in c["pairs"]],
    "mean": f"{c['mean']:+.4f}", "sd": f"{c['sd']:.4f}", "se": f"{c['se']:.4f}",
    "better": f"{c['a_lower']}/{len(c['pairs'])}",
}
want = {
    "a": "logits-proj/heads=32 (5 runs, 2 suites)", "b": "multi-head/heads=32 (6 runs, 4 suites)",
    "pairs": seeds, "diffs": diffs, "mean": mean, "sd": sd, "se": se, "better": better,
}
print("compare tab:", got)
print("suite_report:", want)
sys.exit(0 if got == want and seeds == 5 else 1)
PY
# The parameter line: each pool's count as the DB stores it for the paired runs.
python3 - "$out/pooled.state.json" "$db" <<'PY' || fail "pooled: the parameter line does not match the DB"
import json, sqlite3, sys
c = json.load(open(sys.argv[1]))["explorer"]["compare"]
con = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
count = lambda name: con.execute("SELECT param_count FROM runs WHERE name = ?", (name,)).fetchone()[0]
a = {count(p["a"]) for p in c["pairs"]}
b = {count(p["b"]) for p in c["pairs"]}
assert len(a) == 1 and len(b) == 1, (a, b)
a, b = a.pop(), b.pop()
want = f"A: {a:,} parameters, B: {b:,} (A {a - b:+,}, {100 * (a - b) / b:+.2f}%)"
print("parameters:", c["parameters"], "| expected:", want)
sys.exit(0 if c["parameters"] == want else 1)
PY
# The spreads: sd of the per-seed differences and its standard error, from the pairs themselves.
python3 - "$out/pooled.state.json" <<'PY' || fail "pooled: sd or standard error wrong"
import json, math, statistics, sys
c = json.load(open(sys.argv[1]))["explorer"]["compare"]
d = [p["difference"] for p in c["pairs"]]
sd = statistics.stdev(d)
print("sd", c["sd"], sd, "se", c["se"], sd / math.sqrt(len(d)))
sys.exit(0 if abs(c["sd"] - sd) < 1e-12 and abs(c["se"] - sd / math.sqrt(len(d))) < 1e-12 else 1)
PY
state_equals pooled_curves "$out/pooled.state.json" 'j["explorer"]["compare"]["curves_drawn"]' 5
state_equals pooled_unpaired "$out/pooled.state.json" '(j["explorer"]["compare"]["only_a"], j["explorer"]["compare"]["only_b"])' '([], [])'

# A scene's "export" on this tab writes the pairs as the CSV button does: one line per pair, the
# tab's runs and differences; a stem in a folder that does not exist is refused inline, the file
# not written, the tab still drawn.
pair='"select": ["th-projections-heads/logits-proj/heads=32,seed=0", "th-projections-heads-seeds/multi-head/heads=32,seed=3"]'
rm -f "$out/pairs.csv"
shot export "{\"view\": \"Explorer\", \"explorer\": {\"db\": \"@results\", \"tab\": \"compare\", \"export\": \"$out/pairs\", $pair}}"
python3 - "$out/export.state.json" "$out/pairs.csv" <<'PY' || fail "export: the CSV does not hold the tab's pairs"
import csv, json, sys
c = json.load(open(sys.argv[1]))["explorer"]["compare"]
rows = list(csv.DictReader(open(sys.argv[2])))
print("state:", c["export"], "| CSV rows:", len(rows), "| header:", list(rows[0]) if rows else None)
assert not c["export_error"] and c["export"].startswith("wrote "), c["export"]
assert len(rows) == len(c["pairs"]) == 5, (len(rows), len(c["pairs"]))
for row, pair in zip(rows, c["pairs"]):
    assert (int(row["seed"]), row["a_run"], row["b_run"]) == (pair["seed"], pair["a"], pair["b"]), (row, pair)
    a, b, d = float(row["a_final_val_loss"]), float(row["b_final_val_loss"]), float(row["difference"])
    assert abs(d - pair["difference"]) < 1e-6 and abs((a - b) - d) < 1e-6, (row, pair)
PY
shot export_bad "{\"view\": \"Explorer\", \"explorer\": {\"db\": \"@results\", \"tab\": \"compare\", \"export\": \"$out/no-such-folder/pairs\", $pair}}"
[ ! -e "$out/no-such-folder" ] || fail "export_bad: a folder was made"
python3 - "$out/export_bad.state.json" "$out/no-such-folder/pairs.csv" <<'PY' || fail "export_bad: no inline error naming the file"
import json, sys
c = json.load(open(sys.argv[1]))["explorer"]["compare"]
print("state:", c["export"], c["export_error"])
sys.exit(0 if c["export_error"] and sys.argv[2] in c["export"] and len(c["pairs"]) == 5 else 1)
PY

# Pinned comparisons pool as suite_report.py --pool pools them: the three causal-threshold cells
# of docs/results/th_projections_full.md (P_l minus fixed heads of d_k = floor(n/2) at n = 8, 16,
# 64), pinned by a scene; each cell's seeds, mean and standard error, the pooled mean and its
# standard error, Q and p, and every two cells' difference, equal the script's to the digits it
# prints. A pin naming a run the DB lacks is said inline; the others still pin.
pins='"pin": [["th-projections-context/logits-proj/heads=32,context=8,seed=0", "th-projections-context/multi-head/heads=32,context=8,seed=0"],
  ["th-projections-context16-width/logits-proj-dk8/d_k=8,d_v=8,seed=0", "th-projections-context16-width/fixed-head-dk8/d_k=8,d_v=8,seed=0"],
  ["th-projections-wide-keys/logits-proj-dk32/heads=32,seed=0", "lrb-heads/fixed-head/heads=32"]'
shot pinned "{\"view\": \"Explorer\", \"explorer\": {\"db\": \"@results\", \"tab\": \"compare\", $pair, $pins]}}"
python3 "$src/scripts/suite_report.py" "$db" th-projections-context,th-threshold-n8-seeds,th-threshold-n8-seeds2,th-projections-context16-width,th-threshold-n16-seeds,th-threshold-n16-seeds2,th-projections-wide-keys,lrb-heads,lrb-heads-seeds \
  --pool --compare logits-proj/heads=32,context=8 multi-head/heads=32,context=8 logits-proj-dk8/d_k=8,d_v=8 fixed-head-dk8/d_k=8,d_v=8 \
  logits-proj-dk32/heads=32 fixed-head/heads=32 > "$out/pool_report.md" || fail "suite_report.py --pool failed"
python3 - "$out/pinned.state.json" "$out/pool_report.md" <<'PY' || fail "pinned: the Compare tab's pool and suite_report.py --pool disagree"
import json, sys
c = json.load(open(sys.argv[1]))["explorer"]["compare"]
lines = open(sys.argv[2]).read().splitlines()
start = lines.index("| cell (A - B, final val loss) | seeds | mean | sd | standard error | weight |")
rows = [[x.strip() for x in l.strip().strip("|").split("|")] for l in lines[start + 2:start + 6]]
q_line = lines[lines.index(next(l for l in lines if l.startswith("| cells | Cochran's Q |"))) + 2]
assert [p["label"].split(": ", 1)[0] for p in c["pins"]] == \
    ["th-projections-context", "th-projections-context16-width", "th-projections-wide-keys"], "each label starts with A's suite"
got = [[p["label"].split(": ", 1)[1], str(p["seeds"]), f"{p['mean']:+.4f}", f"{p['sd']:.4f}", f"{p['se']:.4f}",
        f"{p['weight']:.2f}"] for p in c["pins"]]
pooled = c["pooled"]
got.append(["pooled (inverse-variance)", str(pooled["seeds"]), f"{pooled['mean']:+.4f}", "-", f"{pooled['se']:.4f}", "1.00"])
p = pooled["p"]
p = "< 0.0001" if p < 0.0001 else f"{p:.4f}" if p < 0.01 else f"{p:.2f}"
got_q = f"| {len(c['pins'])} | {pooled['q']:.2f} | {pooled['df']} | {p} |"
print("compare tab:", got, got_q)
print("suite_report:", rows, q_line)
assert [r[1:] for r in got] == [r[1:] for r in rows], "cells"
assert [r[0] for r in got] == [r[0] for r in rows], "labels"
assert q_line == got_q, "Q"
# Every two pins' difference and its standard error, as the script's "between cells" table.
start = lines.index("| between cells | difference of means | standard error | difference / standard error |")
want_between = [[x.strip() for x in l.strip().strip("|").split("|")][1:] for l in lines[start + 2:start + 5]]
got_between = [[f"{d['difference']:+.4f}", f"{d['se']:.4f}", f"{d['difference'] / d['se']:+.1f}"] for d in pooled["between"]]
print("between:", got_between, want_between)
assert [(d["i"], d["j"]) for d in pooled["between"]] == [(0, 1), (0, 2), (1, 2)], "between: every two pins in order"
assert got_between == want_between, "between"
assert c["pin_problem"] == "" and pooled["problem"] == ""
PY
shot pinned_missing "{\"view\": \"Explorer\", \"explorer\": {\"db\": \"@results\", \"tab\": \"compare\", $pair, $pins, [\"no/such/run\", \"lrb-heads/fixed-head/heads=32\"]]}}"
# The three good pins pool as they did without the bad one (the Q of the shot above).
q=$(python3 -c 'import json, sys; print(round(json.load(open(sys.argv[1]))["explorer"]["compare"]["pooled"]["q"], 2))' \
  "$out/pinned.state.json") || fail "pinned: no pooled Q in its state"
state_equals pinned_missing "$out/pinned_missing.state.json" \
  '(len(j["explorer"]["compare"]["pins"]), j["explorer"]["compare"]["pin_problem"], round(j["explorer"]["compare"]["pooled"]["q"], 2))' \
  "(3, \"The scene pins a run this DB does not hold: no/such/run.\", $q)"

# With comparisons pinned, the CSV export also writes STEM_pinned.csv: the pinned table as the tab
# shows it (its state), the pooled line with Q, df and p.
rm -f "$out/pinned_pairs.csv" "$out/pinned_pairs_pinned.csv"
shot pinned_export "{\"view\": \"Explorer\", \"explorer\": {\"db\": \"@results\", \"tab\": \"compare\", \"export\": \"$out/pinned_pairs\", $pair, $pins]}}"
python3 - "$out/pinned_export.state.json" "$out/pinned_pairs_pinned.csv" <<'PY' || fail "pinned_export: the pinned CSV is not the tab's pinned table"
import csv, json, math, sys
c = json.load(open(sys.argv[1]))["explorer"]["compare"]
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
print("state:", c["export"], "| CSV rows:", len(rows))
assert [r["row"] for r in rows] == ["1", "2", "3", "pooled"], [r["row"] for r in rows]
for r, p in zip(rows, c["pins"]):
    assert r["comparison"] == p["label"] and int(r["seeds"]) == p["seeds"], (r, p)
    for key, field in (("mean", "mean"), ("sd", "sd"), ("se", "standard_error"), ("weight", "weight")):
        assert float(r[field]) == p[key], (key, r[field], p[key])  # numbers read back exactly
    assert r["q"] == r["df"] == r["p"] == ""
pooled, last = c["pooled"], rows[3]
assert int(last["seeds"]) == pooled["seeds"] and float(last["mean"]) == pooled["mean"] and last["sd"] == ""
assert float(last["standard_error"]) == pooled["se"] and last["weight"] == "1"
assert float(last["q"]) == pooled["q"] and int(last["df"]) == pooled["df"] and float(last["p"]) == pooled["p"]
assert "pinned_pairs_pinned.csv (3 pinned)" in c["export"], c["export"]
PY

# Hovering a pinned row's "farthest" cell lists its gap to every other pin, read from its side,
# each as the pool's between-cells numbers say (the tooltip comes back through --state-out).
printf '%s\n' "{\"view\": \"Explorer\", \"explorer\": {\"db\": \"@results\", \"tab\": \"compare\", $pair, $pins]}}" \
  > "$out/hover.json"
open_window "$out" "$headroom" --scene "$out/hover.json" --state-out "$out/hover.state.json"
# At 1280x800 (this scene: a repeated-seed line above the table) the first pinned row is at
# y ~ 522 and "farthest" at x ~ 1165: row 2, whose gap to row 1 reads from its own side (negated).
xdotool mousemove --window "$win" 1165 542 sleep 0.3 mousemove --window "$win" 1167 542 sleep 1
close_window hover
python3 - "$out/hover.state.json" "$out/pinned.state.json" <<'PY' || fail "hover: the farthest cell's tooltip is not the pool's gaps"
import json, sys
tip = json.load(open(sys.argv[1])).get("tooltip", "")
between = json.load(open(sys.argv[2]))["explorer"]["compare"]["pooled"]["between"]
row = 1  # the second pin
gaps = [(d["j"], d["difference"], d["se"]) if d["i"] == row else (d["i"], -d["difference"], d["se"])
        for d in between if row in (d["i"], d["j"])]
lines = [f"  #{other + 1}: {g:+.4f} (standard error {se:.4f}): {g / se:+.1f}" for other, g, se in gaps]
print("tooltip:", repr(tip))
print("expected lines:", lines)
sys.exit(0 if tip.startswith("#2 minus each other comparison") and tip.split("\n")[1:1 + len(lines)] == lines else 1)
PY

# One configuration selected (two of its seeds): nothing to compare, and the tab says so.
shot one '{"view": "Explorer", "explorer": {"db": "@results", "tab": "compare",
  "select": ["th-projections-heads/logits-proj/heads=32,seed=0", "th-projections-heads/logits-proj/heads=32,seed=1"]}}'
state_equals one_pool "$out/one.state.json" '(j["explorer"]["compare"]["pools"], j["explorer"]["compare"]["a"], j["explorer"]["compare"]["pairs"])' '(1, "", [])'
echo PASS

#!/usr/bin/python3
"""suite_report_test.py REPO OUTDIR: scripts/suite_report.py's --compare and --at tables are the
differences the DB holds, its --interaction table the 2 x 2 interactions it holds, its --pool
tables the cells' standard errors, inverse-variance pooled mean and Cochran's Q computed here, a
name whose runs differ in more than seed and device splits into NAME@SUITE groups (the bare name
refused, naming them), a group's
losses are listed in seed order, --groups reads names that hold commas, --groups picks and orders the table's rows, and every bad input gets one
message and exit 1, with no table printed.

The good case reads the shipped results DB (read-only): one pair of vb-depth-width-long's runs,
whose validation losses at step 5000 and at the end are looked up here with SQL of this test's own
and subtracted, seed by seed; the report's rows must say the same to 4 decimals.
"""
import json, math, os, re, sqlite3, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks

repo, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
script = os.path.join(repo, "scripts", "suite_report.py")
shipped = os.path.join(repo, "assets", "results", "headroom_results.sqlite")
check = Checks("suite_report_test")


def report(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


# The good case: the A - B rows against an independent lookup.
SUITE, A, B = "vb-depth-width-long", "deep/width=32", "shallow/width=44"
db = sqlite3.connect(f"file:{shipped}?mode=ro", uri=True)


def val_losses(group, suites=(SUITE,)):
    """{seed: {step: val_loss}} of the suites' runs in group (name: suite/label/width=..,seed=S)."""
    label, rest = group.split("/")
    found = {}
    for name, run_id, config in db.execute("SELECT r.name, r.id, r.config_json FROM runs r JOIN suites s ON s.id = r.suite_id "
                                   f"WHERE s.name IN ({','.join('?' * len(suites))}) AND r.status = 'done'", suites):
        parts = name.split("/")[1:]
        fields = parts[1].split(",")
        if parts[0] != label or [f for f in fields if not f.startswith("seed=")] != rest.split(","):
            continue
        seed = json.loads(config)["train"].get("seed", 0)  # a suite with one seed leaves it out of names
        found[seed] = dict(db.execute("SELECT m.step, m.value FROM metrics m JOIN metric_series s ON s.id = m.series_id "
                                      "WHERE s.run_id = ? AND s.name = 'val_loss' AND m.value IS NOT NULL", (run_id,)))
    return found


va, vb = val_losses(A), val_losses(B)
check(sorted(va) == sorted(vb) and len(va) >= 2, f"{SUITE}: {A} and {B} share >= 2 finished seeds ({sorted(va)}, {sorted(vb)})")
seeds = sorted(set(va) & set(vb))


def expected_row(step):
    d = [(va[s][step] if step else va[s][max(va[s])]) - (vb[s][step] if step else vb[s][max(vb[s])]) for s in seeds]
    sd = statistics.stdev(d)
    return (f"| {A} - {B} | {len(d)} | {' / '.join(f'{x:+.4f}' for x in d)} | {sum(d) / len(d):+.4f} | "
            f"{sd:.4f} | {sd / math.sqrt(len(d)):.4f} | {sum(x < 0 for x in d)}/{len(d)} |")


good = report(shipped, SUITE, "--at", "5000", "--compare", A, B)
check(good.returncode == 0, f"the good case exits 0 (got {good.returncode}: {good.stderr.strip()})")
lines = good.stdout.splitlines()
check("| A - B (final val loss, per seed) | seeds | per-seed differences | mean | sd | standard error | A better in |" in lines,
      "the final-loss comparison table is printed")
check("| A - B (val loss at step 5000, per seed) | seeds | per-seed differences | mean | sd | standard error | A better in |" in lines,
      "--at 5000 prints a table headed by its step")
for step, what in ((None, "final"), (5000, "step 5000")):
    want = expected_row(step)
    check(want in lines, f"the {what} row is the DB's paired difference: want {want!r}")
# The rows follow their own header: the final row first, the step-5000 row after its header.
if all(x in lines for x in (expected_row(None), expected_row(5000))):
    check(lines.index(expected_row(None)) < lines.index(expected_row(5000)), "the final table comes before the --at table")

# --groups: the table's rows are the named groups, in the order named, and no others; --compare
# still finds the pair.
picked = report(shipped, SUITE, "--groups", f"{B},{A}", "--compare", A, B)
check(picked.returncode == 0, f"--groups exits 0 (got {picked.returncode}: {picked.stderr.strip()})")
rows = [l.split(" | ")[0][2:] for l in picked.stdout.split("\n\n")[0].splitlines()[2:]]
check(rows == [B, A], f"--groups {B},{A}: the rows are those two in that order (got {rows})")
check(expected_row(None) in picked.stdout.splitlines(), "--groups leaves the comparison as it was")

# A pair with one seed has no spread: its sd and standard error read "-", not 0.
paper = os.path.join(repo, "assets", "results", "paper", "vb_depth_width_gpu.sqlite")
one = report(paper, "vb-depth-width", "--compare", "deep/width=232,tokenizer=bpe:2000", "shallow/width=320,tokenizer=bpe:2000")
row = next((l for l in one.stdout.splitlines() if l.startswith("| deep/width=232,tokenizer=bpe:2000 - ")), "")
cells = [c.strip() for c in row.strip("|").split("|")]
check(one.returncode == 0 and len(cells) == 7 and cells[1] == "1" and cells[4:6] == ["-", "-"],
      f"a one-seed pair prints '-' for its sd and standard error (got {row!r})")

# --interaction BOTH ONE OTHER NEITHER: per seed that all four finished, BOTH - ONE - OTHER + NEITHER
# of the final losses; here talking-heads, P_l alone, P_w alone and neither at h = 32, d_k = 32,
# their runs spread over five suites.
I_SUITES = ("th-heads-wide-keys", "th-projections-wide-keys", "th-weights-proj-wide-keys", "lrb-heads", "lrb-heads-seeds")
I_GROUPS = ("talking-heads-dk32/heads=32", "logits-proj-dk32/heads=32", "weights-proj-dk32/heads=32", "fixed-head/heads=32")
final = [{seed: v[max(v)] for seed, v in val_losses(g, I_SUITES).items()} for g in I_GROUPS]
i_seeds = sorted(set.intersection(*(set(f) for f in final)))
check(len(i_seeds) >= 3, f"the four interaction groups share >= 3 finished seeds (got {i_seeds})")
d = [final[0][s] - final[1][s] - final[2][s] + final[3][s] for s in i_seeds]
want = (f"| {I_GROUPS[0]} - {I_GROUPS[1]} - {I_GROUPS[2]} + {I_GROUPS[3]} | {len(d)} | "
        f"{' / '.join(f'{x:+.4f}' for x in d)} | {sum(d) / len(d):+.4f} | {statistics.stdev(d):.4f} | "
        f"{statistics.stdev(d) / math.sqrt(len(d)):.4f} | {sum(x < 0 for x in d)}/{len(d)} |")
inter = report(shipped, ",".join(I_SUITES), "--interaction", *I_GROUPS)
check(inter.returncode == 0, f"--interaction exits 0 (got {inter.returncode}: {inter.stderr.strip()})")
check(want in inter.stdout.splitlines(), f"the interaction row is the DB's: want {want!r}, got {inter.stdout[-400:]!r}")

# The table lists a group's final losses in seed order, whichever suite holds each run: fixed-head's
# seeds 3-4 lie in a suite named before those of seeds 0-2.
fixed = final[3]
want = " / ".join(f"{fixed[s]:.4f}" for s in sorted(fixed))
row = next((l for l in inter.stdout.splitlines() if l.startswith(f"| {I_GROUPS[3]} |")), "")
check(f"| {want} |" in row, f"{I_GROUPS[3]}'s losses in seed order ({want}); got {row!r}")

# --groups reads a group whose name holds commas whole ("multi-head/heads=32,context=8"), beside one
# whose name is the first part of it ("multi-head/heads=32", n = 64), and the context column
# appears because the rows differ in n.
C_SUITES = "th-projections-context,th-projections-heads-seeds,th-heads,th-heads-seeds"
C_GROUPS = ["multi-head/heads=32,context=8", "multi-head/heads=32", "logits-proj/heads=32,context=16"]
commas = report(shipped, C_SUITES, "--groups", ",".join(C_GROUPS))
check(commas.returncode == 0, f"--groups with commas in names exits 0 (got {commas.returncode}: {commas.stderr.strip()})")
table_lines = commas.stdout.split("\n\n")[0].splitlines()
rows = [l.split(" | ")[0][2:] for l in table_lines[2:]]
check(rows == C_GROUPS, f"--groups {','.join(C_GROUPS)}: those three rows in that order (got {rows})")
header = table_lines[0].split(" | ") if table_lines else []
if "n (context)" in header:
    n_at = header.index("n (context)")
    check([l.split(" | ")[n_at] for l in table_lines[2:]] == ["8", "64", "16"], "the n column reads 8, 64, 16")
else:
    check(False, f"a table of runs of three contexts shows an n (context) column (header: {table_lines[:1]})")

# --pool: the three causal-threshold cells of th_projections_full.md (P_l minus fixed heads at d_k =
# floor(n/2), n = 8, 16, 64) as cells of one effect. Means, standard errors, the pooled mean and Q
# computed here from the DB's losses; the report's rows must say the same to 4 (Q: 2) decimals.
P_SUITES = ("th-projections-context", "th-threshold-n8-seeds", "th-threshold-n8-seeds2", "th-projections-context16-width",
            "th-threshold-n16-seeds", "th-projections-wide-keys", "lrb-heads", "lrb-heads-seeds")
P_PAIRS = [("logits-proj/heads=32,context=8", "multi-head/heads=32,context=8"),
           ("logits-proj-dk8/d_k=8,d_v=8", "fixed-head-dk8/d_k=8,d_v=8"),
           ("logits-proj-dk32/heads=32", "fixed-head/heads=32")]
cells = []
for a, b in P_PAIRS:
    fa, fb = ({seed: v[max(v)] for seed, v in val_losses(g, P_SUITES).items()} for g in (a, b))
    d = [fa[s] - fb[s] for s in sorted(set(fa) & set(fb))]
    m = sum(d) / len(d)
    sd = (sum((x - m) ** 2 for x in d) / (len(d) - 1)) ** 0.5
    cells.append((a, b, d, m, sd, sd / len(d) ** 0.5))
check([len(c[2]) for c in cells] == [16, 8, 5], f"the threshold cells hold 16, 8 and 5 seeds (got {[len(c[2]) for c in cells]})")
w = [1 / c[5] ** 2 for c in cells]
pooled = sum(wi * c[3] for wi, c in zip(w, cells)) / sum(w)
q = sum(wi * (c[3] - pooled) ** 2 for wi, c in zip(w, cells))
pooled_run = report(shipped, ",".join(P_SUITES), "--pool", "--compare", *[g for pair in P_PAIRS for g in pair])
check(pooled_run.returncode == 0, f"--pool exits 0 (got {pooled_run.returncode}: {pooled_run.stderr.strip()})")
p_lines = pooled_run.stdout.splitlines()
for a, b, d, m, sd, se in cells:
    want = f"| {a} - {b} | {len(d)} | {m:+.4f} | {sd:.4f} | {se:.4f} |"
    check(any(l.startswith(want) for l in p_lines), f"--pool's cell row {want!r}")
want = f"| pooled (inverse-variance) | 29 | {pooled:+.4f} | - | {sum(w) ** -0.5:.4f} | 1.00 |"
check(want in p_lines, f"--pool's pooled row {want!r}")
want = f"| 3 | {q:.2f} | 2 | {math.exp(-q / 2):.2f} |"
check(want in p_lines, f"--pool's Q row {want!r}")
diff = cells[0][3] - cells[1][3]
se01 = (cells[0][5] ** 2 + cells[1][5] ** 2) ** 0.5
want = f"| ({P_PAIRS[0][0]} - {P_PAIRS[0][1]}) - ({P_PAIRS[1][0]} - {P_PAIRS[1][1]}) | {diff:+.4f} | {se01:.4f} | {diff / se01:+.1f} |"
check(want in p_lines, f"--pool's first cell - cell row {want!r}")

# A small p is printed to four decimals, not as 0.00: the four threshold cells with n = 16's 16
# seeds and n = 32's cell (Q on 3 degrees of freedom; p = erfc(sqrt(q/2)) + sqrt(2q/pi) e^(-q/2)).
F_SUITES = P_SUITES + ("th-threshold-n16-seeds2", "th-threshold-n32")
F_PAIRS = P_PAIRS[:2] + [("logits-proj-dk16/d_k=16,d_v=16@th-threshold-n32", "fixed-head-dk16/d_k=16,d_v=16@th-threshold-n32"),
                         P_PAIRS[2]]
four = report(shipped, ",".join(F_SUITES), "--pool", "--compare", *[g for pair in F_PAIRS for g in pair])
q_rows = [l for l in four.stdout.splitlines() if l.startswith("| 4 | ")]
q4 = float(q_rows[0].split(" | ")[1]) if q_rows else float("nan")
p4 = math.erfc(math.sqrt(q4 / 2)) + math.sqrt(2 * q4 / math.pi) * math.exp(-q4 / 2)
printed = q_rows[0].strip(" |").split(" | ")[-1] if q_rows else ""
# Q is printed rounded to 2 decimals: p from it may differ from the script's in the 4th decimal.
check(four.returncode == 0 and p4 < 0.01 and re.fullmatch(r"0\.\d{4}", printed) is not None
      and abs(float(printed) - p4) <= 1e-4,
      f"a p below 0.01 reads to four decimals: want about {p4:.4f} (Q {q4}), got {q_rows} {four.stderr.strip()}")

# One name, two models: heads of 8 are "fixed-head-dk8/d_k=8,d_v=8" at n = 64 (th-projections-width)
# and at n = 16 (th-projections-context16-width). Named together the suites give two groups,
# NAME@SUITE, each of its own suite's runs and context; the bare name is refused, naming both.
S_SUITES = "th-projections-width,th-projections-context16-width"
S_NAME = "fixed-head-dk8/d_k=8,d_v=8"
S_GROUPS = [f"{S_NAME}@th-projections-width", f"{S_NAME}@th-projections-context16-width"]
both = report(shipped, S_SUITES, "--groups", ",".join(S_GROUPS))
check(both.returncode == 0, f"--groups NAME@SUITE exits 0 (got {both.returncode}: {both.stderr.strip()})")
table_lines = both.stdout.split("\n\n")[0].splitlines()
header = table_lines[0].split(" | ") if table_lines else []
rows = [l.split(" | ") for l in table_lines[2:]]
check([r[0][2:] for r in rows] == S_GROUPS, f"the split name's rows are {S_GROUPS} (got {[r[0] for r in rows]})")
if "n (context)" in header and len(rows) == 2:
    check([r[header.index("n (context)")] for r in rows] == ["64", "16"], "the two groups hold n = 64's and n = 16's runs")
    seeds_done = [r[header.index("seeds done")] for r in rows]
    check(seeds_done == ["3/3", "3/3"], f"each group holds its own suite's 3 runs (got {seeds_done})")
else:
    check(False, f"a table of the two groups with an n column (got {table_lines[:1]})")

# A group pools runs by name across suites; runs of one name but different models are refused.
# A copy of the shipped DB where one of n = 8's multi-head runs says context 9.
mixed = os.path.join(out, "mixed_configs.sqlite")
if os.path.exists(mixed):
    os.remove(mixed)
with sqlite3.connect(mixed) as m:
    db.backup(m)
    rid, cfg = m.execute("SELECT r.id, r.config_json FROM runs r JOIN suites s ON s.id = r.suite_id "
                         "WHERE s.name = 'th-threshold-n8-seeds' AND r.name LIKE '%/multi-head/%' ORDER BY r.id").fetchone()
    cfg = json.loads(cfg)
    cfg["model"]["context"] = 9
    m.execute("UPDATE runs SET config_json = ? WHERE id = ?", (json.dumps(cfg), rid))
# ... and a copy where that run says seed 0, a seed th-projections-context's group already holds.
twice = os.path.join(out, "seed_twice.sqlite")
if os.path.exists(twice):
    os.remove(twice)
with sqlite3.connect(twice) as m:
    db.backup(m)
    cfg["model"]["context"], cfg["train"]["seed"] = 8, 0
    m.execute("UPDATE runs SET config_json = ? WHERE id = ?", (json.dumps(cfg), rid))

# Bad inputs: exit 1, one line naming what is wrong, nothing on stdout (no half a report).
foreign = os.path.join(out, "not_a_db.sqlite")
with open(foreign, "w") as f:
    f.write("this is not SQLite\n")
other = os.path.join(out, "other_program.sqlite")
if os.path.exists(other):
    os.remove(other)
sqlite3.connect(other).execute("CREATE TABLE notes (text TEXT)").connection.commit()
cases = [
    ((shipped, SUITE, "--at", "25OO", "--compare", A, B), "--at takes steps, comma-separated"),
    ((shipped, SUITE, "--at", "-5", "--compare", A, B), "--at takes steps >= 0"),
    ((shipped, SUITE, "--at"), "--at takes steps, comma-separated"),
    ((shipped, "no-such-suite"), "no runs of suite 'no-such-suite'"),
    ((shipped, ","), "name a suite"),
    ((os.path.join(out, "missing.sqlite"), SUITE), "no file"),
    ((foreign, SUITE), "is not an experiments DB Headroom can read"),
    ((other, SUITE), "is not an experiments DB Headroom can read"),
    ((shipped, SUITE, "--compare", A), "--compare takes run groups in pairs"),
    ((shipped, SUITE, "--compare", A, "shallow/width=45"), "no run group 'shallow/width=45'"),
    ((shipped,), "usage: suite_report.py"),
    ((shipped, SUITE, "--groups", f"{A},shallow/width=45"), "--groups: no run group 'shallow/width=45'"),
    ((shipped, SUITE, "--groups"), "--groups takes run groups, comma-separated"),
    ((shipped, SUITE, "--groups", "--compare", A, B), "--groups takes run groups, comma-separated"),
    ((shipped, SUITE, "--interaction", A, B, A), "--interaction takes four run groups"),
    ((shipped, SUITE, "--interaction", A, B, A, "--compare", A, B), "--interaction takes four run groups"),
    ((shipped, SUITE, "--interaction", A, B, A, "shallow/width=45"), "--interaction: no run group 'shallow/width=45'"),
    ((shipped, SUITE, "--pool", "--compare", A, B), "--pool takes two or more --compare pairs"),
    ((shipped, SUITE, "--pool"), "--pool takes two or more --compare pairs"),
    ((shipped, "lrb-heads", "--pool", "--compare", "fixed-head/heads=32", "standard/heads=32",
      "fixed-head/heads=16", "standard/heads=16"), "has 1 paired seeds"),
    ((mixed, "th-projections-context,th-threshold-n8-seeds", "--compare", *P_PAIRS[0]),
     "run group 'multi-head/heads=32,context=8' holds runs of different configurations (model.context = 8 and 9)"),
    ((shipped, S_SUITES, "--compare", S_NAME, S_GROUPS[0]),
     f"run group '{S_NAME}' holds runs of different configurations (model.context = 64 and 16) in {S_SUITES}; "
     f"name one of {S_GROUPS[0]}, {S_GROUPS[1]}"),
    ((twice, "th-projections-context,th-threshold-n8-seeds", "--compare", *P_PAIRS[0]),
     "run group 'multi-head/heads=32,context=8' holds two runs of seed 0"),
]
for args, message in cases:
    r = report(*args)
    shown = " ".join(a if a != shipped else "SHIPPED" for a in args)
    check(r.returncode == 1, f"[{shown}] exits 1 (got {r.returncode})")
    check(r.stdout == "", f"[{shown}] prints no table (got {r.stdout[:80]!r})")
    err = r.stderr.strip().splitlines()
    check(len(err) == 1 and message in err[0], f"[{shown}] says one line with {message!r} (got {r.stderr.strip()[:300]!r})")

check.finish()

#!/usr/bin/python3
"""pos_factors_test.py WORKER REPO OUTDIR: scripts/pos_factors.py measures what it says it measures.

The worker trains a tiny suite on KJV (a factorised positional embedding of rank 2 with three seeds,
and a plain table), keeping weights every 10 steps. Then:
- on the real weights, every stored step of every run has a row, and the effective rank is at most
  what the factorisation allows;
- the step-10 weights are replaced by hand-made ones whose answers follow from their construction
  (orthogonal factor columns, so the singular values are known; rows repeated in pairs, so the
  neighbouring cosines are known), one of them stored as float16 the way an export keeps weights,
  and the printed columns must equal those answers; their sizes are ordered as the runs' final
  losses, so the Spearman row must read +1.00;
- bad input (a file that is not a DB, an unknown suite, a bad --steps) exits non-zero with a message.
"""
import json, math, os, re, shutil, sqlite3, struct, subprocess, sys
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks

worker, repo, out = sys.argv[1:4]
script = os.path.join(repo, "scripts", "pos_factors.py")
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
check = Checks("pos_factors_test")


suite = os.path.join(out, "tiny.toml")
with open(suite, "w") as f:
    f.write("""[suite]
name = "pos-factors-test"
reproduces = "pos_factors.py's test (not a figure)"
paper = "VB"
full_estimate = "seconds"

[base.model]
width = 16
depth = 1
context = 8
mlp_ratio = 2

[base.model.attention]
kind = "multi-head"
heads = 2
causal = true

[base.train]
corpus = "kjv"
tokenizer = "bytes"
steps = 20
batch = 4
lr = 3e-3
warmup = 2
eval_every = 10
eval_batches = 2
log_every = 5
checkpoint_every = 10
seed = 0

[[grid]]
label = "low"
"model.pos_rank" = [2]
"train.seed" = [0, 1, 2]

[[grid]]
label = "plain"
"model.pos_rank" = [0]
"train.seed" = [0]
""")
db = os.path.join(out, "tiny.sqlite")
run = subprocess.run([worker, "run", suite, "--db", db, "--quiet", "--device", "cpu"], capture_output=True, text=True)
if run.returncode != 0:
    sys.exit(f"FAIL: the worker exited with {run.returncode}: {run.stderr}")


def pos_factors(*extra, expect_ok=True):
    r = subprocess.run([sys.executable, script, *extra], capture_output=True, text=True)
    if expect_ok and r.returncode != 0:
        sys.exit(f"FAIL: pos_factors.py {' '.join(extra)} exited with {r.returncode}: {r.stderr}")
    return r


def table_rows(text):
    """{(group, seed, step): [val, rms, ratio, eff, adj]} and {(group, step): [4 Spearman cells]}."""
    rows, corr, group = {}, {}, None
    for line in text.splitlines():
        m = re.match(r"^\*\*(.+?)\*\*$", line)
        if m:
            group = m.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and re.fullmatch(r"\d+", cells[0]) and group:
            rows[(group, int(cells[0]), int(cells[1]))] = [float(c) for c in cells[2:]]
        elif len(cells) == 7 and re.fullmatch(r"\d+", cells[1]) and re.fullmatch(r"\d+", cells[2]):
            corr[(cells[0], int(cells[2]))] = cells[3:]
    return rows, corr


# 1. The real weights.
c = sqlite3.connect(db)
runs = c.execute("SELECT id, name FROM runs ORDER BY id").fetchall()
check(len(runs) == 4, f"the tiny suite made {len(runs)} runs, not 4")
stored = {rid: [s for (s,) in c.execute("SELECT step FROM artifacts WHERE run_id = ? AND kind = 'weights' "
                                        "ORDER BY step", (rid,))] for rid, _ in runs}
check(all(10 in s for s in stored.values()), f"weights at step 10 in every run: {stored}")
rows, _ = table_rows(pos_factors(db, "pos-factors-test").stdout)
for rid, name in runs:
    group = "low/pos_rank=2" if "/low/" in name else "plain/pos_rank=0"
    seed = int(re.search(r"seed=(\d+)", name).group(1))
    for step in stored[rid]:
        row = rows.get((group, seed, step))
        check(row is not None, f"a row for {group} seed {seed} step {step}")
        if row is None:
            continue
        check(all(math.isfinite(v) for v in row), f"finite measures {row}")
        limit = 2 if group.startswith("low") else 8  # rank of P: r_pos, else min(n, d)
        check(0.999 <= row[3] <= limit + 0.005, f"{group} seed {seed}: effective rank {row[3]} in [1, {limit}]")
        check(-1 <= row[4] <= 1 and row[1] > 0 and row[2] > 0, f"{group} seed {seed}: sizes and cosine {row}")


# 2. Hand-made weights with known answers.
def safetensors(tensors, dtype):
    header, data = {}, b""
    for name, (shape, flat) in tensors.items():
        raw = struct.pack(f"<{len(flat)}{'e' if dtype == 'F16' else 'f'}", *flat)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


n, d, vocab = 8, 16, 256
# B (d x 2) with orthonormal columns, so P = A B^T has A's singular values and A's row cosines.
# Its entries, like every hand-made value here, are exact in float16.
proj = [0.0] * (d * 2)
for i, sign in enumerate((1, -1, 1, -1)):
    proj[i * 2 + 0], proj[i * 2 + 1] = 0.5, 0.5 * sign
# Token rows of norm 2 (each a scaled unit vector): |tok| rms = 2.
tok = [0.0] * (vocab * d)
for i in range(vocab):
    tok[i * d + i % d] = 2.0


def factor_a(a, b):
    """Rows (a, 0), (a, 0), (0, b), (0, b), ... : columns orthogonal, of norms a sqrt(n/2), b sqrt(n/2);
    neighbours alternate equal (cos 1) and orthogonal (cos 0): mean adjacent cosine 4/7 for n = 8."""
    rows_ = [(a, 0.0) if (i // 2) % 2 == 0 else (0.0, b) for i in range(n)]
    return [x for r in rows_ for x in r]


def expected(a, b):
    s2 = [a * a * n / 2, b * b * n / 2]
    rms = math.sqrt(sum(s2) / n)
    return dict(rms=rms, ratio=rms / 2.0, eff=sum(s2) ** 2 / sum(v * v for v in s2), adj=4 / 7)


low = [(rid, int(re.search(r"seed=(\d+)", name).group(1))) for rid, name in runs if "/low/" in name]
final = {rid: c.execute("""SELECT m.value FROM metrics m JOIN metric_series s ON s.id = m.series_id
                           WHERE s.run_id = ? AND s.name = 'val_loss' ORDER BY m.step DESC LIMIT 1""",
                        (rid,)).fetchone()[0] for rid, _ in low}
by_loss = sorted(low, key=lambda rs: final[rs[0]])
want = {}
for k, (rid, seed) in enumerate(by_loss):  # the worse the run ends, the larger its P
    a, b = 0.5 * (k + 1), 0.25 * (k + 1) + 0.125
    dtype = "F16" if k == 1 else "F32"
    blob = safetensors({"pos.weight": ([n, 2], factor_a(a, b)), "pos_proj.weight": ([d, 2], proj),
                        "tok.weight": ([vocab, d], tok)}, dtype)
    c.execute("UPDATE artifacts SET bytes = ? WHERE run_id = ? AND kind = 'weights' AND step = 10", (blob, rid))
    want[seed] = expected(a, b)
# The plain table: P itself, rows (3, 0, ...), (3, 0, ...), (0, 1, ...), (0, 1, ...), ...
plain = [rid for rid, name in runs if "/plain/" in name][0]
p = [0.0] * (n * d)
for i in range(n):
    if (i // 2) % 2 == 0:
        p[i * d] = 3.0
    else:
        p[i * d + 1] = 1.0
c.execute("UPDATE artifacts SET bytes = ? WHERE run_id = ? AND kind = 'weights' AND step = 10",
          (safetensors({"pos.weight": ([n, d], p), "tok.weight": ([vocab, d], tok)}, "F32"), plain))
c.commit()
c.close()
want_plain = expected(3.0, 1.0)

rows, corr = table_rows(pos_factors(db, "pos-factors-test", "--steps", "10").stdout)
check(len(rows) == 4, f"--steps 10 gives one row per run: {sorted(rows)}")
for group, seed, w in [("low/pos_rank=2", s, want[s]) for s in want] + [("plain/pos_rank=0", 0, want_plain)]:
    row = rows.get((group, seed, 10))
    if row is None:
        check(False, f"a step-10 row for {group} seed {seed}")
        continue
    for got, key, places in zip(row[1:], ("rms", "ratio", "eff", "adj"), (3, 2, 2, 3)):
        check(abs(got - w[key]) <= 0.5 * 10 ** -places + 1e-9,
              f"{group} seed {seed}: {key} printed {got}, constructed {w[key]:.{places + 2}f}")
spear = corr.get(("low/pos_rank=2", 10))
check(spear is not None and spear[0] == "+1.00" and spear[1] == "+1.00",
      f"Spearman of |P| rms and P / tok with the final loss at step 10 is +1.00: {spear}")

# --init with the DB itself: each run's earliest weights (the hand-made step-10 ones) are its start,
# so at step 10 every cosine with the start is 1, and a plain table has no factors to compare.
text = pos_factors(db, "pos-factors-test", "--steps", "10", "--init", db).stdout
starts = {}
for line in text.splitlines():
    cells = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(cells) == 10 and cells[1] == "10":
        starts.setdefault(cells[0], []).append(cells[7:])
check(sorted(len(v) for v in starts.values()) == [1, 1, 2], f"--init: a row per run with three more cells: {starts}")
for seed, rows_ in starts.items():
    for cells in rows_:
        check(cells[0] == "1.000" and (cells[1:] == ["1.000", "1.000"] or cells[1:] == ["-", "-"]),
              f"--init with itself: seed {seed} at its start reads {cells}")
spearman_head = [line for line in text.splitlines() if line.startswith("| run group |")]
check(len(spearman_head) == 1 and spearman_head[0].endswith("| P start cos |"),
      f"--init adds P start cos to the Spearman table: {spearman_head}")

# 3. Bad input: one message, a non-zero exit.
not_a_db = os.path.join(out, "not_a_db.sqlite")
with open(not_a_db, "w") as f:
    f.write("this is not an SQLite file\n" * 100)
for extra, says in [((not_a_db, "pos-factors-test"), "not a readable Headroom experiments DB"),
                    ((db, "no-such-suite"), "no runs of suite 'no-such-suite'"),
                    ((db, "pos-factors-test", "--steps", "ten"), "--steps takes whole step numbers"),
                    ((db, "pos-factors-test", "--steps", "7"), "keep no weights"),
                    ((db, "pos-factors-test", "--init", not_a_db), "--init " + not_a_db + " is not a readable")]:
    r = pos_factors(*extra, expect_ok=False)
    check(r.returncode != 0 and says in r.stderr, f"{extra}: exit {r.returncode}, said {r.stderr.strip()!r}")

check.finish()

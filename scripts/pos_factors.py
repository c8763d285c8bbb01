#!/usr/bin/python3
"""pos_factors.py DB SUITE [--steps S,S,...] [--init INIT_DB]: what a suite's runs did with their positional embedding.

For every run of SUITE in the experiments DB (read-only) and every stored "weights" artifact (the
worker keeps one per checkpoint), this reads the positional embedding P (n x d: the table `pos`,
or the factors `pos` (n x r) and `pos_proj` (d x r) of a factorised one, P = pos pos_proj^T) and
the token embedding, and prints a markdown table per run group: the validation loss at that step
and

- |P| rms: the root-mean-square norm of a position's vector (||P||_F / sqrt(n));
- P / tok: that over the same for the token embedding's rows: how much of a first-layer input,
  before LayerNorm, is position;
- eff. rank: the participation ratio (sum s^2)^2 / sum s^4 of P's singular values s: 1 when one
  direction carries all of P, r when r directions carry it equally;
- adj. cos: the mean cosine between the vectors of neighbouring positions i and i + 1 (a smooth,
  ordered embedding is near 1, an unordered random one near 0).

With --init INIT_DB (a DB holding the same runs' starting weights: the earliest stored weights of
the run there, of any suite, with the same model and seed; docs/results/cpu_2026-11-28/
vb_pos_rank_init.toml makes one), three more columns say how much of the start is left:

- P start cos: the cosine between P and the P it started with (both flattened to one vector): near
  1 while P is still its random start, near 0 once that start is gone or drowned;
- A start cos, B start cos: the same for the two factors of a factorised P (P = A B^T, A = `pos`,
  B = `pos_proj`), "-" for a plain table. A start that is zero (`pos_init = "zero"`) has no
  direction: "-" too (a start of rms < 1e-6 counts as zero: the init suite's one step at lr 1e-9
  moves a zero factor to about 1e-9).

A last table gives, per run group and step, the Spearman rank correlation of each measure with the
final loss over the group's finished runs (+1: the larger the measure then, the worse the run
ends). Everything is computed from the DB; nothing is typed in.
Reads float32 weights (what the worker stores) and float16 ones (an --results-only export's kept
weights). Pure Python (the factors are small): no numpy needed.
"""
import json, math, re, sqlite3, struct, sys
from array import array
from collections import OrderedDict

args = [a for a in sys.argv[1:]]
steps_filter = None
init_db = None
if "--init" in args:
    i = args.index("--init")
    if i + 1 >= len(args):
        sys.exit("pos_factors: --init needs the DB of the runs' starting weights")
    init_db = args[i + 1]
    del args[i:i + 2]
if "--steps" in args:
    i = args.index("--steps")
    if i + 1 >= len(args):
        sys.exit("pos_factors: --steps needs a list, e.g. --steps 500,2500")
    try:
        steps_filter = {int(s) for s in args[i + 1].split(",") if s}
    except ValueError:
        sys.exit(f"pos_factors: --steps takes whole step numbers separated by commas, not '{args[i + 1]}'")
    del args[i:i + 2]
if len(args) != 2:
    sys.exit("usage: pos_factors.py DB SUITE [--steps 500,2500] [--init INIT_DB]")
db, suite = args
try:
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    runs = c.execute("""SELECT r.id, r.name, r.status, r.config_json FROM runs r JOIN suites s ON s.id = r.suite_id
                        WHERE s.name = ? ORDER BY r.id""", (suite,)).fetchall()
except sqlite3.DatabaseError as e:
    sys.exit(f"pos_factors: {db} is not a readable Headroom experiments DB ({e})")
if not runs:
    sys.exit(f"pos_factors: no runs of suite '{suite}' in {db}")


def tensors(blob, names):
    """The named float32 tensors of a safetensors blob, as (shape, flat array)."""
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    out = {}
    for name in names:
        if name not in header:
            continue
        info = header[name]
        a, b = info["data_offsets"]
        raw = blob[8 + n + a:8 + n + b]
        if info["dtype"] == "F32":  # what the worker stores
            values = array("f")
            values.frombytes(raw)
            if sys.byteorder != "little":
                values.byteswap()
        elif info["dtype"] == "F16":  # an --results-only export's kept weights
            values = struct.unpack(f"<{len(raw) // 2}e", raw)
        else:
            sys.exit(f"pos_factors: {name} is stored as {info['dtype']}; this reads float32 and float16 weights")
        out[name] = (info["shape"], values)
    return out


def rows(shape, flat):
    cols = shape[1]
    return [flat[i * cols:(i + 1) * cols] for i in range(shape[0])]


def matmul_t(a, b):
    """a (n x r) times b (m x r) transposed: n x m."""
    return [[sum(x * y for x, y in zip(ra, rb)) for rb in b] for ra in a]


def gram(m):
    """m^T m for m given as rows (n x r): r x r."""
    r = len(m[0])
    return [[sum(row[i] * row[j] for row in m) for j in range(r)] for i in range(r)]


def eigvals_sym(m, sweeps=60):
    """Eigenvalues of a small symmetric matrix (cyclic Jacobi)."""
    a = [row[:] for row in m]
    k = len(a)
    for _ in range(sweeps):
        off = sum(a[i][j] ** 2 for i in range(k) for j in range(k) if i != j)
        if off <= 1e-22 * max(1e-300, sum(a[i][i] ** 2 for i in range(k))):
            break
        for p in range(k - 1):
            for q in range(p + 1, k):
                if abs(a[p][q]) < 1e-300:
                    continue
                theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                t = math.copysign(1.0, theta) / (abs(theta) + math.sqrt(theta * theta + 1))
                cs = 1 / math.sqrt(t * t + 1)
                sn = t * cs
                for i in range(k):
                    aip, aiq = a[i][p], a[i][q]
                    a[i][p], a[i][q] = cs * aip - sn * aiq, sn * aip + cs * aiq
                for i in range(k):
                    api, aqi = a[p][i], a[q][i]
                    a[p][i], a[q][i] = cs * api - sn * aqi, sn * api + cs * aqi
    return sorted((a[i][i] for i in range(k)), reverse=True)


def singular_values_sq(p_rows, factors):
    """Squared singular values of P: from the r x r problem when P = A B^T (the eigenvalues of
    (A^T A)(B^T B), symmetrised through B^T B's Cholesky factor), else from P P^T or P^T P."""
    if factors:
        a_rows, b_rows = factors
        g, h = gram(a_rows), gram(b_rows)
        r = len(h)
        low = [[0.0] * r for _ in range(r)]  # h = low low^T
        for i in range(r):
            for j in range(i + 1):
                s = h[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
                low[i][j] = math.sqrt(max(s, 1e-300)) if i == j else s / low[j][j]
        # low^T g low
        gl = [[sum(g[i][k] * low[k][j] for k in range(r)) for j in range(r)] for i in range(r)]
        m = [[sum(low[k][i] * gl[k][j] for k in range(r)) for j in range(r)] for i in range(r)]
        return [max(0.0, v) for v in eigvals_sym(m)]
    n, d = len(p_rows), len(p_rows[0])
    small = matmul_t(p_rows, p_rows) if n <= d else gram(p_rows)
    return [max(0.0, v) for v in eigvals_sym(small)]


def measures(blob):
    t = tensors(blob, ["pos.weight", "pos_proj.weight", "tok.weight", "tok_proj.weight"])
    if "pos.weight" not in t:
        return None  # no positional embedding
    pos_rows = rows(*t["pos.weight"])
    factors = None
    if "pos_proj.weight" in t:
        proj_rows = rows(*t["pos_proj.weight"])  # d x r
        factors = (pos_rows, proj_rows)
        p = matmul_t(pos_rows, proj_rows)  # n x d
    else:
        p = pos_rows
    tok = rows(*t["tok.weight"])
    if "tok_proj.weight" in t:
        tok = matmul_t(tok, rows(*t["tok_proj.weight"]))
    rms = lambda m: math.sqrt(sum(x * x for row in m for x in row) / len(m))
    s2 = singular_values_sq(p, factors)
    total = sum(s2)
    eff = total * total / sum(v * v for v in s2) if total > 0 else 0.0
    norms = [math.sqrt(sum(x * x for x in row)) for row in p]
    cos = [sum(x * y for x, y in zip(p[i], p[i + 1])) / (norms[i] * norms[i + 1])
           for i in range(len(p) - 1) if norms[i] > 0 and norms[i + 1] > 0]
    return dict(pos_rms=rms(p), ratio=rms(p) / rms(tok), eff=eff, adj=sum(cos) / len(cos) if cos else 0.0,
                p=p, a=pos_rows if factors else None, b=factors[1] if factors else None)


def flat_cos(x, start):
    """The cosine between a matrix and its start (both given as rows, flattened); None where either
    is zero (a start of rms < 1e-6 counts as zero)."""
    if x is None or start is None:
        return None
    dot = sum(a * b for rx, ry in zip(x, start) for a, b in zip(rx, ry))
    nx = math.sqrt(sum(a * a for r in x for a in r))
    ny = math.sqrt(sum(b * b for r in start for b in r))
    if nx == 0 or ny < 1e-6 * math.sqrt(sum(len(r) for r in start)):
        return None
    return dot / (nx * ny)


def run_key(name):
    """A run's group (its name less the suite and the seed) and its seed."""
    parts = name.split("/")
    seed = re.search(r"seed=(\d+)", parts[-1])
    key = "/".join(parts[1:-1] + [",".join(p for p in parts[-1].split(",") if not p.startswith("seed="))]).rstrip("/")
    return key, int(seed.group(1)) if seed else 0


def start_key(config_json):
    """What fixes a run's starting weights: its model and its seed (core/train/trainer.cpp)."""
    config = json.loads(config_json)
    return json.dumps(config["model"], sort_keys=True), config["train"].get("seed", 0)


starts = {}
if init_db is not None:
    try:
        ic = sqlite3.connect(f"file:{init_db}?mode=ro", uri=True)
        first = ic.execute("""SELECT r.config_json, a.bytes FROM runs r JOIN artifacts a ON a.run_id = r.id
                              WHERE a.kind = 'weights' AND a.step = (SELECT MIN(step) FROM artifacts
                                    WHERE run_id = r.id AND kind = 'weights') ORDER BY r.id""").fetchall()
    except sqlite3.DatabaseError as e:
        sys.exit(f"pos_factors: --init {init_db} is not a readable Headroom experiments DB ({e})")
    for config_json, blob in first:
        m = measures(blob)
        if m is not None:
            starts.setdefault(start_key(config_json), m)
    if not starts:
        sys.exit(f"pos_factors: --init {init_db} keeps no weights with a positional embedding")


def val_at(run_id):
    return dict(c.execute("""SELECT m.step, m.value FROM metrics m JOIN metric_series s ON s.id = m.series_id
                             WHERE s.run_id = ? AND s.name = 'val_loss'""", (run_id,)).fetchall())


groups = OrderedDict()
for rid, name, status, config_json in runs:
    key, seed = run_key(name)
    start = starts.get(start_key(config_json))
    val = val_at(rid)
    snaps, stored = [], 0
    for step, blob in c.execute("SELECT step, bytes FROM artifacts WHERE run_id = ? AND kind = 'weights' ORDER BY step",
                                (rid,)):
        if steps_filter is not None and step not in steps_filter:
            continue
        stored += 1
        m = measures(blob)
        if m is not None:
            if init_db is not None:
                m["start"] = [flat_cos(m[k], start[k]) if start else None for k in ("p", "a", "b")]
            snaps.append((step, val.get(step), m))
    final = val[max(val)] if val else None
    groups.setdefault(key, []).append(dict(seed=seed, final=final, snaps=snaps, start=start is not None,
                                           stored=stored, done=status == "done"))

if not any(r["snaps"] for g in groups.values() for r in g):
    sys.exit(f"pos_factors: the runs of '{suite}' keep no weights with a positional embedding "
             "(train with checkpoints, e.g. train.checkpoint_every = 250, and not --results-only)")

fmt = lambda v, p=4: "-" if v is None else f"{v:.{p}f}"
for key, rs in groups.items():
    if not any(r["snaps"] for r in rs):
        why = "no positional embedding" if any(r["stored"] for r in rs) else "no stored weights (runs still queued, or exported without them)"
        print(f"\n**{key}**: {why}\n")
        continue
    print(f"\n**{key}**\n")
    if init_db is not None and not all(r["start"] for r in rs):
        print(f"(no start in {init_db} for seeds {', '.join(str(r['seed']) for r in rs if not r['start'])})\n")
    extra = " P start cos | A start cos | B start cos |" if init_db is not None else ""
    print("| seed | step | val loss | \\|P\\| rms | P / tok | eff. rank | adj. cos |" + extra)
    print("|---|---|---|---|---|---|---|" + "---|" * (3 if init_db is not None else 0))
    for r in sorted(rs, key=lambda r: r["seed"]):
        for step, v, m in r["snaps"]:
            cells = "".join(f" {fmt(x, 3)} |" for x in m["start"]) if init_db is not None else ""
            print(f"| {r['seed']} | {step} | {fmt(v)} | {m['pos_rms']:.3f} | {m['ratio']:.2f} | {m['eff']:.2f} | {m['adj']:.3f} |{cells}")


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):  # ties share their mean rank
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else float("nan")


with_start = init_db is not None and all(r["start"] for g in groups.values() for r in g)
print("\n| run group | seeds | step | Spearman with final loss: \\|P\\| rms | P / tok | eff. rank | adj. cos |"
      + (" P start cos |" if with_start else ""))
print("|---|---|---|---|---|---|---|" + ("---|" if with_start else ""))
for key, rs in groups.items():
    done = [r for r in rs if r["done"] and r["final"] is not None and r["snaps"]]  # finished runs only
    if len(done) < 3:
        continue
    for step in sorted({s for r in done for s, _, _ in r["snaps"]}):
        at = [(r["final"], m) for r in done for s, _, m in r["snaps"] if s == step]
        if len(at) != len(done):
            continue
        f = [a for a, _ in at]
        cells = " | ".join(f"{spearman([m[k] for _, m in at], f):+.2f}" for k in ("pos_rms", "ratio", "eff", "adj"))
        if with_start:
            cos = [m["start"][0] for _, m in at]
            cells += " | " + (f"{spearman(cos, f):+.2f}" if None not in cos else "-")
        print(f"| {key} | {len(done)} | {step} | {cells} |")

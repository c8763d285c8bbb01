#!/usr/bin/python3
"""suite_report.py DB SUITE: a markdown table of a suite's runs in an experiments DB (read-only):
per run group (the run name without its suite and its seed), the model (depth, context, data and embedding ranks where
they vary within the suite), parameters, the final validation
loss of each seed (in seed order, whichever suite holds the run) with mean and min..max, the best validation loss and training time. Every
number is read from the DB; nothing is typed in. SUITE may name several suites, comma-separated
(e.g. a suite and a later seed check of some of its rows): their runs pool by run group.
--at STEP[,STEP...] (before --compare): the comparison again at each of these steps, from the
validation loss evaluated there, one table per step (e.g. how a gap moves over training).
--groups GROUP[,GROUP...] (before --compare): the table's rows are these run groups, in this order
(e.g. the rows of a comparison drawn from several suites, without the suites' other rows; a group
whose name holds commas, "logits-proj/heads=32,context=8", is read whole);
--compare may name any group of the suites.
--compare A B [A B ...]: per pair, A - B of the final validation loss for each seed both finished
(paired: a seed shares data order and initialisation streams), their mean, sd and standard error
(sd / sqrt(seeds)), and in how many seeds A is lower.
--interaction BOTH ONE OTHER NEITHER (before --compare): a 2 x 2 design's interaction, per seed:
BOTH - ONE - OTHER + NEITHER, the groups with both changes, each change alone and neither. Below
zero: the two changes together lower the loss by more than the sum of what each does alone.
--pool (with two or more --compare pairs): the pairs as cells of one effect (e.g. the same change
at several contexts): each cell's mean, sd and standard error (sd / sqrt(seeds)); their
inverse-variance pooled mean and its standard error; Cochran's Q, its degrees of freedom and
chi-square p-value (do the cells differ by more than their seeds' noise?); and every two cells'
difference with its standard error. The standard errors come from each cell's own few seeds, so
the p-value and "2 standard errors" are approximate (a t with seeds - 1 degrees of freedom is
wider). A run group pools the runs of every named suite that share its name and configuration
(but for the seed and the device); a name whose runs differ in configuration across the suites
becomes one group per configuration, NAME@SUITE (the suite of its first run)."""
import json, math, os, sqlite3, statistics, sys
from collections import OrderedDict

if len(sys.argv) < 3:
    sys.exit("usage: suite_report.py DB SUITE[,SUITE...] [--at STEP[,STEP...]] [--groups GROUP[,GROUP...]] "
             "[--interaction BOTH ONE OTHER NEITHER] [--pool] [--compare GROUP_A GROUP_B ...]")
shown_groups = None
if "--groups" in sys.argv:
    i = sys.argv.index("--groups")
    # Split on commas after the DB is read (split_groups): a group's own name may hold commas.
    shown_groups = [g for g in (sys.argv[i + 1] if i + 1 < len(sys.argv) else "").split(",") if g]
    if not shown_groups or shown_groups[0].startswith("--"):
        sys.exit("suite_report: --groups takes run groups, comma-separated, e.g. --groups multi-head,talking-heads")
    del sys.argv[i:i + 2]
interaction = None
if "--interaction" in sys.argv:
    i = sys.argv.index("--interaction")
    interaction = sys.argv[i + 1:i + 5]
    if len(interaction) < 4 or any(g.startswith("--") for g in interaction):
        sys.exit("suite_report: --interaction takes four run groups, BOTH ONE OTHER NEITHER (both changes, "
                 "each alone, neither), e.g. --interaction talking-heads logits-proj weights-proj multi-head")
    del sys.argv[i:i + 5]
pool = "--pool" in sys.argv
if pool:
    sys.argv.remove("--pool")
at_steps = []
if "--at" in sys.argv:
    i = sys.argv.index("--at")
    try:
        at_steps = [int(x) for x in sys.argv[i + 1].split(",") if x]
    except (IndexError, ValueError):
        sys.exit("suite_report: --at takes steps, comma-separated, e.g. --at 2500,5000")
    if not at_steps or min(at_steps) < 0:
        sys.exit("suite_report: --at takes steps >= 0, comma-separated, e.g. --at 2500,5000")
    del sys.argv[i:i + 2]
db = sys.argv[1]
suites = list(OrderedDict.fromkeys(s for s in sys.argv[2].split(",") if s))  # each suite once, in order
if not suites:
    sys.exit("suite_report: name a suite, e.g. vb-pos-rank (or several, comma-separated)")
if not os.path.isfile(db):
    sys.exit(f"suite_report: no file {db}; name an experiments DB the worker wrote, "
             "e.g. assets/results/headroom_results.sqlite")
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
runs = []
for suite in suites:
    try:
        of_suite = c.execute("""SELECT r.id, r.name, r.config_json, r.status, r.param_count, r.current_step,
                                       r.started_at, r.finished_at, s.name
                                FROM runs r JOIN suites s ON s.id = r.suite_id WHERE s.name = ? ORDER BY r.id""",
                             (suite,)).fetchall()
    except sqlite3.DatabaseError as e:  # not SQLite, damaged, or another program's tables
        sys.exit(f"suite_report: {db} is not an experiments DB Headroom can read ({e}); "
                 "name one the worker wrote, e.g. assets/results/headroom_results.sqlite")
    if not of_suite:
        sys.exit(f"suite_report: no runs of suite '{suite}' in {db}")
    runs += of_suite

def series(run_id, name):
    return c.execute("""SELECT m.step, m.value, m.wall_seconds FROM metrics m JOIN metric_series s ON s.id = m.series_id
                        WHERE s.run_id = ? AND s.name = ? ORDER BY m.step""", (run_id, name)).fetchall()

groups = OrderedDict()
for rid, name, cfg, status, params, step, t0, t1, suite in runs:
    parts = name.split("/")
    key = "/".join(parts[1:-1] + [",".join(p for p in parts[-1].split(",") if not p.startswith("seed="))]).rstrip("/")
    val_points = series(rid, "val_loss")
    val = [v for _, v, _ in val_points if v is not None]
    wall = [w for _, _, w in series(rid, "train_loss") if w is not None]
    groups.setdefault(key, []).append(dict(suite=suite, cfg=json.loads(cfg), status=status, params=params, step=step,
                                           final=val[-1] if val else None, best=min(val) if val else None,
                                           at={st: v for st, v, _ in val_points if v is not None},
                                           minutes=((t1 - t0) / 60 if t0 and t1 else None)))

def flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        out.update(flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k: v})
    return out

# A group pools runs by name across the named suites. Two suites may use one name for different
# models (heads of 8 at n = 16 in one, at n = 64 in another): such a name is split into one group
# per configuration, each named NAME@SUITE after the suite of its first run, rather than averaged
# and paired as one. The seed, the device and how often a run logs or checkpoints do not change
# what it computes (up to the device's rounding). A field one config lacks is skipped: older
# workers wrote fewer fields and their runs took its default.
FREE = {"train.seed", "train.device", "train.log_every", "train.checkpoint_every"}

def differing(a, b):
    """The first field, seed and device aside, that both flat configs hold with different values; None if none."""
    return next((f for f in sorted(a) if f not in FREE and f in b and a[f] != b[f]), None)

split = {}  # a name split by configuration: (what differs, its groups' names)
regrouped = OrderedDict()
for key, rs in groups.items():
    parts = []  # [flat config of the part's first run, its runs]
    for r in rs:
        fr = flat(r["cfg"])
        home = next((p for p in parts if differing(p[0], fr) is None), None)
        if home is None:
            parts.append([fr, [r]])
        else:
            home[1].append(r)
    if len(parts) == 1:
        regrouped[key] = rs
        continue
    names = []
    for fr, part in parts:
        name = f"{key}@{part[0]['suite']}"
        names.append(name if name not in names else f"{name}#{len(names) + 1}")
        regrouped[names[-1]] = part
    field = differing(parts[0][0], parts[1][0])
    split[key] = (f"{field} = {parts[0][0][field]!r} and {parts[1][0][field]!r}", names)
groups = regrouped
for key, rs in groups.items():
    seeds = [r["cfg"]["train"].get("seed", 0) for r in rs]
    twice = next((seed for seed in seeds if seeds.count(seed) > 1), None)
    if twice is not None:  # a paired difference would silently take one of them
        sys.exit(f"suite_report: run group {key!r} holds two runs of seed {twice} (from the suites "
                 f"{','.join(suites)}); name fewer suites, or give the runs distinct labels")

def require_groups(names, option=""):
    """Exit with one line naming the first of names that is no run group of the suites."""
    unknown = [g for g in names if g not in groups]
    if unknown and unknown[0] in split:
        what, parts = split[unknown[0]]
        sys.exit(f"suite_report: {option}run group {unknown[0]!r} holds runs of different configurations ({what}) "
                 f"in {','.join(suites)}; name one of {', '.join(parts)}")
    if unknown:
        sys.exit(f"suite_report: {option}no run group {unknown[0]!r} in {','.join(suites)}; "
                 f"the groups are the first column of the table, e.g. {next(iter(groups))!r}")

# --compare's groups checked before anything is printed: a typo would otherwise print a row of '-'
# like a pair with no seed in common.
compare_args = sys.argv[sys.argv.index("--compare") + 1:] if "--compare" in sys.argv else None
if compare_args is not None:
    if not compare_args or len(compare_args) % 2:
        sys.exit(f"suite_report: --compare takes run groups in pairs (A B [A B ...]); got {len(compare_args)}")
    require_groups(compare_args)
if pool and (compare_args is None or len(compare_args) < 4):
    sys.exit("suite_report: --pool takes two or more --compare pairs (the cells to pool), "
             "e.g. --pool --compare A1 B1 A2 B2")
if interaction is not None:
    require_groups(interaction, "--interaction: ")

def finals_by_seed(key, step=None):  # step None: the final val loss; else the one evaluated at step
    return {r["cfg"]["train"].get("seed", 0): (r["final"] if step is None else r["at"].get(step))
            for r in groups.get(key, []) if r["status"] == "done" and r["final"] is not None
            and (step is None or step in r["at"])}

def sd_se(d):
    """The sample sd of per-seed values and the standard error of their mean (None, None below 2)."""
    if len(d) < 2:
        return None, None
    sd = statistics.stdev(d)
    return sd, sd / math.sqrt(len(d))

# --pool's cells (checked before anything is printed): per pair, the per-seed differences, their
# mean, sd and standard error.
cells = []
for a, b in zip(compare_args[0::2], compare_args[1::2]) if pool else []:
    fa, fb = finals_by_seed(a), finals_by_seed(b)
    d = [fa[s] - fb[s] for s in sorted(set(fa) & set(fb))]
    sd, se = sd_se(d)
    if not sd:
        sys.exit(f"suite_report: --pool: {a} - {b} has {len(d)} paired seeds with a spread of 0 or none; "
                 "each cell needs two or more seeds that differ")
    cells.append((f"{a} - {b}", d, statistics.mean(d), sd, se))

def extra_columns(rs):
    """Model and data fields a suite may vary (depth, context, data, embedding ranks): shown only where they
    differ between its run groups, so a table of runs that agree on them stays as it was."""
    m, t = rs[0]["cfg"]["model"], rs[0]["cfg"]["train"]
    data = t.get("tokenizer", "bytes") + ("" if t.get("corpus", "kjv") == "kjv" else f" on {t['corpus']}")
    rank = lambda r: "full" if not r else str(r)
    return OrderedDict([("L", str(m.get("depth", ""))), ("n (context)", str(m.get("context", ""))),
                        ("data (loss per token of it)", data),
                        ("r (emb. rank)", rank(m.get("embed_rank", 0))), ("pos. rank", "none" if m.get("positions") == "none" else rank(m.get("pos_rank", 0)))])

def split_groups(pieces):
    """--groups' comma-separated pieces as run groups: at each piece the longest run of pieces that
    names a group ("multi-head/heads=32,context=8" is one group, "multi-head/heads=32" another);
    a piece that starts none is kept as it is, for require_groups to name."""
    out, k = [], 0
    while k < len(pieces):
        j = next((j for j in range(len(pieces), k, -1) if ",".join(pieces[k:j]) in groups), k + 1)
        out.append(",".join(pieces[k:j]))
        k = j
    return list(OrderedDict.fromkeys(out))

if shown_groups is not None:
    shown_groups = split_groups(shown_groups)
    require_groups(shown_groups, "--groups: ")
table = OrderedDict((g, groups[g]) for g in shown_groups) if shown_groups is not None else groups

extras = OrderedDict((k, [extra_columns(rs)[k] for rs in table.values()]) for k in extra_columns(next(iter(table.values()))))
shown = [k for k, values in extras.items() if len(set(values)) > 1]
print("| run group | width d | " + "".join(f"{k} | " for k in shown) +
      "heads (h_k-h-h_v) | d_k (/d_v) | params | seeds done | final val loss per finished seed | mean (min..max) | "
      "best val loss | wall min/run (claim to finish) |")
print("|---|---|" + "---|" * len(shown) + "---|---|---|---|---|---|---|---|")
for key, rs in table.items():
    m = rs[0]["cfg"]["model"]
    a = m["attention"]
    # Only finished runs: a running run's latest validation loss is not a final one.
    finals = [r["final"] for r in sorted(rs, key=lambda r: r["cfg"]["train"].get("seed", 0))
              if r["final"] is not None and r["status"] == "done"]
    done = sum(r["status"] == "done" for r in rs)
    mean = (f"{statistics.mean(finals):.4f}" + (f" ({min(finals):.4f}..{max(finals):.4f})" if len(finals) > 1 else "")
            if finals else "-")
    best = min((r["best"] for r in rs if r["best"] is not None and r["status"] == "done"), default=None)
    mins = [r["minutes"] for r in rs if r["minutes"] is not None]
    # Talking-heads may split the heads (h_k-h-h_v) and the head sizes (d_k/d_v): show both then.
    hk, hv = a.get("heads_k", a["heads"]), a.get("heads_v", a["heads"])
    heads = a["heads"] if hk == a["heads"] == hv else f"{hk}-{a['heads']}-{hv}"
    dk = a["d_k"] if a.get("d_v", a["d_k"]) == a["d_k"] else f"{a['d_k']}/{a['d_v']}"
    extra = extra_columns(rs)
    print(f"| {key} | {m['width']} | " + "".join(f"{extra[k]} | " for k in shown) +
          f"{heads} | {dk} | {rs[0]['params']:,} | {done}/{len(rs)} | "
          f"{' / '.join(f'{f:.4f}' for f in finals) or '-'} | {mean} | {'-' if best is None else f'{best:.4f}'} | "
          f"{(f'{statistics.mean(mins):.1f}' if mins else '-')} |")

def paired_row(name, d):
    """A row of a paired table: the per-seed values d (seed order), their mean, sd and standard error
    (sd / sqrt(seeds); "-" below two seeds), how many below zero."""
    if not d:
        return f"| {name} | 0 | - | - | - | - | - |"
    sd, se = sd_se(d)
    spread = "- | -" if sd is None else f"{sd:.4f} | {se:.4f}"
    return (f"| {name} | {len(d)} | {' / '.join(f'{x:+.4f}' for x in d)} | {statistics.mean(d):+.4f} | {spread} | "
            f"{sum(x < 0 for x in d)}/{len(d)} |")

# --compare A B [A B ...]: per-seed differences of final val loss between run groups (A - B), for
# seeds both finished. Seeds share data order and initialisation streams, so a paired difference
# is the fair one.
if compare_args is not None:
    for step in [None] + at_steps:
        what = "final val loss" if step is None else f"val loss at step {step}"
        print(f"\n| A - B ({what}, per seed) | seeds | per-seed differences | mean | sd | standard error | A better in |")
        print("|---|---|---|---|---|---|---|")
        for a, b in zip(compare_args[0::2], compare_args[1::2]):
            fa, fb = finals_by_seed(a, step), finals_by_seed(b, step)
            print(paired_row(f"{a} - {b}", [fa[s] - fb[s] for s in sorted(set(fa) & set(fb))]))

# --interaction BOTH ONE OTHER NEITHER: per seed all four finished, BOTH - ONE - OTHER + NEITHER,
# i.e. (BOTH - NEITHER) - (ONE - NEITHER) - (OTHER - NEITHER): what the pair gains beyond the sum of
# the singles' gains (paired within a seed, as --compare).
if interaction is not None:
    for step in [None] + at_steps:
        what = "final val loss" if step is None else f"val loss at step {step}"
        both, one, other, neither = (finals_by_seed(g, step) for g in interaction)
        seeds = sorted(set(both) & set(one) & set(other) & set(neither))
        print(f"\n| BOTH - ONE - OTHER + NEITHER ({what}, per seed) | seeds | per-seed interactions | mean | sd | standard error | below zero in |")
        print("|---|---|---|---|---|---|---|")
        print(paired_row(f"{interaction[0]} - {interaction[1]} - {interaction[2]} + {interaction[3]}",
                         [both[s] - one[s] - other[s] + neither[s] for s in seeds]))

def chi2_sf(q, df):
    """P(chi-square with df degrees of freedom > q), exact for whole df (the series in closed form)."""
    if df % 2 == 0:
        term = total = 1.0
        for i in range(1, df // 2):
            term *= (q / 2) / i
            total += term
        return math.exp(-q / 2) * total
    total, term = math.erfc(math.sqrt(q / 2)), math.sqrt(2 * q / math.pi) * math.exp(-q / 2)
    for i in range(1, (df + 1) // 2):
        total += term
        term *= q / (2 * i + 1)
    return total

def fmt_p(p):
    """A p-value: two decimals from 0.01 up, four below (two would read 0.00), "< 0.0001" below that
    (the explorer's p_value_text prints the same)."""
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}" if p < 0.01 else f"{p:.2f}"

# --pool: the --compare pairs as cells of one effect. Each cell's per-seed differences give its
# mean m_i and standard error s_i; the pooled mean weighs each by 1 / s_i^2; Q = sum (m_i - pooled)^2
# / s_i^2 is chi-square with cells - 1 degrees of freedom if the cells share one effect.
if pool:
    w = [1 / se ** 2 for *_, se in cells]
    pooled = sum(wi * m for wi, (_, _, m, _, _) in zip(w, cells)) / sum(w)
    q = sum(wi * (m - pooled) ** 2 for wi, (_, _, m, _, _) in zip(w, cells))
    print("\n| cell (A - B, final val loss) | seeds | mean | sd | standard error | weight |")
    print("|---|---|---|---|---|---|")
    for (name, d, m, sd, se), wi in zip(cells, w):
        print(f"| {name} | {len(d)} | {m:+.4f} | {sd:.4f} | {se:.4f} | {wi / sum(w):.2f} |")
    print(f"| pooled (inverse-variance) | {sum(len(c[1]) for c in cells)} | {pooled:+.4f} | - | "
          f"{1 / math.sqrt(sum(w)):.4f} | 1.00 |")
    print("\n| cells | Cochran's Q | degrees of freedom | p (chi-square; small: the cells differ by more than their seeds' noise) |")
    print("|---|---|---|---|")
    print(f"| {len(cells)} | {q:.2f} | {len(cells) - 1} | {fmt_p(chi2_sf(q, len(cells) - 1))} |")
    print("\n| between cells | difference of means | standard error | difference / standard error |")
    print("|---|---|---|---|")
    for i in range(len(cells)):
        for j in range(i + 1, len(cells)):
            diff, se = cells[i][2] - cells[j][2], math.hypot(cells[i][4], cells[j][4])
            print(f"| ({cells[i][0]}) - ({cells[j][0]}) | {diff:+.4f} | {se:.4f} | {diff / se:+.1f} |")

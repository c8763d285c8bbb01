#!/usr/bin/env python3
"""The checkout stays small enough for a borrowed GPU machine to carry it.

A call to the GPU machine carries the working tree (tracked files) and the staged `.gpu` folder
together, at most 64 MiB (README, "On a 15-minute GPU lease"). `.gpu` took 12 MiB on 2026-12-06
(the Debian packages a build needs, ICU's headers only, and the linux-docs corpus); on that day the
checkout had grown to 47 MiB and a call would have been refused. This test fails while the tracked
files pass 50 MiB, which leaves `.gpu` its 12 MiB and 2 to spare, before a lease finds out.
`scripts/stage_gpu.sh` checks the real total when it stages.

Usage: checkout_size_test.py [SOURCE_DIR]   (default: the repository holding this script)
Exit 77 (skipped) outside a git checkout, where the tracked files cannot be told from the rest.
"""
import pathlib
import subprocess
import sys

BUDGET = 50 * 1024 * 1024


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    try:
        listing = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"checkout_size: SKIP: {root} is not a git checkout ({e})")
        return 77
    files = [root / name.decode() for name in listing.split(b"\0") if name]
    sizes = {f: f.stat().st_size for f in files if f.is_file()}
    total = sum(sizes.values())
    print(f"checkout_size: {len(sizes)} tracked files, {total:,} bytes of {BUDGET:,}")
    if total <= BUDGET:
        return 0
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    print(f"checkout_size: the tracked files hold {total / 2**20:.1f} MiB, over the {BUDGET // 2**20} MiB that leave "
          "a GPU call room for .gpu (12 MiB) in its 64 MiB; the largest: " +
          ", ".join(f"{p.relative_to(root)} ({s / 2**20:.1f} MiB)" for p, s in largest) +
          ". Recompress screenshots (optipng -o2), thin the shipped results (headroom-worker export "
          "--results-only), or carry less in .gpu (scripts/stage_gpu.sh)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

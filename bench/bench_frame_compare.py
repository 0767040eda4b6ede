#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Side by side: `b2bench --frame` against the reference's ref_bench_frame (c-blosc2 3.3).

Run from the source tree after a Release build, e.g.

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DB2_BUILD_BENCH=ON && cmake --build build -j
    python3 bench/bench_frame_compare.py --bench build/bench/b2bench
    python3 bench/bench_frame_compare.py --rounds 3 --reps 7 --ref ../shared/bench/ref/ref_bench_frame

The two programs run alternately (ours, reference, ours, reference, ...: --rounds
pairs, default 3), both with --reps/-r REPS and their temporary files in one
scratch directory (--dir, default $TMPDIR). Lines are paired by name: the
reference prints a table whose b2nd lines repeat under each "blockshape ..."
heading, so a b2nd line's name is "blockshape NAME, STORAGE: LABEL", which is
what our --json prints. For every pair of runs the ratio reference median /
our median is taken (> 1: we are faster); the table shows the medians over the
rounds and the median of those ratios. Lines only one side prints are listed
at the end. Absolute speeds on shared machines drift; only the ratios mean
something, and only when both ran close together.

With --base PROG (another b2bench program, e.g. an older revision built in a
worktree; a program named b2, from before b2bench, runs as `b2 bench --frame`)
the other side is that program instead of the reference: both print --json, and
the ratio is base median / our median (> 1: this build is faster). That is the
no-regression check of a change.

When the reference program is absent this prints a SKIP line and exits 0.
Options: --bench PATH (default $B2_BENCH_BIN, else build/bench/b2bench), --ref PATH (default
../shared/bench/ref/ref_bench_frame next to the source tree, else
/work/shared/bench/ref/ref_bench_frame), --rounds N, --reps N, --dir DIR,
--json (one object per paired line instead of the table).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"^(?P<label>\s*\S.*?)\s+median\s+(?P<med>[\d.]+) ms\s+\(min\s+(?P<min>[\d.]+), "
                  r"max\s+(?P<max>[\d.]+), n=(?P<n>\d+)\)(?:\s+(?P<mbps>[\d.]+) MB/s)?")
SECTION = re.compile(r"^blockshape (?P<name>.+?) = \d+x\d+, (?P<where>.+?): "
                     r"from_cbuffer (?P<ms>[\d.]+) ms, cratio (?P<cratio>[\d.]+)")


def parse_table(text):
    """name -> median ms from the reference's table (our table parses the same)."""
    out, section = {}, ""
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            section = "blockshape %s, %s" % (m["name"], m["where"])
            out[section + ": from_cbuffer"] = float(m["ms"])
            continue
        if line.startswith("#"):
            section = ""
            continue
        m = LINE.match(line)
        if m:
            label = m["label"].strip()
            out[(section + ": " + label) if section else label] = float(m["med"])
    return out


def parse_json(text):
    return {o["name"]: o["median_ms"] for o in (json.loads(l) for l in text.splitlines() if l.strip())}


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    return p.stdout


def default_bench():
    b = os.environ.get("B2_BENCH_BIN")
    if b:
        return b
    for d in ("build", "build-rel", "build-release"):
        c = os.path.join(REPO, d, "bench", "b2bench")
        if os.access(c, os.X_OK):
            return c
    return os.path.join(REPO, "build", "bench", "b2bench")


def frame_command(prog):
    """The --frame benchmark of prog: b2bench, or an older b2 (`b2 bench --frame`)."""
    return [prog, "bench", "--frame"] if os.path.basename(prog) == "b2" else [prog, "--frame"]


def default_ref():
    for c in (os.path.join(REPO, "..", "shared", "bench", "ref", "ref_bench_frame"),
              "/work/shared/bench/ref/ref_bench_frame"):
        if os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=default_bench())
    ap.add_argument("--ref", default=default_ref())
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--base", default=None, help="another b2bench program to compare with")
    a = ap.parse_args()
    other = "base" if a.base else "reference"
    if a.base and not os.access(a.base, os.X_OK):
        sys.exit("base program not found: %s" % a.base)
    if not a.base and (not a.ref or not os.access(a.ref, os.X_OK)):
        print("SKIP: reference program ref_bench_frame not found (--ref)")
        return 0
    if not os.access(a.bench, os.X_OK):
        sys.exit("b2bench not found: %s (--bench or B2_BENCH_BIN)" % a.bench)
    if not 1 <= a.reps <= 50:
        sys.exit("--reps: 1..50 (the reference's range)")
    ours, ref = [], []
    with tempfile.TemporaryDirectory(prefix="b2cmp-", dir=a.dir) as d:
        for r in range(a.rounds):
            print("round %d/%d: ours" % (r + 1, a.rounds), file=sys.stderr, flush=True)
            ours.append(parse_json(run(frame_command(a.bench) + ["--json", "--reps", str(a.reps),
                                        "--dir", d], d)))
            print("round %d/%d: %s" % (r + 1, a.rounds, other), file=sys.stderr, flush=True)
            if a.base:
                ref.append(parse_json(run(frame_command(a.base) + ["--json", "--reps",
                                           str(a.reps), "--dir", d], d)))
            else:
                ref.append(parse_table(run([a.ref, "-r", str(a.reps), "-o", d], d)))
    names = [n for n in ref[0] if all(n in o for o in ours) and all(n in x for x in ref)]
    rows = []
    for n in names:
        ratios = [x[n] / o[n] for o, x in zip(ours, ref) if o[n] > 0]
        rows.append({"name": n, "ours_ms": statistics.median(o[n] for o in ours),
                     "ref_ms": statistics.median(x[n] for x in ref),
                     "ratio": statistics.median(ratios) if ratios else float("nan"),
                     "ratios": ratios})
    if a.json:
        for row in rows:
            print(json.dumps(row))
    else:
        print("%-92s %10s %10s %7s" % ("line (ratio = %s / ours, > 1: ours faster)" % other,
                                       "ours ms", other[:4] + " ms", "ratio"))
        for row in rows:
            flag = "  <- slower" if row["ratio"] < 0.8 else ""
            print("%-92s %10.3f %10.3f %7.2f%s" % (row["name"], row["ours_ms"], row["ref_ms"],
                                                   row["ratio"], flag))
        only_ours = sorted(set(ours[0]) - set(ref[0]))
        only_ref = sorted(set(ref[0]) - set(ours[0]))
        if only_ours:
            print("only ours: " + "; ".join(only_ours))
        if only_ref:
            print("only the %s: " % other + "; ".join(only_ref))
    return 0


if __name__ == "__main__":
    sys.exit(main())

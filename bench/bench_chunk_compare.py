#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Side by side: `b2 bench` against the reference's ref_bench_files on the shared grid.

The grid of issue 17 (../shared/bench/README.md protocol, 8 MiB chunks, clevel 5):
blosclz, lz4, zstd, zlib with shuffle and lz4 with bitshuffle, on f64_sin,
i32_ramp_noise, f32_field, f64_sparse and f64_linspace (issue 28), with 1 and 2 threads:
50 configurations.

    python3 ../shared/bench/make-datasets /tmp/ds
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j
    python3 bench/bench_chunk_compare.py --data /tmp/ds --b2 build/tools/b2

For every configuration the two programs run alternately (ours, reference, ...:
--rounds pairs, default 5), each taking the median of --reps rounds; the ratio
of each pair (ours / reference MB/s, > 1: we are faster) is taken, and the
table gives the median of those ratios for compression and decompression, our
decompression as a fraction of memcpy, and the compression ratio of each side.
The last lines give the geometric means and the configurations below 0.9.
Options narrow the grid: --codecs, --files, --threads (comma lists), --filter-set
(e.g. "lz4:bitshuffle"); --json writes one object per configuration.
When the reference program is absent this prints a SKIP line and exits 0.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = {"f64_sin.bin": 8, "i32_ramp_noise.bin": 4, "f32_field.bin": 4, "f64_sparse.bin": 8,
         "f64_linspace.bin": 8}
CONFIGS = [("blosclz", "shuffle"), ("lz4", "shuffle"), ("zstd", "shuffle"),
           ("zlib", "shuffle"), ("lz4", "bitshuffle")]


def first_existing(*paths):
    for p in paths:
        if p and os.access(p, os.X_OK):
            return p
    return None


def run_one(prog, codec, filt, threads, typesize, reps, clevel, path):
    cmd = [prog] + (["bench"] if os.path.basename(prog) == "b2" else [])
    cmd += ["--codec", codec, "--clevel", str(clevel), "--filter", filt, "--threads", str(threads),
            "--typesize", str(typesize), "--reps", str(reps)]
    if os.path.basename(prog) == "b2":
        cmd.append("--json")
    cmd.append(path)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    line = [l for l in p.stdout.splitlines() if l.strip().startswith("{")][-1]
    return json.loads(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--b2", default=first_existing(os.environ.get("B2_BIN"),
                                                   os.path.join(REPO, "build", "tools", "b2")))
    ap.add_argument("--ref", default=first_existing(
        os.path.join(REPO, "..", "shared", "bench", "ref", "ref_bench_files"),
        "/work/shared/bench/ref/ref_bench_files"))
    ap.add_argument("--data", default="/tmp/ds")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--clevel", type=int, default=5)
    ap.add_argument("--codecs", help="comma list of codecs to keep")
    ap.add_argument("--files", help="comma list of dataset files to keep")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--filter-set", help="comma list of codec:filter pairs instead of the grid")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not a.ref:
        print("SKIP: reference ref_bench_files not found")
        return 0
    if not a.b2:
        sys.exit("b2 not found: build it or pass --b2")
    configs = CONFIGS
    if a.filter_set:
        configs = [tuple(x.split(":")) for x in a.filter_set.split(",")]
    if a.codecs:
        configs = [c for c in configs if c[0] in a.codecs.split(",")]
    files = [f for f in FILES if not a.files or f in a.files.split(",")]
    threads = [int(t) for t in a.threads.split(",")]

    rows = []
    if not a.json:
        v = subprocess.run([a.b2, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
        print("ours: %s (B2_SIMD=%s)" % (v, os.environ.get("B2_SIMD", "")))
        print("%-8s %-10s %-19s %2s  %7s %7s  %9s  %8s %8s" % (
            "codec", "filter", "file", "t", "c x", "d x", "d/memcpy", "ratio", "ref"))
    for codec, filt in configs:
        for t in threads:
            for f in files:
                path = os.path.join(a.data, f)
                cr, dr, ours, refs = [], [], [], []
                for _ in range(a.rounds):
                    o = run_one(a.b2, codec, filt, t, FILES[f], a.reps, a.clevel, path)
                    r = run_one(a.ref, codec, filt, t, FILES[f], a.reps, a.clevel, path)
                    cr.append(o["compress_mbps"] / r["compress_mbps"])
                    dr.append(o["decompress_mbps"] / r["decompress_mbps"])
                    ours.append(o)
                    refs.append(r)
                row = {"codec": codec, "filter": filt, "file": f, "threads": t,
                       "compress_x": statistics.median(cr), "decompress_x": statistics.median(dr),
                       "decompress_of_memcpy": statistics.median(
                           o["decompress_mbps"] / o["memcpy_mbps"] for o in ours),
                       "ref_decompress_of_memcpy": statistics.median(
                           r["decompress_mbps"] / r["memcpy_mbps"] for r in refs),
                       "ratio": ours[0]["ratio"], "ref_ratio": refs[0]["ratio"],
                       "compress_mbps": statistics.median(o["compress_mbps"] for o in ours),
                       "decompress_mbps": statistics.median(o["decompress_mbps"] for o in ours)}
                rows.append(row)
                if a.json:
                    print(json.dumps(row), flush=True)
                else:
                    print("%-8s %-10s %-19s %2d  %7.2f %7.2f  %4.2f/%4.2f  %8.3f %8.3f" % (
                        codec, filt, f, t, row["compress_x"], row["decompress_x"],
                        row["decompress_of_memcpy"], row["ref_decompress_of_memcpy"],
                        row["ratio"], row["ref_ratio"]), flush=True)
    gc = math.exp(statistics.mean(math.log(r["compress_x"]) for r in rows))
    gd = math.exp(statistics.mean(math.log(r["decompress_x"]) for r in rows))
    low = [r for r in rows if min(r["compress_x"], r["decompress_x"]) < 0.9]
    same = all(abs(r["ratio"] - r["ref_ratio"]) <= 1e-3 * r["ref_ratio"] for r in rows)
    summary = {"configs": len(rows), "geomean_compress_x": gc, "geomean_decompress_x": gd,
               "below_0.9": len(low), "ratio_identical": same}
    if a.json:
        print(json.dumps(summary))
    else:
        print("geomean compress x%.3f, decompress x%.3f over %d configs; ratio identical: %s"
              % (gc, gd, len(rows), same))
        for r in low:
            print("below 0.9: %s %s %s %dt c x%.2f d x%.2f" % (
                r["codec"], r["filter"], r["file"], r["threads"], r["compress_x"], r["decompress_x"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

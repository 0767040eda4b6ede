#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Small boxes of a big Blosc2 HDF5 dataset: the block-wise direct path against h5py.

A 2000x2000 float64 dataset with 1000x1000 chunks (8 MB each) is written through
our plugin with lz4 + shuffle and zstd + bitshuffle (clevel 5). The data are the
benchmark protocol's float64 arrays (../shared/bench/make-datasets, their first
4,000,000 values: f64_sin and f64_linspace, with --data DIR), and a built-in
harder one, a smooth field plus gaussian noise (noisy_field), which compresses
little and whose blocks at chunk edges decode slowly with zstd. For a 10x10 box
in the middle of one chunk and one across 4 chunks it times, alternately,

  * h5py's ordinary read (ds[...]): HDF5 reads and decompresses whole chunks;
  * b2blosc_h5.read_slice: only the frame header, index and needed blocks are
    read (b2_h5_reader_read),

and reports the median time of each (--reps, default 50, after a warm-up), the
speed-up, and the file bytes each reads: the stored size of the chunks for h5py,
the bytes the direct path counted for ours, with the blocks it decoded.

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j
    python3 ../shared/bench/make-datasets /tmp/ds 31     # 31 MiB: 4M float64 values
    /usr/bin/python3 bench/bench_h5_slice.py --plugin-dir build/h5plugin --data /tmp/ds

Options: --plugin-dir DIR (default build/h5plugin), --data DIR (make-datasets
output; without it only noisy_field), --dir DIR for the file (default $TMPDIR),
--reps N, --json (one object per line). Needs h5py and numpy.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOXES = [("10x10 in one chunk", (slice(495, 505), slice(495, 505))),
         ("10x10 across 4 chunks", (slice(995, 1005), slice(995, 1005)))]
CONFIGS = [("lz4", "shuffle"), ("zstd", "bitshuffle")]


def median_ms_pair(fa, fb, reps, rounds=5):
    """Median times of fa and fb in ms: rounds of reps/rounds calls of fa, then of
    fb (A B A B ...: drift hits both alike), each batch after a warm-up call."""
    ta, tb = [], []
    per = max(1, reps // rounds)
    for _ in range(rounds):
        for fn, ts in ((fa, ta), (fb, tb)):
            fn()
            for _ in range(per):
                t0 = time.perf_counter()
                fn()
                ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ta), statistics.median(tb)


def datasets(np, data_dir):
    """(name, 2000x2000 float64 array) for every dataset the run covers."""
    out = []
    n = 2000 * 2000
    for name in ("f64_sin", "f64_linspace"):
        if not data_dir:
            break
        path = os.path.join(data_dir, name + ".bin")
        if not os.path.exists(path) or os.path.getsize(path) < n * 8:
            sys.exit("%s: missing or smaller than %d bytes (make-datasets DIR 31)" % (path, n * 8))
        out.append((name, np.fromfile(path, dtype="<f8", count=n).reshape(2000, 2000)))
    y, x = np.mgrid[0:2000, 0:2000]
    noisy = np.sin(x / 150.0) * np.cos(y / 210.0) * 100 + np.random.default_rng(7).normal(0, 0.01, (2000, 2000))
    out.append(("noisy_field", noisy))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin-dir", default=os.path.join(REPO, "build", "h5plugin"))
    ap.add_argument("--data", default=None)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    pdir = os.path.abspath(a.plugin_dir)
    if not os.path.isfile(os.path.join(pdir, "libH5Zb2.so")):
        sys.exit("no libH5Zb2.so in %s (build first, or pass --plugin-dir)" % pdir)
    os.environ["HDF5_PLUGIN_PATH"] = pdir
    os.environ["B2_H5_PLUGIN"] = os.path.join(pdir, "libH5Zb2.so")
    sys.path.insert(0, os.path.join(REPO, "python"))
    import h5py
    import numpy as np
    import b2blosc_h5 as b2h5

    arrays = datasets(np, a.data)
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        path = os.path.join(tmp, "bench.h5")
        names = []
        with h5py.File(path, "w") as f:
            for dname, data in arrays:
                for codec, filt in CONFIGS:
                    names.append("%s/%s_%s" % (dname, codec, filt))
                    f.create_dataset(names[-1], data=data, chunks=(1000, 1000),
                                     **b2h5.filter_kwargs(codec=codec, clevel=5, filter=filt))
        if not a.json:
            print("# 2000x2000 float64, chunks 1000x1000 (8 MB), clevel 5; median of %d reads each, "
                  "alternating" % a.reps)
            print("%-30s %-22s %9s %9s %8s %12s %12s %6s" % (
                "dataset", "box", "h5py ms", "ours ms", "speedup", "h5py bytes", "ours bytes",
                "blocks"))
        with h5py.File(path, "r") as f:
            for name in names:
                ds = f[name]
                for label, key in BOXES:
                    want = ds[key]
                    got, rep = b2h5.read_slice(ds, key, report=True)
                    if rep["path"] != "direct" or not np.array_equal(got, want):
                        sys.exit("direct read of %s %s failed: %s" % (ds.name, label, rep))
                    t_h5, t_b2 = median_ms_pair(lambda: b2h5._h5py_getitem(ds, key),
                                                lambda: b2h5.read_slice(ds, key), a.reps)
                    # HDF5 reads every touched chunk whole
                    offs = {(r // 1000 * 1000, c // 1000 * 1000)
                            for r in (key[0].start, key[0].stop - 1) for c in (key[1].start, key[1].stop - 1)}
                    h5_bytes = sum(ds.id.get_chunk_info_by_coord(o).size for o in offs)
                    row = {"dataset": name, "box": label, "h5py_ms": t_h5, "direct_ms": t_b2,
                           "speedup": t_h5 / t_b2, "h5py_bytes": h5_bytes,
                           "direct_bytes": rep["bytes_read"], "blocks": rep["blocks_decoded"],
                           "chunks": len(offs)}
                    if a.json:
                        print(json.dumps(row))
                    else:
                        print("%-30s %-22s %9.3f %9.3f %7.1fx %12d %12d %6d" % (
                            name, label, t_h5, t_b2, row["speedup"], h5_bytes,
                            rep["bytes_read"], rep["blocks_decoded"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

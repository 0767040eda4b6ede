#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.h5.read / write (libb2's parallel reader and writer) against h5py.

For each case of a small grid (256 MiB int32 ramp and float32 field, lz4 5 +
shuffle and zstd 1 + shuffle, 1 MiB and 128 KiB chunks; --quick: the ramp,
lz4, 1 MiB only) it writes the dataset through our filter and then, alternating
A B A B (--rounds, after a warm-up of each), times

  * read:  h5py ds.read_direct(out) with B2_H5_NTHREADS=N, against
           b2blosc.h5.read(ds, threads=N, out=out2) (default 64 MiB slabs);
  * write: h5py ds[...] = a with B2_H5_NTHREADS=N into a new dataset, against
           b2blosc.h5.write(ds, ..., a, threads=N) into a new dataset;

checks the bytes agree, and prints medians in GB/s, the ratios, their geometric
mean, the CPU model and the load average before and after. The machine may be
busy: the load average is there to judge the figures.

    /usr/bin/python3 bench/bench_pypkg_h5par.py --plugin-dir build/h5plugin [--quick]
"""
import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from benchlib import cpu_model, loadavg  # bench/benchlib.py

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def alternate(fa, fb, rounds):
    fa(), fb()
    ta, tb = [], []
    for _ in range(rounds):
        for fn, ts in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin-dir", default=os.path.join(REPO, "build", "h5plugin"))
    ap.add_argument("--dir", default=None)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    so = os.path.join(os.path.abspath(a.plugin_dir), "libH5Zb2.so")
    if not os.path.isfile(so):
        sys.exit("no libH5Zb2.so in %s (build first, or pass --plugin-dir)" % a.plugin_dir)
    empty = tempfile.mkdtemp(prefix="b2bench_empty_")
    os.environ["HDF5_PLUGIN_PATH"] = empty  # our filter comes from b2blosc's registration
    os.environ["B2_H5_PLUGIN"] = so
    os.environ["B2_H5_NTHREADS"] = str(a.threads)
    sys.path.insert(0, os.path.join(REPO, "python"))
    import numpy as np
    import h5py
    import b2blosc  # noqa: F401
    import b2blosc.h5 as b2h5

    n = a.mib * (1 << 20) // 4
    kinds = ["ramp"] if a.quick else ["ramp", "field"]
    codecs = [("lz4", 5)] if a.quick else [("lz4", 5), ("zstd", 1)]
    chunks = [1024] if a.quick else [1024, 128]
    print("# b2blosc.h5 vs h5py, %d MiB, %d threads (B2_H5_NTHREADS=%d for h5py), median of %d "
          "rounds, alternating; warm page cache" % (a.mib, a.threads, a.threads, a.rounds))
    print("# CPU: %s, %d cores; load average before: %s" % (cpu_model(), os.cpu_count(), loadavg()))
    print("%-6s %-6s %6s | %9s %9s %6s | %9s %9s %6s" % (
        "data", "codec", "chunk", "h5py rd", "ours rd", "ratio", "h5py wr", "ours wr", "ratio"))
    rr, rw = [], []
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        for kind in kinds:
            if kind == "ramp":
                data = np.arange(n, dtype="<i4")
            else:
                x = np.arange(n, dtype=np.float32)
                data = (np.sin(x / 1000.0) * 100 + np.cos(x / 37.0)).astype("<f4")
            for codec, clevel in codecs:
                for ckib in chunks:
                    kw = b2h5.filter_kwargs(codec=codec, clevel=clevel, filter="shuffle")
                    path = os.path.join(tmp, "b.h5")
                    ch = (ckib * 1024 // 4,)
                    with h5py.File(path, "w") as f:
                        f.create_dataset("d", data=data, chunks=ch, **kw)
                    out_a = np.empty_like(data)
                    out_b = np.empty_like(data)
                    with h5py.File(path, "r") as f:
                        ds = f["d"]
                        ta, tb = alternate(lambda: ds.read_direct(out_a),
                                           lambda: b2h5.read(ds, threads=a.threads, out=out_b),
                                           a.rounds)
                        if not (np.array_equal(out_a, data) and np.array_equal(out_b, data)):
                            sys.exit("reads differ")
                    gr = (data.nbytes / ta / 1e9, data.nbytes / tb / 1e9)
                    rr.append(ta / tb)
                    gw = (float("nan"), float("nan"))
                    if not a.no_write:
                        wpath = os.path.join(tmp, "w.h5")
                        k = [0]
                        with h5py.File(wpath, "w") as f:
                            def h5w():
                                k[0] += 1
                                d = f.create_dataset("h%d" % k[0], shape=data.shape, dtype=data.dtype,
                                                     chunks=ch, **kw)
                                d[...] = data

                            def ourw():
                                k[0] += 1
                                d = f.create_dataset("b%d" % k[0], shape=data.shape, dtype=data.dtype,
                                                     chunks=ch, **kw)
                                b2h5.write(d, ..., data, threads=a.threads)
                            twa, twb = alternate(h5w, ourw, a.rounds)
                            h = f["h%d" % (k[0] - 1)]
                            b = f["b%d" % k[0]]
                            if h.id.read_direct_chunk((0,)) != b.id.read_direct_chunk((0,)):
                                sys.exit("first chunks differ")
                        os.unlink(wpath)
                        gw = (data.nbytes / twa / 1e9, data.nbytes / twb / 1e9)
                        rw.append(twa / twb)
                    print("%-6s %-6s %5dK | %9.2f %9.2f %5.2fx | %9.2f %9.2f %5.2fx" % (
                        kind, "%s%d" % (codec, clevel), ckib, gr[0], gr[1], gr[1] / gr[0],
                        gw[0], gw[1], gw[1] / gw[0]))
                    sys.stdout.flush()

    def gmean(v):
        return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
    print("# GB/s; geometric mean of the ratios: read %.2fx, write %.2fx" % (gmean(rr), gmean(rw)))
    print("# load average after: %s" % loadavg())
    os.rmdir(empty)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Whole-dataset reads: h5py's read_direct through our filter against the parallel
b2_h5_reader (b2_h5_reader_set_nthreads), called through ctypes on the built plugin.

A 256 MiB int32 ramp (1-D, 1 MiB chunks) is written through our plugin with
lz4 5 + shuffle. Then, alternating A B A B (--rounds, default 7, after a warm-up
read of each), it times

  * h5py  ds.read_direct(out) with B2_H5_NTHREADS=N (HDF5 runs the filter chunk
    by chunk on the calling thread; the filter spreads a chunk's blocks on N);
  * ours  b2_h5_reader_read of the whole dataset with N reader threads;

for N = --threads (default 2, and 1 for reference), checks the bytes agree, and
prints the medians in GB/s, the ratio, the CPU time of each read (all threads),
the CPU model and the load average.

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2
    /usr/bin/python3 bench/bench_h5_read.py --plugin-dir build/h5plugin

Options: --plugin-dir DIR, --dir DIR (for the file; default $TMPDIR), --mib N
(dataset size), --chunk-kib N, --codec, --clevel, --filter, --rounds, --threads.
"""
import argparse
import ctypes
import os
import resource
import statistics
import sys
import tempfile
import time
from benchlib import cpu_model  # bench/benchlib.py

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin-dir", default=os.path.join(REPO, "build", "h5plugin"))
    ap.add_argument("--dir", default=None)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--chunk-kib", type=int, default=1024)
    ap.add_argument("--codec", default="lz4")
    ap.add_argument("--clevel", type=int, default=5)
    ap.add_argument("--filter", default="shuffle")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, nargs="+", default=[2, 1])
    a = ap.parse_args()
    pdir = os.path.abspath(a.plugin_dir)
    so = os.path.join(pdir, "libH5Zb2.so")
    if not os.path.isfile(so):
        sys.exit("no libH5Zb2.so in %s (build first, or pass --plugin-dir)" % pdir)
    os.environ["HDF5_PLUGIN_PATH"] = pdir
    os.environ["B2_H5_PLUGIN"] = so
    sys.path.insert(0, os.path.join(REPO, "python"))
    import h5py
    import numpy as np
    import b2blosc_h5 as b2h5

    lib = ctypes.CDLL(so)
    lib.b2_h5_reader_open.argtypes = [ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p)]
    lib.b2_h5_reader_set_nthreads.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.b2_h5_reader_read.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_uint64),
                                      ctypes.POINTER(ctypes.c_uint64), ctypes.c_void_p, ctypes.c_size_t,
                                      ctypes.c_void_p]
    lib.b2_h5_reader_free.argtypes = [ctypes.c_void_p]

    n = a.mib * (1 << 20) // 4
    chunk = a.chunk_kib * 1024 // 4
    data = np.arange(n, dtype="<i4")
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        path = os.path.join(tmp, "ramp.h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("d", data=data, chunks=(chunk,),
                             **b2h5.filter_kwargs(codec=a.codec, clevel=a.clevel, filter=a.filter))
        del data
        stored = os.path.getsize(path)
        print("# %d MiB int32 ramp, %d KiB chunks, %s %d + %s (file %.1f MiB); median of %d "
              "rounds, alternating" % (a.mib, a.chunk_kib, a.codec, a.clevel, a.filter,
                                       stored / 2**20, a.rounds))
        print("# CPU: %s, %d cores; load average before: %s" % (
            cpu_model(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
        out_a = np.empty(n, dtype="<i4")
        out_b = np.empty(n, dtype="<i4")
        with h5py.File(path, "r") as f:
            ds = f["d"]
            rd = ctypes.c_void_p()
            if lib.b2_h5_reader_open(ds.id.id, ctypes.byref(rd)) < 0:
                sys.exit("b2_h5_reader_open failed")
            st = (ctypes.c_uint64 * 1)(0)
            ct = (ctypes.c_uint64 * 1)(n)
            print("%8s %12s %12s %8s %13s %13s" % ("threads", "h5py GB/s", "ours GB/s", "ratio",
                                                 "h5py cpu ms", "ours cpu ms"))
            res = {}
            for nt in a.threads:
                os.environ["B2_H5_NTHREADS"] = str(nt)
                lib.b2_h5_reader_set_nthreads(rd, nt)

                def h5():
                    ds.read_direct(out_a)

                def ours():
                    rc = lib.b2_h5_reader_read(rd, 0, st, ct, out_b.ctypes.data, out_b.nbytes, None)
                    if rc < 0:
                        sys.exit("b2_h5_reader_read failed (%d)" % rc)
                ta, tb, ca, cb = [], [], [], []
                h5(), ours()
                if not np.array_equal(out_a, out_b):
                    sys.exit("the parallel read differs from h5py's")
                for _ in range(a.rounds):
                    for fn, ts, cs in ((h5, ta, ca), (ours, tb, cb)):
                        r0 = resource.getrusage(resource.RUSAGE_SELF)
                        t0 = time.perf_counter()
                        fn()
                        ts.append(time.perf_counter() - t0)
                        r1 = resource.getrusage(resource.RUSAGE_SELF)
                        cs.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
                ga = n * 4 / statistics.median(ta) / 1e9
                gb = n * 4 / statistics.median(tb) / 1e9
                print("%8d %12.2f %12.2f %7.2fx %13.1f %13.1f" % (
                    nt, ga, gb, gb / ga, statistics.median(ca) * 1e3, statistics.median(cb) * 1e3))
                res[nt] = (ga, gb)
            for nt in a.threads:
                if nt != 1 and 1 in res:
                    print("# ours with %d threads / h5py with B2_H5_NTHREADS=1: %.2fx; ours %d threads "
                          "/ ours 1 thread: %.2fx" % (nt, res[nt][1] / res[1][0], nt,
                                                       res[nt][1] / res[1][1]))
            lib.b2_h5_reader_free(rd)
        print("# load average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

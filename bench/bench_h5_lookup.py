#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The calling thread's HDF5 time per chunk of b2blosc.h5.read (issue 38):
finding chunks with one H5Dchunk_iter (after) against chunk by chunk (before:
B2_H5_CHUNK_LOOKUP=noiter, the choice HDF5 releases without the call get).

Whole-dataset reads of datasets with --chunks (default 2048,16384) chunks of
--chunk-kib KiB (float32 field, lz4 + shuffle). Each read opens a new reader
(the variable is read when a reader opens), the two modes alternate round by
round (A B A B ..., --rounds, default 7) and medians are compared. The figures
come from b2_h5_reader_lookup_stats: nanoseconds inside the HDF5 calls that
find chunks and read their stored bytes, on the calling thread. The decode work
per chunk d (threads=1 wall time per chunk minus that) gives the estimate of a
read on N cores: chunks x max(s, (s + d) / N).

    PYTHONPATH=python B2_H5_PLUGIN=build/h5plugin/libH5Zb2.so \\
        B2_LIBB2=build/libb2/libb2blosc.so <venv>/bin/python bench/bench_h5_lookup.py
"""
import argparse
import ctypes
import os
import statistics
import sys
import tempfile
import time

import h5py
import numpy as np

import b2blosc
import b2blosc.h5 as b2h5
from b2blosc import _loader
from benchlib import cpu_flags, cpu_model  # bench/benchlib.py


class Stats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int64) for n in
                ("iterations", "iterated", "by_coord", "read_chunk", "chunks", "hdf5_ns")]


def make(path, nchunks, chunk_kib):
    n = chunk_kib * 256  # float32 items a chunk
    side = n // 256
    x = np.linspace(0, 40, nchunks * side, dtype=np.float32)[:, None]
    a = (np.sin(x) + np.cos(np.arange(256, dtype=np.float32) / 7)).astype(np.float32)
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=(side, 256),
                         compression=b2blosc.Blosc2(cname="lz4", clevel=5, filters="shuffle"))
    return a


def one_read(path, mode, threads, lib):
    os.environ["B2_H5_CHUNK_LOOKUP"] = mode
    with h5py.File(path, "r") as f:
        ds = f["x"]
        t0 = time.perf_counter()
        a = b2h5.read(ds, threads=threads)
        wall = time.perf_counter() - t0
        st = Stats()
        rc = lib.b2_h5_reader_lookup_stats(ctypes.c_void_p(b2h5._reader(ds.id)), ctypes.byref(st))
        assert rc == 0, rc
    return a, wall, st


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", default="2048,16384")
    ap.add_argument("--chunk-kib", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    lib = _loader.load()
    lib.b2_h5_reader_lookup_stats.argtypes = [ctypes.c_void_p, ctypes.POINTER(Stats)]
    lib.b2_h5_reader_lookup_stats.restype = ctypes.c_int
    model, flags = cpu_model(), cpu_flags()
    print("# CPU %s (%d cores; %s); h5py %s, HDF5 %s; load %s" % (
        model, os.cpu_count(), flags, h5py.__version__, h5py.version.hdf5_version,
        " ".join("%.2f" % v for v in os.getloadavg())))
    print("# plugin %s" % _loader.plugin_file())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for nc in [int(v) for v in args.chunks.split(",")]:
            path = os.path.join(tmp, "d%d.h5" % nc)
            ref = make(path, nc, args.chunk_kib)
            res = {m: {"s": [], "w1": [], "st": None} for m in ("noiter", "auto")}
            for r in range(args.rounds + 1):
                for m in ("noiter", "auto"):   # A B A B ...
                    a, wall, st = one_read(path, m, 1, lib)
                    if r == 0:
                        assert np.array_equal(a, ref), m   # warm-up round, checked
                        continue
                    res[m]["s"].append(st.hdf5_ns / 1e3 / nc)
                    res[m]["w1"].append(wall * 1e6 / nc)
                    res[m]["st"] = st
            for m, what in (("noiter", "before"), ("auto", "after")):
                s = statistics.median(res[m]["s"])
                w1 = statistics.median(res[m]["w1"])
                st = res[m]["st"]
                rows.append((nc, what, s, w1, st))
    print("| chunks | | s: HDF5 us/chunk (calling thread) | read threads=1 us/chunk | "
          "d us/chunk | iterations / records / by-coord / read_chunk (last read) | 16 cores | 64 cores |")
    print("|---|---|---|---|---|---|---|---|")
    for nc, what, s, w1, st in rows:
        d = max(w1 - s, 0.0)
        est = lambda n: 1.0 / max(s, (s + d) / n)   # chunks per us
        gb = args.chunk_kib * 1024 * 1e6 / 1e9   # GB/s at one chunk per us
        print("| %d | %s | %.3f | %.2f | %.2f | %d / %d / %d / %d | %.1f GB/s | %.1f GB/s |" % (
            nc, what, s, w1, d, st.iterations, st.iterated, st.by_coord, st.read_chunk,
            est(16) * gb, est(64) * gb))
    print("# saturation: look-ups stop scaling at N = 1 + d / s cores")
    for nc, what, s, w1, st in rows:
        print("#  %d chunks %s: N = %.0f" % (nc, what, 1 + max(w1 - s, 0) / s if s else float("inf")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

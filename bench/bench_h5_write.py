#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Whole-dataset HDF5 write: h5py through filter 32026 (A) against
b2_h5_write_box (B), alternating A B A B in one process, warm page cache.

  bench/bench_h5_write.py PLUGIN_DIR [--mib 256] [--chunk-mib 1] [--threads 2]
                          [--reps 5] [--codec 1] [--clevel 5] [--dir DIR]

Data: an int32 ramp with small noise (shape N x 512 x 512, as
../shared/bench/h5-compare makes it), chunks of --chunk-mib MiB, lz4 5 +
shuffle by default. A: h5py create_dataset(data=...) with
B2_H5_NTHREADS=--threads (the filter's threads work inside each chunk). B: the
same dataset created empty, then b2_h5_write_box of the whole array with
--threads compressing threads (called through ctypes on the built plugin, like
python/b2blosc_h5.py). Each write is a whole file (create, write, close). Prints
the CPU model, the load average before and after, MB/s (10^6 bytes of raw data
per second) of each run, medians, and the median of the pair ratios B / A. The
first pair's chunks are checked byte for byte (H5Dread_chunk)."""
import argparse
import ctypes
import os
import statistics
import sys
import tempfile
import time
from benchlib import cpu_model, loadavg  # bench/benchlib.py

MAXRANK = 32


class WriteOptions(ctypes.Structure):
    _fields_ = [("nthreads", ctypes.c_int), ("set_params", ctypes.c_int),
                ("filters", ctypes.c_uint8 * 6), ("filters_meta", ctypes.c_uint8 * 6),
                ("use_dict", ctypes.c_int), ("blockshape", ctypes.c_int32 * MAXRANK)]


class WriteReport(ctypes.Structure):
    _fields_ = [("path", ctypes.c_int), ("reason", ctypes.c_char * 128),
                ("chunks_direct", ctypes.c_int64), ("chunks_raw", ctypes.c_int64),
                ("chunks_h5dwrite", ctypes.c_int64), ("bytes_stored", ctypes.c_int64),
                ("nthreads", ctypes.c_int)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("plugin_dir")
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--chunk-mib", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--codec", type=int, default=1)
    ap.add_argument("--clevel", type=int, default=5)
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    os.environ["HDF5_PLUGIN_PATH"] = os.path.abspath(a.plugin_dir)
    os.environ["B2_H5_NTHREADS"] = str(a.threads)
    import h5py
    import numpy as np
    lib = ctypes.CDLL(os.path.join(os.path.abspath(a.plugin_dir), "libH5Zb2.so"))
    wb = lib.b2_h5_write_box
    wb.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_uint64),
                   ctypes.POINTER(ctypes.c_uint64), ctypes.c_void_p, ctypes.c_size_t,
                   ctypes.POINTER(WriteOptions), ctypes.POINTER(WriteReport)]
    wb.restype = ctypes.c_int

    ny = nx = 512
    nz = a.mib * 2 ** 20 // (4 * ny * nx)
    rng = np.random.default_rng(3)
    arr = ((np.arange(nz * ny * nx, dtype=np.int64) // 7).astype(np.int32).reshape(nz, ny, nx)
           + rng.integers(-3, 4, (nz, ny, nx), dtype=np.int32))
    crows = max(1, a.chunk_mib * 2 ** 20 // (4 * nx))
    chunks = (max(1, crows // ny), min(ny, crows), nx)
    opts = (0, 0, 0, 0, a.clevel, 1, a.codec)
    tmp = a.dir or tempfile.mkdtemp(prefix="bench_h5w_")
    pa, pb = os.path.join(tmp, "a.h5"), os.path.join(tmp, "b.h5")

    def run_a():
        t0 = time.perf_counter()
        with h5py.File(pa, "w") as f:
            f.create_dataset("d", data=arr, chunks=chunks, compression=32026, compression_opts=opts)
        return time.perf_counter() - t0

    def run_b():
        t0 = time.perf_counter()
        with h5py.File(pb, "w") as f:
            ds = f.create_dataset("d", shape=arr.shape, dtype=arr.dtype, chunks=chunks,
                                  compression=32026, compression_opts=opts)
            st = (ctypes.c_uint64 * 3)(0, 0, 0)
            ct = (ctypes.c_uint64 * 3)(*arr.shape)
            o = WriteOptions(nthreads=a.threads)
            rep = WriteReport()
            rc = wb(ds.id.id, 0, st, ct, arr.ctypes.data, arr.nbytes, ctypes.byref(o), ctypes.byref(rep))
            if rc != 0 or rep.path != 1:
                sys.exit("b2_h5_write_box: rc %d path %d (%s)" % (rc, rep.path, rep.reason.decode()))
        return time.perf_counter() - t0

    print("CPU: %s; %d cores online" % (cpu_model(), os.cpu_count()))
    print("load average before: %s" % loadavg())
    print("data: int32 ramp %s (%d MiB), chunks %s (%d KiB), codec %d clevel %d shuffle, %d threads"
          % (arr.shape, arr.nbytes >> 20, chunks, 4 * chunks[0] * chunks[1] * chunks[2] >> 10,
             a.codec, a.clevel, a.threads))
    run_a(), run_b()  # warm-up (page cache, allocator, threads)
    # the two files hold the same chunks
    with h5py.File(pa, "r") as fa, h5py.File(pb, "r") as fb:
        da, db = fa["d"], fb["d"]
        same = all(da.id.read_direct_chunk((k, 0, 0)) == db.id.read_direct_chunk((k, 0, 0))
                   for k in range(0, nz, chunks[0]))
        ratio = arr.nbytes / da.id.get_storage_size()
    print("chunks byte-identical: %s; compression ratio %.2f" % (same, ratio))
    mb = arr.nbytes / 1e6
    ta, tb, pairs = [], [], []
    for r in range(a.reps):
        x, y = run_a(), run_b()
        ta.append(mb / x)
        tb.append(mb / y)
        pairs.append(x / y)
        print("rep %d: h5py %.0f MB/s, write_box %.0f MB/s, ratio %.2f" % (r, ta[-1], tb[-1], pairs[-1]))
    print("median: h5py write %.0f MB/s; b2_h5_write_box %.0f MB/s; median pair ratio %.2fx"
          % (statistics.median(ta), statistics.median(tb), statistics.median(pairs)))
    print("load average after: %s" % loadavg())
    for p in (pa, pb):
        os.unlink(p)
    if not a.dir:
        os.rmdir(tmp)


if __name__ == "__main__":
    main()

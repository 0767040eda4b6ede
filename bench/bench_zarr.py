# SPDX-License-Identifier: BSD-3-Clause
"""Speed of zarr v3 arrays with b2blosc.codecs.Blosc2Zarr against the same
arrays with numcodecs.Blosc (Blosc1, through zarr.codecs.numcodecs.Blosc) and
with imagecodecs' Blosc2 numcodecs codec (imagecodecs.numcodecs.Blosc2,
wrapped for zarr v3 as zarr.codecs.numcodecs wraps numcodecs' own). A
workshop tool, not a test (issue 38).

    build/peers/hdf5-2.0/bin/python bench/bench_zarr.py [--mib 256] [--reps 3]

Data: a 256 MiB float32 field (sums of sines and cosines plus noise of 1e-3)
and a 256 MiB int32 ramp, chunks of 1 MiB, in a zarr MemoryStore (the codecs'
work, not a disk's). Settings: lz4 clevel 5 + shuffle and zstd clevel 1 +
shuffle, typesize 4, the same split mode for both Blosc2 codecs
(forward_compat, the format's default; imagecodecs' own default is "always").
Threads: every codec runs single-threaded inside a call (nthreads=1,
numthreads=1; numcodecs.blosc.use_threads is False under zarr), and zarr
runs chunks concurrently in its thread pool, limited to 2 threads
(zarr.config threading.max_workers=2): so each side has 2 threads.
Order: per dataset, setting and competitor, ours and theirs alternate
A B A B ... (5 pairs by default); the table gives median times, the ratios
theirs/ours (above 1: ours faster) of wall time and of the process's CPU time
(all threads), compression ratios; the geometric means also of the best
(shortest) times, which other processes' load disturbs least, then geometric means of the ratios. The
CPU's model and SIMD flags come from /proc/cpuinfo."""
import argparse
import math
import os
import platform
import statistics
import sys
import time

import numpy as np
from benchlib import machine_line  # bench/benchlib.py

def make_data(mib):
    n = mib * 2 ** 20 // 4
    side = int(math.isqrt(n))
    shape = (n // side, side)
    rng = np.random.default_rng(38)
    y = np.arange(shape[0], dtype="f4")[:, None]
    x = np.arange(shape[1], dtype="f4")[None, :]
    field = (np.sin(y / 211) + np.cos(x / 97) + 0.5 * np.sin((x + y) / 53)).astype("f4")
    field += rng.normal(0, 1e-3, shape).astype("f4")
    ramp = np.arange(shape[0] * shape[1], dtype="i4").reshape(shape)
    return {"float32 field": field, "int32 ramp": ramp}


def chunks_for(shape, itemsize, nbytes=2 ** 20):
    cols = min(shape[1], 512)
    return (max(1, nbytes // itemsize // cols), cols)


def codecs_for(cname, clevel):
    """{label: a zarr v3 compressor} for one setting."""
    import imagecodecs.numcodecs
    import numcodecs
    from zarr.codecs.numcodecs import Blosc as ZBlosc
    from zarr.codecs.numcodecs._codecs import _NumcodecsBytesBytesCodec

    import b2blosc.codecs

    numcodecs.register_codec(imagecodecs.numcodecs.Blosc2)

    class ImagecodecsBlosc2(_NumcodecsBytesBytesCodec, codec_name="imagecodecs_blosc2"):
        pass

    return {
        "ours": b2blosc.codecs.Blosc2Zarr(cname=cname, clevel=clevel, filters="shuffle",
                                          typesize=4, splitmode="forward_compat", nthreads=1),
        "numcodecs.Blosc": ZBlosc(cname=cname, clevel=clevel, shuffle=1, blocksize=0,
                                  typesize=4),
        "imagecodecs Blosc2": ImagecodecsBlosc2(level=clevel, compressor=cname,
                                                shuffle="shuffle", typesize=4,
                                                splitmode="forward", numthreads=1),
    }


def one_run(data, chunks, codec, warm):
    """(write s, read s, write CPU s, read CPU s, compressed bytes, read-into s)
    of data in a new MemoryStore. CPU: the process's CPU time over all its
    threads, which other processes on a shared machine disturb less than the
    wall clock. read-into: the same read into warm, an array already written
    (z.get_basic_selection(out=...)), which leaves out zarr's allocation of a
    new result array: its page faults take most of a plain z[...] here."""
    import zarr
    from zarr.core.buffer.cpu import NDBuffer
    from zarr.storage import MemoryStore
    store_dict = {}
    store = MemoryStore(store_dict)
    z = zarr.create_array(store, shape=data.shape, chunks=chunks, dtype=data.dtype,
                          compressors=[codec], fill_value=0)
    t0, c0 = time.perf_counter(), time.process_time()
    z[...] = data
    tw, cw = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    back = z[...]
    tr, cr = time.perf_counter() - t0, time.process_time() - c0
    if not np.array_equal(back, data):
        sys.exit("bench_zarr: %r read back other values" % (codec,))
    del back
    warm.fill(0)
    t0 = time.perf_counter()
    z.get_basic_selection(Ellipsis, out=NDBuffer.from_numpy_array(warm))
    ti = time.perf_counter() - t0
    if not np.array_equal(warm, data):
        sys.exit("bench_zarr: %r read back other values into out" % (codec,))
    cbytes = sum(len(v) for k, v in store_dict.items() if not k.endswith("zarr.json"))
    return tw, tr, cw, cr, cbytes, ti


def bench(data_sets, reps):
    rows = []
    for dname, data in data_sets.items():
        chunks = chunks_for(data.shape, data.dtype.itemsize)
        warm = np.ones_like(data)
        for cname, clevel in (("lz4", 5), ("zstd", 1)):
            cs = codecs_for(cname, clevel)
            for theirs in ("numcodecs.Blosc", "imagecodecs Blosc2"):
                times = {"ours": [], theirs: []}
                cb = {}
                for _ in range(reps):   # A B A B A B
                    for who in ("ours", theirs):
                        tw, tr, cw, cr, cbytes, ti = one_run(data, chunks, cs[who], warm)
                        times[who].append((tw, tr, cw, cr, ti))
                        cb[who] = cbytes
                med = {w: [statistics.median(t[i] for t in v) for i in range(5)]
                       for w, v in times.items()}
                best = {w: [min(t[i] for t in v) for i in range(2)] for w, v in times.items()}
                mb = data.nbytes / 2 ** 20
                row = {"data": dname, "setting": "%s %d shuffle" % (cname, clevel),
                       "theirs": theirs,
                       "ours_w": mb / med["ours"][0], "ours_r": mb / med["ours"][1],
                       "theirs_w": mb / med[theirs][0], "theirs_r": mb / med[theirs][1],
                       "w_ratio": med[theirs][0] / med["ours"][0],
                       "r_ratio": med[theirs][1] / med["ours"][1],
                       "w_best": best[theirs][0] / best["ours"][0],
                       "r_best": best[theirs][1] / best["ours"][1],
                       "w_cpu": med[theirs][2] / med["ours"][2],
                       "r_cpu": med[theirs][3] / med["ours"][3],
                       "ours_i": mb / med["ours"][4], "theirs_i": mb / med[theirs][4],
                       "i_ratio": med[theirs][4] / med["ours"][4],
                       "ours_cr": data.nbytes / cb["ours"], "theirs_cr": data.nbytes / cb[theirs]}
                rows.append(row)
                print("%-14s %-16s vs %-18s write %6.0f/%6.0f MiB/s (x%.2f, CPU x%.2f) read "
                      "%6.0f/%6.0f MiB/s (x%.2f, CPU x%.2f) into out %6.0f/%6.0f MiB/s (x%.2f) "
                      "ratio %.2f/%.2f" % (
                          dname, row["setting"], theirs, row["ours_w"], row["theirs_w"],
                          row["w_ratio"], row["w_cpu"], row["ours_r"], row["theirs_r"],
                          row["r_ratio"], row["r_cpu"], row["ours_i"], row["theirs_i"],
                          row["i_ratio"], row["ours_cr"], row["theirs_cr"]),
                      flush=True)
    return rows


def table(rows):
    print("\n| data | setting | vs | write MiB/s ours / theirs | write x (CPU x) | "
          "read MiB/s ours / theirs | read x (CPU x) | read into out MiB/s | into out x | "
          "ratio ours / theirs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| %s | %s | %s | %.0f / %.0f | %.2f (%.2f) | %.0f / %.0f | %.2f (%.2f) | "
              "%.0f / %.0f | %.2f | %.2f / %.2f |" % (
                  r["data"], r["setting"], r["theirs"], r["ours_w"], r["theirs_w"], r["w_ratio"],
                  r["w_cpu"], r["ours_r"], r["theirs_r"], r["r_ratio"], r["r_cpu"],
                  r["ours_i"], r["theirs_i"], r["i_ratio"], r["ours_cr"], r["theirs_cr"]))
    print()
    for theirs in sorted({r["theirs"] for r in rows}):
        sel = [r for r in rows if r["theirs"] == theirs]
        g = {k: math.exp(statistics.mean(math.log(r[k]) for r in sel))
             for k in ("w_ratio", "r_ratio", "w_cpu", "r_cpu", "w_best", "r_best", "i_ratio")}
        print("geometric mean vs %-18s: read x%.2f (CPU x%.2f, best-of x%.2f), read into out "
              "x%.2f, write x%.2f (CPU x%.2f, best-of x%.2f) (x > 1: ours faster)"
              % (theirs, g["r_ratio"], g["r_cpu"], g["r_best"], g["i_ratio"], g["w_ratio"],
                 g["w_cpu"], g["w_best"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=256, help="size of each data set (MiB)")
    ap.add_argument("--reps", type=int, default=5, help="A B pairs per comparison")
    args = ap.parse_args()
    import imagecodecs
    import numcodecs
    import zarr
    zarr.config.set({"threading.max_workers": 2})
    print(machine_line())
    import b2blosc
    print("b2blosc %s, zarr %s, numcodecs %s, imagecodecs %s (%s), numpy %s, Python %s" % (
        b2blosc.__version__, zarr.__version__, numcodecs.__version__, imagecodecs.__version__,
        imagecodecs.blosc2_version(), np.__version__, platform.python_version()))
    print("zarr threading.max_workers=2; codecs single-threaded per call; MemoryStore; "
          "%d MiB per data set, 1 MiB chunks, %d A/B pairs" % (args.mib, args.reps), flush=True)
    t0 = time.time()
    rows = bench(make_data(args.mib), args.reps)
    table(rows)
    print("total %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()

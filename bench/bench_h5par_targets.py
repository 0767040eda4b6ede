#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Issue 25's target tables: whole-dataset HDF5 reads and writes, b2blosc.h5
(libb2's parallel reader and writer) against h5py through our filter, Debian's
Blosc1 filter and uncompressed HDF5.

Grid: 256 MiB (--mib) int32 ramp and float32 field, lz4 5 + shuffle and zstd 1 +
shuffle, 1 MiB and 128 KiB chunks. For each case, with a warm page cache and
every method run once first, the methods alternate round by round (A B C D E F,
--rounds, default 7) and medians are compared:

  read   h5py2   h5py ds.read_direct(out), our filter with B2_H5_NTHREADS=2
         ours2   b2blosc.h5.read(ds, threads=2, out=out)
         h5py1   as h5py2 with B2_H5_NTHREADS=1
         ours1   as ours2 with threads=1
         blosc1  h5py read_direct of the same data through Debian's Blosc1 filter
                 (32001, same codec, level and shuffle; BLOSC_NTHREADS=2)
         plain   h5py read_direct of the same data stored contiguous, uncompressed
  write  h5py2   ds[...] = a into a new dataset, our filter, B2_H5_NTHREADS=2
         ours2   b2blosc.h5.write(ds, ..., a, threads=2) into a new dataset
         (the method's previous dataset deleted first: the file stays one size)

Every read is checked against the data. Scaling: the calling thread's HDF5
work per chunk (s: the look-up, plus the H5Dread_chunk copy for chunks read
through HDF5; timed by a loop over the same HDF5 calls through ctypes, so an
upper bound) and the decode work per chunk (d = ours1 / chunks - s) give a paper
estimate of a read on N cores: chunks * max(s, (s + d) / N); the look-ups stop
scaling at N = 1 + d / s cores, before memory bandwidth on most machines.

    /usr/bin/python3 bench/bench_h5par_targets.py [--plugin-dir build/h5plugin]
"""
import argparse
import ctypes
import math
import os
import statistics
import sys
import tempfile
import time
from benchlib import cpu_flags, cpu_model  # bench/benchlib.py

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOSC1_DIRS = ["/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins", "/usr/lib/aarch64-linux-gnu/hdf5/serial/plugins"]
BLOSC1_CODE = {"lz4": 1, "zstd": 5}   # hdf5-blosc's compressor codes


def load():
    return " ".join("%.2f" % x for x in os.getloadavg())


def gmean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def alternate(fns, rounds):
    """fns: name -> callable. Each runs once, then rounds of all in turn; medians."""
    for fn in fns.values():
        fn()
    ts = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            ts[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in ts.items()}


def hdf5_lib():
    """libhdf5 as loaded by h5py (Debian's), for the per-chunk look-up timing."""
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if "libhdf5" in os.path.basename(p) and "_hl" not in p and p.startswith("/"):
                return ctypes.CDLL(p)
    return None


def serial_per_chunk(h5, ds, nchunks, chunk_items, via_hdf5, bufsize):
    """Seconds per chunk of the calling thread's HDF5 calls in our reader."""
    did = ctypes.c_int64(ds.id.id)
    off = (ctypes.c_uint64 * 1)()
    size = ctypes.c_uint64()
    mask = ctypes.c_uint32()
    addr = ctypes.c_uint64()
    buf = ctypes.create_string_buffer(bufsize)
    h5.H5Dget_chunk_storage_size.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
    h5.H5Dread_chunk.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_void_p]
    h5.H5Dget_chunk_info_by_coord.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_void_p, ctypes.c_void_p]
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for i in range(nchunks):
            off[0] = i * chunk_items
            if via_hdf5:
                h5.H5Dget_chunk_storage_size(did, off, ctypes.byref(size))
                h5.H5Dread_chunk(did, 0, off, ctypes.byref(mask), buf)
            else:
                h5.H5Dget_chunk_storage_size(did, off, ctypes.byref(size))
                h5.H5Dget_chunk_info_by_coord(did, off, ctypes.byref(mask), ctypes.byref(addr),
                                              ctypes.byref(size))
        best = min(best, (time.perf_counter() - t0) / nchunks)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin-dir", default=os.path.join(REPO, "build", "h5plugin"))
    ap.add_argument("--dir", default=None)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    so = os.path.join(os.path.abspath(a.plugin_dir), "libH5Zb2.so")
    if not os.path.isfile(so):
        sys.exit("no libH5Zb2.so in %s (build first, or pass --plugin-dir)" % a.plugin_dir)
    blosc1 = next((os.path.join(d, "libH5Zblosc.so") for d in BLOSC1_DIRS
                   if os.path.isfile(os.path.join(d, "libH5Zblosc.so"))), None)
    pdir = tempfile.mkdtemp(prefix="b2bench_plugins_")
    if blosc1:  # the Blosc1 filter alone on the plugin path: ours comes from b2blosc
        os.symlink(blosc1, os.path.join(pdir, "libH5Zblosc.so"))
    os.environ["HDF5_PLUGIN_PATH"] = pdir
    os.environ["B2_H5_PLUGIN"] = so
    os.environ["B2_H5_NTHREADS"] = "2"
    os.environ["BLOSC_NTHREADS"] = "2"
    sys.path.insert(0, os.path.join(REPO, "python"))
    import numpy as np
    import h5py
    import b2blosc  # noqa: F401
    import b2blosc.h5 as b2h5
    h5 = hdf5_lib()

    n = a.mib * (1 << 20) // 4
    print("# Issue 25 targets: %d MiB, median of %d rounds, methods alternating; warm page cache"
          % (a.mib, a.rounds))
    print("# CPU: %s, %d cores, flags: %s" % (cpu_model(), os.cpu_count(), cpu_flags()))
    print("# load average before: %s" % load())
    print("# GB/s. rd2 = ours2/h5py2 (target: geomean >= 1.7, none < 1.4); rd1 = ours2/h5py1; "
          "b1 = ours2/blosc1; pl = ours2/plain; sc = ours2/ours1; wr = ours2/h5py2 writes "
          "(target: geomean >= 1.6)")
    print("%-5s %-5s %5s | %6s %6s %6s %6s %6s %6s | %5s %5s %5s %5s %5s | %6s %6s %5s" % (
        "data", "codec", "chunk", "h5py2", "ours2", "h5py1", "ours1", "blosc1", "plain",
        "rd2", "rd1", "b1", "pl", "sc", "h5pyw", "oursw", "wr"))
    ratios = {k: [] for k in ("rd2", "rd1", "b1", "pl", "sc", "wr")}
    scaling = []
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        for kind in ("ramp", "field"):
            if kind == "ramp":
                data = np.arange(n, dtype="<i4")
            else:
                x = np.arange(n, dtype=np.float32)
                data = (np.sin(x / 1000.0) * 100 + np.cos(x / 37.0)).astype("<f4")
            plain_path = os.path.join(tmp, "plain.h5")
            with h5py.File(plain_path, "w") as f:
                f.create_dataset("d", data=data)
            for codec, clevel in (("lz4", 5), ("zstd", 1)):
                for ckib in (1024, 128):
                    kw = b2h5.filter_kwargs(codec=codec, clevel=clevel, filter="shuffle")
                    ch = (ckib * 1024 // 4,)
                    nchunks = -(-n // ch[0])
                    path = os.path.join(tmp, "b2.h5")
                    b1path = os.path.join(tmp, "b1.h5")
                    with h5py.File(path, "w") as f:
                        f.create_dataset("d", data=data, chunks=ch, **kw)
                    if blosc1:
                        with h5py.File(b1path, "w") as f:
                            f.create_dataset("d", data=data, chunks=ch, compression=32001,
                                             compression_opts=(0, 0, 0, 0, clevel, 1,
                                                               BLOSC1_CODE[codec]))
                    outs = {k: np.empty_like(data) for k in ("h5py2", "ours2", "h5py1", "ours1",
                                                             "blosc1", "plain")}
                    fb = h5py.File(path, "r")
                    fp = h5py.File(plain_path, "r")
                    f1 = h5py.File(b1path, "r") if blosc1 else None
                    ds, dp = fb["d"], fp["d"]

                    def h5py_n(nt, key):
                        def run():
                            os.environ["B2_H5_NTHREADS"] = str(nt)
                            ds.read_direct(outs[key])
                            os.environ["B2_H5_NTHREADS"] = "2"
                        return run
                    fns = {"h5py2": h5py_n(2, "h5py2"),
                           "ours2": lambda: b2h5.read(ds, threads=2, out=outs["ours2"]),
                           "h5py1": h5py_n(1, "h5py1"),
                           "ours1": lambda: b2h5.read(ds, threads=1, out=outs["ours1"]),
                           "plain": lambda: dp.read_direct(outs["plain"])}
                    if f1 is not None:
                        fns["blosc1"] = lambda: f1["d"].read_direct(outs["blosc1"])
                    t = alternate(fns, a.rounds)
                    for k in fns:
                        if not np.array_equal(outs[k], data):
                            sys.exit("%s read differs (%s %s %dK)" % (k, kind, codec, ckib))
                    # the calling thread's HDF5 work per chunk, as our reader does it
                    stored = ds.id.get_storage_size() / nchunks
                    via = nchunks * 6e-9 > 1e-6 + stored / 8e9
                    s = serial_per_chunk(h5, ds, nchunks, ch[0], via, ckib * 1024 + 4096) if h5 else 0
                    d = max(t["ours1"] / nchunks - s, 0)
                    scaling.append((kind, codec, ckib, nchunks, s, d, t["ours1"], t["ours2"]))
                    for f in (fb, fp, f1):
                        if f is not None:
                            f.close()
                    # writes
                    wpath = os.path.join(tmp, "w.h5")
                    k = [0]
                    with h5py.File(wpath, "w") as f:
                        # each write goes into a new dataset; the one before it of the same
                        # method is deleted first, so HDF5 reuses its space and the file
                        # does not grow into gigabytes of dirty pages the kernel writes back
                        def new_dataset(prefix):
                            k[0] += 1
                            if "%s%d" % (prefix, k[0] - 2) in f:
                                del f["%s%d" % (prefix, k[0] - 2)]
                            return f.create_dataset("%s%d" % (prefix, k[0]), shape=data.shape,
                                                    dtype=data.dtype, chunks=ch, **kw)

                        def h5w():
                            new_dataset("h")[...] = data

                        def ourw():
                            b2h5.write(new_dataset("b"), ..., data, threads=2)
                        tw = alternate({"h5pyw": h5w, "oursw": ourw}, a.rounds)
                        hh, bb = f["h%d" % (k[0] - 1)], f["b%d" % k[0]]
                        for i in (0, nchunks - 1):
                            if hh.id.read_direct_chunk((i * ch[0],)) != bb.id.read_direct_chunk((i * ch[0],)):
                                sys.exit("stored chunk %d differs" % i)
                    os.unlink(wpath)
                    gb = {k2: data.nbytes / v / 1e9 for k2, v in list(t.items()) + list(tw.items())}
                    r = {"rd2": t["h5py2"] / t["ours2"], "rd1": t["h5py1"] / t["ours2"],
                         "b1": t["blosc1"] / t["ours2"] if "blosc1" in t else float("nan"),
                         "pl": t["plain"] / t["ours2"], "sc": t["ours1"] / t["ours2"],
                         "wr": tw["h5pyw"] / tw["oursw"]}
                    for k2, v in r.items():
                        if not math.isnan(v):
                            ratios[k2].append(v)
                    print("%-5s %-5s %4dK | %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f | %5.2f %5.2f %5.2f "
                          "%5.2f %5.2f | %6.2f %6.2f %5.2f" % (
                              kind, "%s%d" % (codec, clevel), ckib, gb["h5py2"], gb["ours2"],
                              gb["h5py1"], gb["ours1"], gb.get("blosc1", float("nan")), gb["plain"],
                              r["rd2"], r["rd1"], r["b1"], r["pl"], r["sc"], gb["h5pyw"],
                              gb["oursw"], r["wr"]))
                    sys.stdout.flush()
    print("# geometric means: " + ", ".join("%s %.2fx" % (k, gmean(v)) for k, v in ratios.items()))
    print("# minimum rd2 %.2fx" % min(ratios["rd2"]))
    print("# scaling (paper): s = calling thread's HDF5 work per chunk, d = decode per chunk;")
    print("# GB/s on N cores = bytes / (chunks * max(s, (s + d) / N)); look-ups saturate at N = 1 + d/s")
    print("%-5s %-5s %5s %6s | %7s %7s | %6s %6s | %7s %7s %7s | %6s" % (
        "data", "codec", "chunk", "chunks", "s us", "d us", "1 thr", "2 thr", "N=2 est", "N=16",
        "N=64", "N sat"))
    for kind, codec, ckib, nch, s, d, t1, t2 in scaling:
        nbytes = n * 4

        def est(nc):
            return nbytes / (nch * max(s, (s + d) / nc)) / 1e9
        print("%-5s %-5s %4dK %6d | %7.2f %7.2f | %6.2f %6.2f | %7.2f %7.1f %7.1f | %6.0f" % (
            kind, codec, ckib, nch, s * 1e6, d * 1e6, nbytes / t1 / 1e9, nbytes / t2 / 1e9, est(2),
            est(16), est(64), 1 + d / s if s > 0 else float("inf")))
    print("# load average after: %s" % load())
    for fn in os.listdir(pdir):
        os.unlink(os.path.join(pdir, fn))
    os.rmdir(pdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

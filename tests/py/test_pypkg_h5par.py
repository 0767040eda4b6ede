# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.h5.read / write on libb2's parallel reader and writer (issue 25).
Runs from the source tree (python/ on sys.path, B2_H5_PLUGIN = the built plugin,
HDF5_PLUGIN_PATH = an empty folder), in a child process with that environment:
  * read() with threads 1, 2 and 4 equals h5py's read: whole datasets and random
    large and small boxes (ranks 1-3, edge chunks, unallocated chunks, slabs of
    several sizes), a dataset with another filter too (fallback, same bytes);
    the enable()/fast_slicing(threads=) hook likewise;
  * write() with threads 1 and 2 stores chunks (read_direct_chunk: bytes and
    filter mask) equal to those h5py stores through the filter for the same data,
    and reads back equal; a box off the chunk boundaries and a dataset with
    another filter go through H5Dwrite with the reason in the report;
  * bad arguments (threads 0 or 1000, not an int; array of the wrong shape or
    dtype; a key that is not a box) raise ValueError / TypeError naming them;
  * Ctrl-C: a child doing a long read (16384 chunks, slabs of one chunk row), and
    one doing a long write, get SIGINT shortly after starting and stop with
    KeyboardInterrupt (caught, reported) within a bounded time, neither finishing
    nor crashing; the reader still reads correctly afterwards."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

PDIR = hc.plugin_dir()
PLUGIN = os.path.join(PDIR, hc.PLUGIN_NAME)
PYDIR = os.path.join(b2test.REPO, "python")


def child_env(tmp):
    empty = os.path.join(tmp, "empty_plugin_dir")
    os.makedirs(empty, exist_ok=True)
    env = b2test.clean_env(drop=("LD_PRELOAD", "B2_H5_PLUGIN", "B2_H5_NTHREADS", "BLOSC_NTHREADS",
                                 "B2_H5_SLICE"),
                           HDF5_PLUGIN_PATH=empty, PYTHONPATH=PYDIR, B2_H5_PLUGIN=PLUGIN,
                           B2_PYH5PAR_CHILD=tmp)
    if os.environ.get("LD_PRELOAD"):  # sanitizer builds: the plugin is instrumented
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    return env


def parent():
    try:
        import numpy  # noqa: F401
        import h5py  # noqa: F401
    except ImportError as e:
        b2test.skip("numpy and h5py are needed: %s" % e)
    tmp = b2test.scratch_dir("pypkg_h5par_")
    env = child_env(tmp)
    t0 = time.time()
    r = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, timeout=300)
    print("child: rc %d, %.1f s" % (r.returncode, time.time() - t0))
    sys.exit(r.returncode)


# ---------------------------------------------------------------- the child
INTERRUPT_CODE = r'''
import sys, time, numpy as np, h5py, b2blosc, b2blosc.h5 as b2h5
path, what = sys.argv[1], sys.argv[2]
n = 65536
a = np.arange(n * 256, dtype=np.int32).reshape(n, 256)
with h5py.File(path, "w") as f:
    d = f.create_dataset("x", shape=a.shape, dtype=a.dtype, chunks=(4, 256), **b2blosc.Blosc2("lz4"))
    b2h5.write(d, ..., a, threads=2)
    f.create_dataset("y", shape=a.shape, dtype=a.dtype, chunks=(4, 256), **b2blosc.Blosc2("lz4"))
with h5py.File(path, "r" if what == "read" else "r+") as f:
    d = f["x" if what == "read" else "y"]
    print("STARTED", flush=True)
    t0 = time.time()
    try:
        if what == "read":
            for i in range(20):
                r = b2h5.read(d, threads=2, slab_bytes=1)
        else:
            for i in range(20):
                b2h5.write(d, ..., a, threads=2, slab_bytes=1)
        print("FINISHED %.2f s" % (time.time() - t0), flush=True)
    except KeyboardInterrupt:
        print("INTERRUPTED %.2f s" % (time.time() - t0), flush=True)
        if what == "read":
            part = b2h5.read(d, np.s_[1000:3000, 3:250], threads=2)
            print("AFTER", bool((part == a[1000:3000, 3:250]).all()), flush=True)
        sys.exit(3)
'''


def interrupt_check(check, tmp, what):
    """Run INTERRUPT_CODE, send SIGINT 0.5 s after it starts reading or writing."""
    p = subprocess.Popen([sys.executable, "-c", INTERRUPT_CODE, os.path.join(tmp, what + ".h5"), what],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                         env=dict(os.environ))
    lines = []
    while True:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("STARTED"):
            break
    time.sleep(0.5)
    t_sig = time.time()
    p.send_signal(signal.SIGINT)
    try:
        rest, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rest, _ = p.communicate()
    dt = time.time() - t_sig
    out = "".join(lines) + rest
    print(out, end="")
    print("%s: exited %.2f s after SIGINT" % (what, dt))
    check(p.returncode == 3 and "INTERRUPTED" in out and "FINISHED" not in out,
          "Ctrl-C stops a long %s with KeyboardInterrupt (rc %s)" % (what, p.returncode))
    check(dt < 5.0, "the %s stopped %.2f s after SIGINT (bound 5 s)" % (what, dt))
    if what == "read":
        check("AFTER True" in out, "after the interrupted read the reader reads correctly")


def child(tmp):
    import numpy as np
    import h5py
    import b2blosc  # noqa: F401  (registers filter 32026)
    import b2blosc.h5 as b2h5

    check = b2test.Checks()
    rng = np.random.default_rng(2025)
    path = os.path.join(tmp, "par.h5")
    f = h5py.File(path, "w")

    # ---------------- datasets to read
    sets = {}
    a1 = np.arange(1000003, dtype=np.int32)
    sets["r1"] = f.create_dataset("r1", data=a1, chunks=(65536,), **b2blosc.Blosc2("lz4", 5))
    a2 = (np.sin(np.arange(1000 * 1500, dtype=np.float32) / 777.0) * 1e3).reshape(1000, 1500)
    sets["r2"] = f.create_dataset("r2", data=a2, chunks=(128, 200), **b2blosc.Blosc2("zstd", 1))
    a3 = (np.arange(60 * 70 * 80) % 1000).astype(np.uint16).reshape(60, 70, 80)
    sets["r3"] = f.create_dataset("r3", data=a3, chunks=(16, 32, 32),
                                  **b2blosc.Blosc2("lz4", 5, "bitshuffle"))
    # some chunks never written: fill value (the C reader's H5Dread fallback)
    sets["holes"] = f.create_dataset("holes", shape=(900, 800), dtype=np.int16, chunks=(100, 100),
                                     fillvalue=-7, **b2blosc.Blosc2("lz4"))
    sets["holes"][100:500, 200:600] = np.arange(400 * 400, dtype=np.int16).reshape(400, 400)
    # another filter before ours: the whole box through H5Dread
    sets["shuf"] = f.create_dataset("shuf", data=a2[:600], chunks=(100, 300), shuffle=True,
                                    **b2blosc.Blosc2("lz4", 5, "none"))
    f.flush()
    ref = {k: d[...] for k, d in sets.items()}  # h5py's own read (no hook)

    # whole datasets
    for threads in (1, 2, 4):
        for k, d in sets.items():
            arr, rep = b2h5.read(d, threads=threads, report=True)
            check(arr.dtype == ref[k].dtype and np.array_equal(arr, ref[k]),
                  "read(%s, threads=%d) whole dataset equals h5py's (%s)" % (k, threads, rep["path"]))
            want = {"shuf": "h5dread", "holes": "mixed"}.get(k, "direct")
            check(rep["path"] == want, "read(%s) path %s, want %s (%s)"
                  % (k, rep["path"], want, rep["reason"]))
    arr, rep = b2h5.read(sets["shuf"], threads=2, report=True)
    check(rep["reason"] != "", "the other-filter fallback gives a reason: %r" % rep["reason"])

    # random boxes, large and small, with slabs of several sizes
    nbox = 0
    bad = []
    for threads in (1, 2, 4):
        for k, d in sets.items():
            shape = d.shape
            for i in range(36):
                key = []
                for n in shape:
                    if i % 3 == 0:      # small
                        lo = int(rng.integers(0, n))
                        hi = min(n, lo + int(rng.integers(1, 12)))
                    else:               # large, often to the end (edge chunks)
                        lo = int(rng.integers(0, n // 3))
                        hi = n if rng.random() < 0.4 else int(rng.integers(lo + 1, n + 1))
                    key.append(slice(lo, hi))
                if i % 8 == 5:
                    key[0] = int(rng.integers(0, shape[0]))  # an integer index
                key = tuple(key)
                slab = [None, 1, 300000][i % 3]
                arr = b2h5.read(d, key, threads=threads, slab_bytes=slab)
                nbox += 1
                if not (arr.shape == ref[k][key].shape and np.array_equal(arr, ref[k][key])):
                    bad.append((k, threads, key, slab))
    check(not bad, "%d random boxes equal h5py's reads (differ: %s)" % (nbox, bad[:3]))

    # out=: read into an existing array
    buf = np.empty((600, 1500), dtype=np.float32)
    got = b2h5.read(sets["r2"], np.s_[100:700, :], threads=2, out=buf)
    check(got is buf and np.array_equal(buf, ref["r2"][100:700]), "read(out=buf) fills and returns buf")

    # the hook: large boxes with threads
    with b2h5.fast_slicing(threads=2):
        check(np.array_equal(sets["r2"][3:990, 7:1500], ref["r2"][3:990, 7:1500]),
              "fast_slicing(threads=2): a large box equals h5py's")
        arr, rep = b2h5.read_slice(sets["r1"], np.s_[5:], report=True)
        check(np.array_equal(arr, a1[5:]) and rep["path"] == "direct",
              "fast_slicing(threads=2): read_slice of most of a 1-D dataset (%s)" % rep["path"])
    check(not b2h5.enabled(), "fast_slicing() restores h5py's __getitem__")
    b2h5.enable(threads=4)
    check(np.array_equal(sets["r3"][1:, 2:, :], ref["r3"][1:, 2:, :]), "enable(threads=4): a 3-D box")
    b2h5.disable()

    # ---------------- writes: chunks as h5py stores them through the filter
    wcases = [("w1", a1, (65536,), b2blosc.Blosc2("lz4", 5)),
              ("w2", a2, (128, 200), b2blosc.Blosc2("zstd", 1)),
              ("w3", a3, (16, 32, 32), b2blosc.Blosc2("lz4", 5, "bitshuffle"))]
    for name, data, chunks, kw in wcases:
        h = f.create_dataset(name + "_h5py", data=data, chunks=chunks, **kw)
        grid = [range(0, n, c) for n, c in zip(data.shape, chunks)]
        import itertools
        offsets = list(itertools.product(*grid))
        for threads in (1, 2):
            for slab in (None, 1):
                w = f.create_dataset("%s_t%d_%s" % (name, threads, slab), shape=data.shape,
                                     dtype=data.dtype, chunks=chunks, **kw)
                rep = b2h5.write(w, ..., data, threads=threads, slab_bytes=slab)
                check(rep["path"] == "direct" and rep["chunks_direct"] == len(offsets)
                      and (rep["nthreads"] == threads if slab is None else 1 <= rep["nthreads"] <= threads)
                      and rep["reason"] == "",
                      "write(%s, threads=%d, slab_bytes=%s): %s" % (name, threads, slab, rep))
                diff = [o for o in offsets
                        if w.id.read_direct_chunk(o) != h.id.read_direct_chunk(o)]
                check(not diff, "write(%s, threads=%d): %d chunks (mask, bytes) equal h5py's "
                      "(differ: %s)" % (name, threads, len(offsets), diff[:3]))
                check(np.array_equal(w[...], data), "write(%s, threads=%d) reads back" % (name, threads))

    # a box off the chunk boundaries: H5Dwrite inside the C function, with the reason
    w = f.create_dataset("woff", shape=a2.shape, dtype=a2.dtype, chunks=(128, 200),
                         **b2blosc.Blosc2("lz4"))
    rep = b2h5.write(w, np.s_[10:300, 5:390], a2[10:300, 5:390], threads=2)
    check(rep["path"] == "h5dwrite" and "partly" in rep["reason"] and rep["chunks_h5dwrite"] > 0,
          "a box off the chunk boundaries: %s" % rep)
    rep = b2h5.write(w, np.s_[0:300, 0:400], a2[0:300, 0:400], threads=2)
    check(rep["path"] == "mixed" and "partly" in rep["reason"] and rep["chunks_direct"] == 4,
          "a box partly on chunk boundaries: %s" % rep)
    got = w[0:300, 0:400]
    check(np.array_equal(got, a2[0:300, 0:400]), "those writes read back")
    rep = b2h5.write(w, 5, a2[5], threads=2)  # an integer index: one row
    check(np.array_equal(w[5], a2[5]) and rep["path"] == "h5dwrite", "write of one row (%s)" % rep["path"])
    w = f.create_dataset("wshuf", shape=(600, 1500), dtype=a2.dtype, chunks=(100, 300), shuffle=True,
                         **b2blosc.Blosc2("lz4", 5, "none"))
    rep = b2h5.write(w, ..., a2[:600], threads=2)
    check(rep["path"] == "h5dwrite" and rep["reason"] != "" and np.array_equal(w[...], a2[:600]),
          "a dataset with another filter: H5Dwrite (%r)" % rep["reason"])
    w = f.create_dataset("wcast", shape=(100, 100), dtype=np.float64, chunks=(50, 50),
                         **b2blosc.Blosc2("lz4"))
    src = np.arange(10000, dtype=np.int16).reshape(100, 100)
    b2h5.write(w, ..., src)
    check(np.array_equal(w[...], src), "an int16 array writes to a float64 dataset (safe cast)")

    # ---------------- bad arguments
    d = sets["r2"]
    w = f["woff"]
    cases = [
        ("read threads=0", lambda: b2h5.read(d, threads=0), ValueError, "threads"),
        ("read threads=1000", lambda: b2h5.read(d, threads=1000), ValueError, "1000"),
        ("read threads='2'", lambda: b2h5.read(d, threads="2"), TypeError, "threads"),
        ("read threads=2.0", lambda: b2h5.read(d, threads=2.0), TypeError, "threads"),
        ("read threads=True", lambda: b2h5.read(d, threads=True), TypeError, "threads"),
        ("read out wrong dtype", lambda: b2h5.read(d, out=np.empty(d.shape, np.float64)), TypeError,
         "float64"),
        ("read out wrong shape", lambda: b2h5.read(d, out=np.empty((3, 3), np.float32)), ValueError,
         "shape"),
        ("read out not contiguous", lambda: b2h5.read(d, np.s_[:, :3],
                                                      out=np.empty((1000, 6), np.float32)[:, ::2]),
         ValueError, "contiguous"),
        ("enable threads=0", lambda: b2h5.enable(threads=0), ValueError, "threads"),
        ("write threads=0", lambda: b2h5.write(w, ..., a2, threads=0), ValueError, "threads"),
        ("write threads=1000", lambda: b2h5.write(w, ..., a2, threads=1000), ValueError, "threads"),
        ("write wrong shape", lambda: b2h5.write(w, ..., a2[:999]), ValueError, "shape"),
        ("write wrong shape (box)", lambda: b2h5.write(w, np.s_[0:10], a2[0:11]), ValueError, "(10, 1500)"),
        ("write wrong dtype", lambda: b2h5.write(w, ..., a2.astype(np.float64)), TypeError, "float64"),
        ("write strings", lambda: b2h5.write(w, ..., np.full(a2.shape, "x")), TypeError, "dtype"),
        ("write not a box", lambda: b2h5.write(w, np.s_[::2], a2[::2]), ValueError, "not a box"),
    ]
    for what, fn, exc, word in cases:
        try:
            fn()
            check(False, "%s: no error" % what)
        except exc as e:
            check(word in str(e), "%s: %s names the problem: %s" % (what, exc.__name__, e))
        except Exception as e:  # noqa: BLE001
            check(False, "%s: %s instead of %s: %s" % (what, type(e).__name__, exc.__name__, e))
    check(not b2h5.enabled(), "a refused enable() leaves the hook off")
    f.close()

    # ---------------- Ctrl-C
    interrupt_check(check, tmp, "read")
    interrupt_check(check, tmp, "write")

    print("%d checks, %d failed" % (check.count, len(check.failures)))
    for m in check.failures:
        print("FAILED: " + m)
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    if os.environ.get("B2_PYH5PAR_CHILD"):
        child(os.environ["B2_PYH5PAR_CHILD"])
    else:
        parent()

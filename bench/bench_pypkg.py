#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What the b2blosc package costs on top of h5py (a benchmark, not a test).

 (a) import time: processes that run `import h5py` and processes that run
     `import h5py, b2blosc` (which registers filter 32026), alternating, after
     warm-up runs; each process times its own imports with perf_counter. Reports
     the medians and their difference, with HDF5_PLUGIN_PATH naming an empty
     folder (HDF5 searches nothing) and unset (HDF5 searches its default plugin
     folder for 32026 before b2blosc registers its own).
 (b) a 10x10 box of a 2000x2000 float64 dataset (1000x1000 chunks, lz4 + shuffle):
     b2blosc.h5.read_slice, and ds[...] inside fast_slicing(), against the C call
     alone (b2_h5_reader_read through ctypes with the buffer and the start/count
     arrays made in advance): the difference is the package's per-call overhead.
     h5py's ordinary read is shown for scale.

    /usr/bin/python3 bench/bench_pypkg.py                 # source tree, build/h5plugin
    /usr/bin/python3 bench/bench_pypkg.py --python VENV/bin/python   # an installed copy

Options: --python PY (the interpreter for (a); with the source tree it gets
PYTHONPATH=python and B2_H5_PLUGIN), --plugin FILE (default
build/h5plugin/libH5Zb2.so), --runs N (default 30 per kind), --reps N (default 2000).
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMPORT_CODE = r'''
import time, sys
t0 = time.perf_counter()
import h5py
t1 = time.perf_counter()
if sys.argv[1] == "b2":
    import b2blosc
    assert b2blosc.get_config()["registered"] in ("b2blosc", "kept"), b2blosc.get_config()
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
'''


def import_times(py, env, runs):
    """Medians (s) of: import h5py alone; import h5py then b2blosc; b2blosc's part."""
    res = {"h5": [], "both": [], "b2": []}
    for i in range(runs + 2):
        for kind in ("h5", "b2"):
            out = subprocess.run([py, "-c", IMPORT_CODE, kind], env=env, stdout=subprocess.PIPE,
                                 check=True, universal_newlines=True).stdout.split()
            if i < 2:
                continue  # warm-up
            h5, b2 = float(out[0]), float(out[1])
            if kind == "h5":
                res["h5"].append(h5)
            else:
                res["both"].append(h5 + b2)
                res["b2"].append(b2)
    return {k: statistics.median(v) for k, v in res.items()}


def median_us(fn, reps, rounds=5):
    ts = []
    per = max(1, reps // rounds)
    for _ in range(rounds):
        fn()
        for _ in range(per):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=None)
    ap.add_argument("--plugin", default=os.path.join(REPO, "build", "h5plugin", "libH5Zb2.so"))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--reps", type=int, default=2000)
    a = ap.parse_args()
    plugin = os.path.abspath(a.plugin)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "HDF5_PLUGIN_PATH")}
    if a.python is None:
        if not os.path.isfile(plugin):
            sys.exit("no plugin %s (build first, or pass --plugin)" % plugin)
        env["PYTHONPATH"] = os.path.join(REPO, "python")
        env["B2_H5_PLUGIN"] = plugin
    py = a.python or sys.executable
    cpu = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout.strip()
    print("CPU: %s; %d cores online; python %s" % (cpu, os.cpu_count(), py))

    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        for label, extra in (("HDF5_PLUGIN_PATH=<empty folder>", {"HDF5_PLUGIN_PATH": empty}),
                             ("HDF5_PLUGIN_PATH unset", {})):
            m = import_times(py, dict(env, **extra), a.runs)
            print("(a) %s: import h5py %.1f ms; import h5py, b2blosc %.1f ms; added %.1f ms "
                  "(b2blosc's own import, median %.1f ms; %d runs each)"
                  % (label, m["h5"] * 1e3, m["both"] * 1e3, (m["both"] - m["h5"]) * 1e3,
                     m["b2"] * 1e3, a.runs))

        # (b) in this process: the source tree's package unless --python named another
        if a.python is None:
            os.environ["B2_H5_PLUGIN"] = plugin
            sys.path.insert(0, os.path.join(REPO, "python"))
        os.environ["HDF5_PLUGIN_PATH"] = empty
        import h5py
        import numpy as np
        import b2blosc
        import b2blosc.h5 as b2h5
        y, x = np.mgrid[0:2000, 0:2000]
        data = np.sin(x / 150.0) * np.cos(y / 210.0) * 100
        path = os.path.join(tmp, "bench.h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=data, chunks=(1000, 1000),
                             compression=b2blosc.Blosc2("lz4", 5, b2blosc.Blosc2.SHUFFLE))
        with h5py.File(path, "r") as f:
            ds = f["x"]
            key = (slice(495, 505), slice(495, 505))
            want = data[495:505, 495:505]
            assert np.array_equal(b2h5.read_slice(ds, key), want)
            lib = b2h5._library()
            reader = b2h5._reader(ds.id)
            out = np.empty((10, 10))
            st = (ctypes.c_uint64 * 2)(495, 495)
            ct = (ctypes.c_uint64 * 2)(10, 10)
            rep = b2h5.ReadReport()
            ptr = out.ctypes.data
            read = lib.b2_h5_reader_read

            def c_call():
                read(reader, 0, st, ct, ptr, 800, ctypes.byref(rep))

            c_call()
            assert np.array_equal(out, want) and rep.path == "direct"

            def fast_getitem():
                return ds[495:505, 495:505]

            t_c = median_us(c_call, a.reps)
            t_slice = median_us(lambda: b2h5.read_slice(ds, key), a.reps)
            with b2h5.fast_slicing():
                assert np.array_equal(fast_getitem(), want)
                t_item = median_us(fast_getitem, a.reps)
            t_h5py = median_us(fast_getitem, max(20, a.reps // 50))
            print("(b) 10x10 box of a 2000x2000 float64 dataset, 1000x1000 chunks, lz4 + shuffle "
                  "(median of %d calls):" % a.reps)
            print("    C call (b2_h5_reader_read via ctypes)  %8.1f us" % t_c)
            print("    b2blosc.h5.read_slice                  %8.1f us  (+%.1f us)" % (t_slice, t_slice - t_c))
            print("    ds[...] inside fast_slicing()          %8.1f us  (+%.1f us)" % (t_item, t_item - t_c))
            print("    h5py's ordinary ds[...]                %8.1f us" % t_h5py)


if __name__ == "__main__":
    main()

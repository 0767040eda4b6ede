# SPDX-License-Identifier: BSD-3-Clause
"""`b2bench --hdf5-parallel` (bench/bench_h5par.c): on a tiny generated dataset
and on a given FILE.h5:/DATASET it prints its five rows (table and JSON), every
one with real timings; and its command-line errors."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
c = b2test.Counter("bench h5 parallel")
run = b2test.run_bench
tmp = b2test.scratch_dir("b2benchh5par-")
CD = (0, 0, 0, 0, 5, 1, 1)  # lz4 5 + shuffle

# the dataset test_cli_h5par.py names r2: float64 700 x 450 in 128 x 100 chunks
h5 = os.path.join(tmp, "par.h5")
a = np.sin(np.arange(700 * 450, dtype="<f8") / 300.0).reshape(700, 450)
with h5py.File(h5, "w") as f:
    f.create_dataset("r2", data=a, chunks=(128, 100), compression=hc.FILTER_ID, compression_opts=CD)

ROWS = [("read", "H5Dread", None), ("read", "b2_h5_reader", 1), ("read", "b2_h5_reader", 2),
        ("write", "H5Dwrite", None), ("write", "b2_h5_write_box", 2)]
r = run(["--hdf5-parallel", "--mib", "1", "--chunks", "1x128x512", "--threads", "2", "--reps", "2"],
        timeout=300)
out = r.stdout.decode(errors="replace")
c.ok(r.returncode == 0, "bench --hdf5-parallel exit %d: %r" % (r.returncode, r.stderr[-500:]))
table = [l.split() for l in out.splitlines()]
for op, meth, thr in ROWS:
    rows = [l for l in table if len(l) == 6 and l[0] == op and l[1] == meth and (thr is None or l[2] == str(thr))]
    c.ok(len(rows) == 1 and float(rows[0][3]) > 0 and float(rows[0][4]) > 0 and float(rows[0][5]) > 0,
         "bench table row %s %s %s: %s" % (op, meth, thr, rows))
c.ok("generated int32 ramp 1 x 512 x 512" in out and "reader path: direct" in out and "writer path: direct" in out,
     "bench header names the data and the paths: %s" % out[:400])
base = [l for l in table if len(l) == 6 and l[1] in ("H5Dread", "H5Dwrite")]
c.ok(len(base) == 2 and all(l[5] == "1.00" for l in base), "HDF5 rows have ratio 1.00: %s" % base)
r = run(["--hdf5-parallel", h5 + ":/r2", "--threads", "2", "--reps", "1", "--json"], timeout=300)
c.ok(r.returncode == 0, "bench --hdf5-parallel FILE:/DSET --json: %r" % r.stderr[-500:])
js = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
c.ok([(o["op"], o["method"]) for o in js] == [(op, m) for op, m, _ in ROWS]
     and all(o["nbytes"] == a.nbytes and o["median_s"] > 0 and o["mbps"] > 0 and o["ratio"] > 0 for o in js)
     and js[2]["threads"] == 2 and js[1]["threads"] == 1 and js[2]["path"] == "direct",
     "bench --json rows for the given dataset: %s" % js)
for args, words in [(["--threads", "0"], b"--threads"), (["--bogus"], b"unknown option"),
                    (["--hdf5"], b"different benchmarks")]:
    r = run(["--hdf5-parallel"] + args)
    c.ok(r.returncode == 2 and words in r.stderr, "bench --hdf5-parallel %s: usage error %r" % (args, r.stderr))
r = run(["--hdf5-parallel", os.path.join(tmp, "none.h5") + ":/d"])
c.ok(r.returncode == 1 and b"no such file" in r.stderr, "bench --hdf5-parallel on a missing file: %r" % r.stderr)
r = run(["--hdf5-parallel", h5])
c.ok(r.returncode == 2 and b"name the dataset" in r.stderr, "bench --hdf5-parallel FILE without a dataset")
r = run(["--help"])
c.ok(b"--hdf5-parallel" in r.stdout, "b2bench --help describes --hdf5-parallel")

c.finish()

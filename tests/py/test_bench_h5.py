# SPDX-License-Identifier: BSD-3-Clause
"""`b2bench --hdf5`: the HDF5 filter benchmark (our filter 32026 vs Blosc1's 32001
vs gzip) through the HDF5 C API, on 8 MiB datasets with one chunk shape and one
round. Every row must carry real measurements: positive speeds, our filter
compressing (ratio > 1) and the stored size matching the ratio; gzip once per
dataset; Blosc1 rows present exactly when a Blosc1 plugin file is where b2bench looks
(HDF5_PLUGIN_PATH, Debian's plugin directory), and then with ratios close to ours. Also the table form and
command-line errors. Skipped when b2bench was built without HDF5 or the plugin was
not built."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common  # noqa: E402

c = b2test.Counter("bench --hdf5")
run = b2test.run_bench
ARGS = ["--hdf5", "--mib", "8", "--reps", "1", "--chunks", "1x64x512"]
SYSTEM_DIRS = ["/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins",
               "/usr/lib/aarch64-linux-gnu/hdf5/serial/plugins", "/usr/local/hdf5/lib/plugin"]


def blosc1_installed():
    """Is a Blosc1 plugin where b2bench looks (HDF5_PLUGIN_PATH or the system dirs)?"""
    dirs = [d for d in os.environ.get("HDF5_PLUGIN_PATH", "").split(":") if d] + SYSTEM_DIRS
    return any(os.path.exists(os.path.join(d, n)) for d in dirs
               for n in ("libH5Zblosc.so", "libblosc_filter.so"))


def plugin_args():
    """Our plugin from the build under test (skip when it was not built)."""
    return ["--plugin-dir", h5plugin_common.plugin_dir()]


def main():
    r = run(["--hdf5", "--help"])
    c.ok(r.returncode == 0, "bench --hdf5 --help")
    c.ok(b"--hdf5" in run(["--help"]).stdout, "b2bench --help describes --hdf5")

    r = run(ARGS + ["--json"] + plugin_args(), timeout=600)
    if r.returncode != 0 and b"without HDF5" in r.stderr:
        b2test.skip("b2bench built without HDF5")
    c.ok(r.returncode == 0, "bench --hdf5 --json exit %d: %r" % (r.returncode, r.stderr[-2000:]))
    rows = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
    by = {}
    for o in rows:
        by.setdefault(o["filter"], []).append(o)
        c.ok(o["write_mbps"] > 0 and o["read_mbps"] > 0, "positive speeds: %s" % o)
        c.ok(o["nbytes"] == 8 << 20 and o["shape"] == "8x512x512" and o["chunk"] == "1x64x512"
             and o["chunk_bytes"] == 131072, "sizes and shapes: %s" % o)
        c.ok(o["stored_bytes"] > 0 and abs(o["ratio"] - o["nbytes"] / o["stored_bytes"]) < 1e-4 * o["ratio"],
             "ratio = nbytes / stored_bytes: %s" % o)
    ours = by.get("blosc2", [])
    # 2 datasets x 2 codecs (lz4 5, zstd 1) x 2 thread counts (1, 2)
    c.ok(len(ours) == 8, "8 blosc2 rows (got %d)" % len(ours))
    c.ok(sorted({(o["codec"], o["clevel"]) for o in ours}) == [("lz4", 5), ("zstd", 1)],
         "default codecs lz4 5 and zstd 1: %s" % sorted({(o["codec"], o["clevel"]) for o in ours}))
    c.ok({o["threads"] for o in ours} == {1, 2}, "threads 1 and 2")
    c.ok({o["data"] for o in ours} == {"f32_smooth", "i32_ramp"}, "both datasets")
    for o in ours:
        c.ok(o["filter_id"] == 32026 and o["ratio"] > 1.0, "our filter compresses: %s" % o)
    # the int32 ramp compresses far better than the noisy float field
    for o in ours:
        if o["data"] == "i32_ramp":
            c.ok(o["ratio"] > 2.5, "i32 ramp ratio %.2f > 2.5" % o["ratio"])
    gz = by.get("gzip", [])
    c.ok(len(gz) == 2 and all(o["filter_id"] == 1 and o["clevel"] == 4 and o["ratio"] > 1.0 for o in gz),
         "one gzip 4 row per dataset: %s" % gz)

    b1 = by.get("blosc1", [])
    if blosc1_installed():
        c.ok(len(b1) == 8, "8 blosc1 rows with the plugin installed (got %d)" % len(b1))
        key = lambda o: (o["data"], o["codec"], o["threads"])  # noqa: E731
        mine = {key(o): o for o in ours}
        for o in b1:
            c.ok(o["filter_id"] == 32001 and o["ratio"] > 1.0, "blosc1 compresses: %s" % o)
            m = mine.get(key(o))
            # same codec, clevel and shuffle: the ratios agree within 10%
            c.ok(m is not None and abs(m["ratio"] / o["ratio"] - 1) < 0.1,
                 "ours and blosc1 ratios close for %s" % (key(o),))
            if m:
                c.ok(abs(m["write_vs_blosc1"] - m["write_mbps"] / o["write_mbps"]) < 1e-3 * m["write_vs_blosc1"],
                     "write_vs_blosc1 = ours / blosc1 for %s" % (key(o),))
    else:
        c.ok(not b1 and all("write_vs_blosc1" not in o for o in ours),
             "no blosc1 rows without its plugin")

    # table form, one thread count and codec
    r = run(ARGS + ["--threads", "2", "--codec", "lz4:3"] + plugin_args(), timeout=600)
    lines = r.stdout.decode().splitlines()
    data_lines = [l for l in lines if l.startswith(("f32_smooth", "i32_ramp"))]
    c.ok(r.returncode == 0 and len(data_lines) == 2 and all(" lz4 3 " in l for l in data_lines),
         "table output: %r" % r.stdout.decode())

    for args in (["--codec", "nope"], ["--chunks", "1x600x512"], ["--chunks", "8x8"],
                 ["--threads", "0"], ["--reps", "0"], ["--mib", "0"], ["extra.bin"]):
        r = run(["--hdf5"] + args)
        c.ok(r.returncode == 2 and r.stderr.count(b"\n") >= 1,
             "bench --hdf5 %s exits 2 (got %d)" % (args, r.returncode))
    r = run(["--hdf5", "--mib", "1", "--reps", "1", "--plugin-dir", "/nonexistent"],
            timeout=120)
    # (unless another copy of our plugin is on HDF5's search path anyway)
    dirs = [d for d in os.environ.get("HDF5_PLUGIN_PATH", "").split(":") if d] + SYSTEM_DIRS
    if not any(os.path.exists(os.path.join(d, "libH5Zb2.so")) for d in dirs):
        c.ok(r.returncode == 1 and b"32026" in r.stderr,
             "missing plugin: exit 1 naming the filter (got %d, %r)" % (r.returncode, r.stderr))
    c.finish()


if __name__ == "__main__":
    main()

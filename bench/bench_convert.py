#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`b2 convert` without recompressing against `cp` of the same stored bytes.

A float32 field of --mib MiB (default 1024; 2-D, 1 MiB chunks, lz4 5 +
bitshuffle) is written through our filter. Then, alternating round by round
(--rounds, default 9) with a warm page cache, it times

  * cp       cp of the HDF5 file into a new file;
  * to_b2nd  b2 convert FILE.h5:/d NEW.b2nd (every chunk moved as it is);
  * cp_b2nd  cp of the .b2nd file into a new file;
  * to_h5    b2 convert FILE.b2nd NEW.h5:/d;

removing each output and syncing before each command (so no command pays for
the last one's dirty pages), checks that both conversions moved
every chunk without recompressing and that the round trip's chunks are the
original's bytes, and prints the medians, the ratios to cp (target: within 2x),
the CPU model and the load average.

    /usr/bin/python3 bench/bench_convert.py [--b2 build/tools/b2] [--plugin-dir build/h5plugin]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from benchlib import cpu_model  # bench/benchlib.py

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--b2", default=os.path.join(REPO, "build", "tools", "b2"))
    ap.add_argument("--plugin-dir", default=os.path.join(REPO, "build", "h5plugin"))
    ap.add_argument("--dir", default=None)
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    os.environ["HDF5_PLUGIN_PATH"] = os.path.abspath(a.plugin_dir)
    sys.path.insert(0, os.path.join(REPO, "python"))
    import numpy as np
    import h5py
    import b2blosc

    side = int((a.mib * (1 << 20) // 4) ** 0.5)
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        src = os.path.join(tmp, "src.h5")
        rows = np.arange(side, dtype=np.float32)
        with h5py.File(src, "w") as f:
            d = f.create_dataset("d", shape=(side, side), dtype="<f4", chunks=(512, 512),
                                 **b2blosc.Blosc2("lz4", 5, b2blosc.Blosc2.BITSHUFFLE))
            for r0 in range(0, side, 512):
                r = rows[r0:r0 + 512, None]
                d[r0:r0 + 512] = np.sin(r / 300.0) * np.cos(rows[None, :] / 200.0) * 1e3
        b2nd = os.path.join(tmp, "src.b2nd")
        out = subprocess.run([a.b2, "convert", src + ":/d", b2nd], capture_output=True, text=True)
        if out.returncode != 0 or " 0 recompressed" not in out.stdout:
            sys.exit("convert to b2nd: %s%s" % (out.stdout, out.stderr))
        stored_h5, stored_b2 = os.path.getsize(src), os.path.getsize(b2nd)
        new = {"cp": os.path.join(tmp, "cp.h5"), "to_b2nd": os.path.join(tmp, "new.b2nd"),
               "cp_b2nd": os.path.join(tmp, "cp.b2nd"), "to_h5": os.path.join(tmp, "new.h5")}
        cmds = {"cp": ["cp", src, new["cp"]],
                "to_b2nd": [a.b2, "convert", "-q", src + ":/d", new["to_b2nd"]],
                "cp_b2nd": ["cp", b2nd, new["cp_b2nd"]],
                "to_h5": [a.b2, "convert", "-q", b2nd, new["to_h5"] + ":/d"]}
        ts = {k: [] for k in cmds}
        print("# %d x %d float32 (%d MiB), 512x512 chunks, lz4 5 + bitshuffle: HDF5 file %.0f MiB, "
              "b2nd %.0f MiB; median of %d rounds, alternating; warm page cache" % (
                  side, side, side * side * 4 >> 20, stored_h5 / 2**20, stored_b2 / 2**20, a.rounds))
        print("# CPU: %s, %d cores; load average before: %s" % (
            cpu_model(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
        for i in range(a.rounds + 1):  # the first round warms up
            for k, cmd in cmds.items():
                if os.path.exists(new[k]):
                    os.unlink(new[k])
                os.sync()  # no dirty pages of the last command left to throttle this one
                t0 = time.perf_counter()
                r = subprocess.run(cmd, capture_output=True, text=True)
                dt = time.perf_counter() - t0
                if r.returncode != 0:
                    sys.exit("%s failed: %s" % (" ".join(cmd), r.stderr))
                if i:
                    ts[k].append(dt)
        with h5py.File(src, "r") as f1, h5py.File(new["to_h5"], "r") as f2:
            d1, d2 = f1["d"], f2["d"]
            for off in ((0, 0), (side // 2 // 512 * 512, 0), ((side - 1) // 512 * 512,) * 2):
                if d1.id.read_direct_chunk(off) != d2.id.read_direct_chunk(off):
                    sys.exit("the round trip changed the chunk at %s" % (off,))
        m = {k: statistics.median(v) for k, v in ts.items()}
        print("HDF5 -> b2nd: %.3f s, cp of the HDF5 file %.3f s: %.2fx" % (
            m["to_b2nd"], m["cp"], m["to_b2nd"] / m["cp"]))
        print("b2nd -> HDF5: %.3f s, cp of the b2nd file %.3f s: %.2fx" % (
            m["to_h5"], m["cp_b2nd"], m["to_h5"] / m["cp_b2nd"]))
        print("# load average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

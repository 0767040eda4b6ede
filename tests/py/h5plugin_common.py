# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers for the HDF5 filter plugin tests (tests/py/test_h5plugin_*.py).

setup() must run before h5py is imported: it points HDF5_PLUGIN_PATH at the
build directory that holds libH5Zb2.so, or skips (exit 77) with the reason."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

FILTER_ID = 32026
CODECS = {"blosclz": 0, "lz4": 1, "lz4hc": 2, "zlib": 4, "zstd": 5}
PLUGIN_NAME = "libH5Zb2.so"


def plugin_dir():
    """Directory holding the built plugin, from $B2_BUILD_DIR (or build dirs next
    to the sources); skip when it is not there. Against an installed b2blosc
    (b2test.INSTALLED), the package's plugin folder."""
    if b2test.INSTALLED:
        import b2blosc
        return b2blosc.PLUGIN_PATH
    cands = []
    bd = os.environ.get("B2_BUILD_DIR")
    if bd:
        cands.append(os.path.join(bd, "h5plugin"))
    else:
        for d in sorted(os.listdir(b2test.REPO)):
            if d.startswith("build"):
                cands.append(os.path.join(b2test.REPO, d, "h5plugin"))
    for c in cands:
        if os.path.isfile(os.path.join(c, PLUGIN_NAME)):
            return os.path.abspath(c)
    b2test.skip("HDF5 plugin %s not built (looked in: %s)" % (PLUGIN_NAME, ", ".join(cands) or "nothing"))


def setup():
    """Set HDF5_PLUGIN_PATH, import h5py and numpy, check filter 32026 is
    available; returns (h5py, numpy, plugin_dir)."""
    d = plugin_dir()
    os.environ["HDF5_PLUGIN_PATH"] = d
    try:
        import h5py
        import numpy
    except ImportError as e:
        b2test.skip("h5py/numpy not importable by %s: %s" % (sys.executable, e))
    if not h5py.h5z.filter_avail(FILTER_ID):
        print("FAIL: HDF5 did not load filter %d from %s" % (FILTER_ID, d))
        sys.exit(1)
    return h5py, numpy, d


def frame_len(raw):
    """frame_len field of a Blosc2 contiguous frame (header offset 16, BE64)."""
    if len(raw) < 24 or raw[2:10] != b"b2frame\0":
        return None
    return int.from_bytes(raw[16:24], "big")


def is_b2nd_frame(raw):
    """Whether the frame header names a b2nd metalayer."""
    hl = int.from_bytes(raw[11:15], "big")
    return b"b2nd" in raw[:hl]

Counter = b2test.Counter
skip = b2test.skip
sha256 = b2test.sha256


READER = r"""
import hashlib, json, sys
import h5py, numpy as np
out = {}
with h5py.File(sys.argv[1], "r") as f:
    for k in f:
        try:
            out[k] = hashlib.sha256(np.ascontiguousarray(f[k][()]).tobytes()).hexdigest()
        except Exception as e:
            out[k] = "error: " + str(e).replace("\n", " ")[:300]
print(json.dumps(out))
"""


def read_with(plugin_dir, path):
    """SHA-256 (or the error) of every dataset of path, read in another process
    with HDF5_PLUGIN_PATH=plugin_dir (the reference plugin, say)."""
    env = b2test.clean_env(HDF5_PLUGIN_PATH=plugin_dir)
    p = subprocess.run([sys.executable, "-c", READER, path], env=env, capture_output=True, timeout=300)
    if p.returncode != 0:
        return {"_": "reader failed: " + p.stderr.decode()[-500:]}
    return json.loads(p.stdout.decode().strip().splitlines()[-1])

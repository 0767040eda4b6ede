# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.Blosc2's keyword-only pipeline, blockshape and use_dict (the filter's
extra cd_values, chunk ranks 1..16).

  * The cd_values made, get_config/repr, from_filter_options on made and stored
    values, and the errors for bad arguments.
  * h5py datasets of ranks 2 and 3 created with them: the data reads back, the
    stored cd_values hold the extra values after the chunk dimensions,
    from_dataset gives the arguments back, and each stored chunk's frame (as
    `b2 info --json` reads it) records the pipeline, use_dict and block shape.
  * b2blosc.h5.write (the parallel writer) into such a dataset stores the same
    bytes as h5py's write through the filter.
  * A rank-1 dataset with them gets HDF5-Blosc2 2.0's one-dimensional layout
    (cd_values[7] = 1 and the chunk length before them; hdf5-filter.md §2a)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
b2test.use_source_package()
import b2blosc  # noqa: E402
import b2blosc.h5 as b2h5  # noqa: E402
from b2blosc import Blosc2 as B  # noqa: E402

check = b2test.Checks()
M = B.EXT_MARKER

# ---- 1. arguments and cd_values ----
b = B("zstd", 3, pipeline=[B.SHUFFLE, B.BYTEDELTA], blockshape=(8, 16), use_dict=True)
check(b.filter_options == (0, 0, 0, 0, 3, 1, 5, M, 1, 6, 0, 0, 1 | 35 << 16, 1, 8, 16),
      "cd_values with pipeline, blockshape, use_dict: %r" % (b.filter_options,))
check(b.get_config() == {"cname": "zstd", "clevel": 3, "filters": 1, "pipeline": [1, 35],
                         "use_dict": True, "blockshape": (8, 16)}, "get_config: %r" % b.get_config())
check(repr(b) == "Blosc2(cname='zstd', clevel=3, filters=1, pipeline=[1, 35], use_dict=True, "
      "blockshape=(8, 16))", "repr: %r" % b)
check(B.from_filter_options(b.filter_options) == b, "from_filter_options of the made values")
stored = (1, 0, 4, 4096, 3, 1, 5, 2, 64, 16) + b.filter_options[7:]
check(B.from_filter_options(stored) == b, "from_filter_options of stored values")
t = B("lz4", 5, pipeline=[(B.INT_TRUNC, 12), B.BITSHUFFLE])
check(t.filter_options == (0, 0, 0, 0, 5, 2, 1, M, 1, 4, 0, 0, (36 | 12 << 8) | 2 << 16, 0),
      "int_trunc meta 12 then bitshuffle: %r" % (t.filter_options,))
check(t.filters == 2 and t.get_config()["pipeline"] == [(36, 12), 2], "its filters and pipeline")
u = B("lz4", 5, B.BITSHUFFLE, use_dict=True)
check(u.filter_options == (0, 0, 0, 0, 5, 2, 1, M, 1, 4, 0, 0, 2 << 16, 1), "use_dict alone: %r"
      % (u.filter_options,))
check(B().filter_options == (0, 0, 0, 0, 5, 1, 0) and repr(B()) ==
      "Blosc2(cname='blosclz', clevel=5, filters=1)", "the default stays hdf5plugin's")
for kw, what in (({"pipeline": [1] * 7}, "7 filters"), ({"pipeline": [(1, 300)]}, "meta 300"),
                 ({"pipeline": [256]}, "id 256"), ({"blockshape": (4,) * 17}, "a rank-17 block shape"),
                 ({"blockshape": (4, 0)}, "a 0 block size")):
    try:
        B("lz4", 5, **kw)
        check(False, "%s accepted" % what)
    except ValueError:
        check(True, what)

# ---- 2. datasets ----
b2bin = os.environ.get("B2_BIN") or os.path.join(os.environ.get("B2_BUILD_DIR", "build"), "tools", "b2")


def frame_info(raw, tmp):
    path = os.path.join(tmp, "chunk.b2frame")
    with open(path, "wb") as f:
        f.write(raw)
    r = subprocess.run([b2bin, "info", "--json", path], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "ext.h5")
    rng = np.random.default_rng(3)
    a2 = np.cumsum(rng.integers(-3, 4, size=(200, 130)), axis=1).astype("<i4")
    a3 = (np.arange(30 * 40 * 50) % 977).astype("<f4").reshape(30, 40, 50)
    cases = [("d2", a2, (64, 48), B("zstd", 3, pipeline=[B.SHUFFLE, B.BYTEDELTA],
                                    blockshape=(16, 16), use_dict=True)),
             ("d3", a3, (16, 20, 25), B("lz4", 5, pipeline=[B.SHUFFLE], blockshape=(8, 10, 5)))]
    with h5py.File(path, "w") as f:
        for name, data, chunks, comp in cases:
            f.create_dataset(name, data=data, chunks=chunks, compression=comp)
            w = f.create_dataset(name + "_w", shape=data.shape, dtype=data.dtype, chunks=chunks,
                                 compression=comp)
            rep = b2h5.write(w, ..., data, threads=2)
            check(rep["chunks_direct"] > 0, "%s: the parallel writer stored chunks: %r" % (name, rep))
        r1 = f.create_dataset("r1", data=np.arange(1000, dtype="<i4"), chunks=(100,),
                              compression=B("lz4", 5, use_dict=True, blockshape=(25,)))
        cd = r1.id.get_create_plist().get_filter(0)[2]
        check(tuple(cd[:12]) == (2, 0, 4, 400, 5, 1, 1, 1, 100, M, 1, 5) and cd[15] == 1,  # h5py shows 16 values
              "rank 1: the one-dimensional layout %r" % (cd,))
        check(np.array_equal(r1[...], np.arange(1000, dtype="<i4")), "rank 1 reads back")
        check(B.from_dataset(r1).get_config().get("blockshape") == (25,), "rank 1: from_dataset")
    with h5py.File(path, "r") as f:
        for name, data, chunks, comp in cases:
            ds = f[name]
            check(np.array_equal(ds[...], data), "%s reads back" % name)
            check(np.array_equal(f[name + "_w"][...], data), "%s_w reads back" % name)
            cd = ds.id.get_create_plist().get_filter(0)[2]
            rank = len(chunks)
            check(cd[7] == rank and tuple(cd[8:8 + rank]) == chunks and cd[8 + rank] == M,
                  "%s: stored cd_values %r" % (name, cd))
            check(B.from_dataset(ds) == comp, "%s: from_dataset %r" % (name, B.from_dataset(ds)))
            grid = [range(0, n, c) for n, c in zip(data.shape, chunks)]
            same = 0
            for off in np.ndindex(*[len(g) for g in grid]):
                o = tuple(g[i] for g, i in zip(grid, off))
                same += ds.id.read_direct_chunk(o) == f[name + "_w"].id.read_direct_chunk(o)
            check(same == np.prod([len(g) for g in grid]), "%s: %d chunks of the parallel writer "
                  "byte-identical to h5py's" % (name, same))
            info = frame_info(ds.id.read_direct_chunk((0,) * rank)[1], tmp)
            if info is None:
                check(False, "%s: b2 info cannot read a stored chunk" % name)
                continue
            cfg = comp.get_config()
            slots = [p if isinstance(p, int) else p[0] for p in cfg["pipeline"]]
            check(info["filters"][6 - len(slots):] == slots, "%s: frame filters %r, pipeline %r"
                  % (name, info["filters"], slots))
            check(info["use_dict"] == cfg.get("use_dict", False), "%s: use_dict" % name)
            check(tuple(info["b2nd"]["blockshape"]) == cfg["blockshape"], "%s: block shape %r"
                  % (name, info["b2nd"]["blockshape"]))

print("test_pypkg_blosc2_ext: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

# SPDX-License-Identifier: BSD-3-Clause
"""c-blosc2 reads what b2blosc.save writes: the reference HDF5 filter
($B2_REF_DIR/libH5Zblosc2.so, c-blosc2 3.3)
decodes, in a separate process whose HDF5_PLUGIN_PATH names only its folder,
  * a one-chunk .b2nd file written by save() (chunks == shape), stored whole
    with write_direct_chunk as the one chunk of a dataset (a b2nd frame of one
    chunk is what an HDF5 chunk of filter 32026 holds, as python-blosc2 and
    hdf5plugin store it);
  * every chunk of multi-chunk arrays saved with edge chunks, each wrapped as a
    one-chunk b2nd frame of the chunk shape (B2ndArray.chunk_frame: the stored
    chunk copied, padded to the chunk shape), as the chunks of a dataset with
    the same chunk shape;
for several dtypes, ndims, codecs, filters and block shapes. h5py's read must
give the saved array's bytes. Registered only where configure finds the
reference plugin (tests/CMakeLists.txt), so it never skips for want of it."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import pyarray_common as pc  # noqa: E402

ba = pc.load()
import numpy as np  # noqa: E402

check = b2test.Checks()


def ref_plugin():
    return os.path.abspath(os.path.join(os.environ["B2_REF_DIR"], "libH5Zblosc2.so"))


CHILD = r"""
import hashlib, json, sys
import numpy as np
import h5py
job = json.load(open(sys.argv[1]))
out = {"avail": bool(h5py.h5z.filter_avail(32026)), "results": {}}
if out["avail"]:
    with h5py.File(job["h5"], "w") as f:
        for d in job["datasets"]:
            dt = np.dtype(d["dtype"]) if not d["dtype"].startswith("[") else np.dtype(eval(d["dtype"]))
            ds = f.create_dataset(d["name"], shape=tuple(d["shape"]), dtype=dt, chunks=tuple(d["chunks"]),
                                  compression=32026, compression_opts=(0, 0, 0, 0, 5, 1, 1))
            for off, path in d["chunk_files"]:
                ds.id.write_direct_chunk(tuple(off), open(path, "rb").read())
    with h5py.File(job["h5"], "r") as f:
        for d in job["datasets"]:
            try:
                got = np.ascontiguousarray(f[d["name"]][...])
                out["results"][d["name"]] = hashlib.sha256(got.tobytes()).hexdigest()
            except Exception as e:
                out["results"][d["name"]] = "error: %s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""


def cases():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((45, 38))
    st = np.dtype([("x", "<f4"), ("y", "<i2")])
    s = np.zeros((17, 9), dtype=st)
    s["x"] = rng.standard_normal(s.shape)
    s["y"] = rng.integers(-100, 100, s.shape)
    out = [
        # one chunk: the file itself is the HDF5 chunk
        ("one_f8_lz4_shuffle", x, dict(chunks=x.shape, blocks=(16, 38))),
        ("one_f4_zstd_bitshuffle", x.astype("<f4"), dict(chunks=x.shape, blocks=(9, 19), cname="zstd",
                                                         filters=ba.BITSHUFFLE)),
        ("one_i4_3d_zlib_delta", rng.integers(0, 50, (6, 10, 12)).astype("<i4"),
         dict(chunks=(6, 10, 12), blocks=(3, 5, 12), cname="zlib", filters=ba.DELTA)),
        ("one_u2_blosclz_none", rng.integers(0, 9, (300,)).astype("<u2"),
         dict(chunks=(300,), cname="blosclz", filters=ba.NOFILTER)),
        ("one_struct_lz4hc", s, dict(chunks=s.shape, cname="lz4hc", clevel=9)),
        ("one_be_f8_default_blocks", x.astype(">f8"), dict(chunks=x.shape)),
        ("one_c16_filter_list", (x + 2j).astype("<c16"), dict(chunks=x.shape, filters=["delta", "shuffle"])),
        # several chunks, edge chunks padded
        ("multi_f8_2d", x, dict(chunks=(16, 15), blocks=(8, 5), cname="zstd")),
        ("multi_i2_3d", rng.integers(-999, 999, (11, 7, 13)).astype("<i2"),
         dict(chunks=(4, 3, 5), blocks=(2, 3, 2), cname="lz4", filters=ba.BITSHUFFLE)),
        ("multi_S6_1d", np.array([b"abc", b"hello!", b""] * 40, dtype="S6"), dict(chunks=(50,), blocks=(20,))),
        ("multi_zeros_f4", np.zeros((40, 40), dtype="<f4"), dict(chunks=(16, 16))),
    ]
    return out


def main():
    plugin = ref_plugin()
    tmp = b2test.scratch_dir("b2pyarray_ref_")
    datasets, want = [], {}
    for name, data, kw in cases():
        path = os.path.join(tmp, name + ".b2nd")
        with ba.save(data, path, **kw) as a:
            files = []
            if a.nchunks == 1 and a.chunks == a.shape:
                files.append([[0] * a.ndim, path])
                with open(path, "rb") as f:
                    check(a.chunk_frame(0) == f.read(), "%s: chunk_frame(0) is the file's bytes" % name)
            else:
                grid = [-(-s // c) for s, c in zip(a.shape, a.chunks)]
                for i, idx in enumerate(np.ndindex(*grid)):
                    cp = os.path.join(tmp, "%s.chunk%d" % (name, i))
                    with open(cp, "wb") as f:
                        f.write(a.chunk_frame(i))
                    files.append([[j * c for j, c in zip(idx, a.chunks)], cp])
                check(len(files) == a.nchunks, "%s: %d chunks for a grid of %s" % (name, a.nchunks, grid))
            dt = a.dtype
            datasets.append({"name": name, "shape": list(a.shape), "chunks": list(a.chunks),
                             "dtype": str(dt.descr) if dt.fields else dt.str, "chunk_files": files})
            want[name] = b2test.sha256(np.asarray(a).tobytes())
            check(want[name] == b2test.sha256(np.ascontiguousarray(data).tobytes()),
                  "%s: libb2 reads back what it saved" % name)
    job = os.path.join(tmp, "job.json")
    with open(job, "w") as f:
        json.dump({"h5": os.path.join(tmp, "ref.h5"), "datasets": datasets}, f)
    env = b2test.clean_env(drop=("LD_PRELOAD", "B2_LIBB2", "HDF5_PLUGIN_PATH"),
                           HDF5_PLUGIN_PATH=os.path.dirname(plugin))
    p = subprocess.run([sys.executable, "-c", CHILD, job], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    try:
        res = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        if "No module named" in p.stderr:
            b2test.skip("h5py/numpy not importable by %s: %s" % (sys.executable, p.stderr.strip()[-300:]))
        print("FAIL: the reference process failed (%d): %s\n%s" % (p.returncode, p.stdout, p.stderr[-3000:]))
        return 1
    if not check(res["avail"], "the reference plugin %s loads as filter 32026" % plugin):
        return 1
    for name, sha in want.items():
        got = res["results"].get(name)
        check(got == sha, "%s: c-blosc2's plugin reads the saved chunks (%s)" % (
            name, "same bytes" if got == sha else got))
    print("%d saved arrays read by the reference plugin; %d checks, %d failed"
          % (len(want), check.count, len(check.failures)))
    return 1 if check.failures else 0


sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""hdf5plugin's Blosc2 filter writes, we read (issue 37, section 2, item 1).

check_h5_from_hdf5plugin.py [WORK]: runs two phases, each in its own process:
  write: `import hdf5plugin` (its filter 32026 registered, ours nowhere on
    HDF5_PLUGIN_PATH); datasets with hdf5plugin.Blosc2: rank 1 over the full
    product of its cnames x filters (none, shuffle, bitshuffle, delta,
    trunc_prec) x clevels 0/1/5/9 x dtypes int8/int32/float32/float64/uint16,
    ranks 2..8 over every cname x filter with clevel and dtype rotating; every
    shape has edge chunks. What hdf5plugin reads back is saved as the
    reference (.npy); for the lossless filters it must equal the data written.
  read: hdf5plugin never imported, HDF5_PLUGIN_PATH an empty folder; `import
    b2blosc` registers our filter (checked). Every dataset is read with h5py's
    ds[...], b2blosc.h5.read(ds, threads=2) and `b2 slice FILE.h5:/NAME :`,
    each compared with the reference.
Prints the counts per category; exits 1 on any mismatch or error."""
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

CLEVELS = (0, 1, 5, 9)
DTYPES = ("int8", "int32", "float32", "float64", "uint16")
# shapes (never a multiple of the chunks: edge chunks in every dimension)
SHAPES = {1: ((10007,), (1000,)), 2: ((67, 45), (16, 20)), 3: ((19, 13, 11), (8, 5, 4)),
          4: ((9, 7, 6, 5), (4, 3, 4, 2)), 5: ((5, 6, 4, 5, 3), (2, 4, 3, 2, 2)),
          6: ((4, 3, 5, 3, 4, 3), (3, 2, 2, 2, 3, 2)),
          7: ((3, 4, 3, 3, 2, 3, 3), (2, 3, 2, 2, 1, 2, 2)),
          8: ((3, 3, 2, 3, 2, 3, 2, 3), (2, 2, 1, 2, 1, 2, 1, 2))}
FILE_OF_RANK = "rank%d.h5"


def grid(cnames, filters):
    """(rank, cname, filter, clevel, dtype) of every dataset."""
    out = [(1,) + p for p in itertools.product(cnames, filters, CLEVELS, DTYPES)]
    for rank in range(2, 9):
        for i, (cn, fl) in enumerate(itertools.product(cnames, filters)):
            out.append((rank, cn, fl, CLEVELS[(i + rank) % 4], DTYPES[(i + 2 * rank) % 5]))
    return out


def write(work):
    import h5py
    import hdf5plugin
    t = pc.Tally("hdf5plugin writes")
    B = hdf5plugin.Blosc2
    cnames = list(B._Blosc2__COMPRESSIONS)  # every cname its class offers
    filters = {"none": B.NOFILTER, "shuffle": B.SHUFFLE, "bitshuffle": B.BITSHUFFLE,
               "delta": B.DELTA, "trunc_prec": B.TRUNC_PREC}
    manifest = {"cnames": cnames, "filters": list(filters), "datasets": []}
    files = {}
    for n, (rank, cn, fl, cl, dt) in enumerate(grid(cnames, list(filters))):
        shape, chunks = SHAPES[rank]
        name = "r%d_%s_%s_c%d_%s" % (rank, cn, fl, cl, dt)
        fn = FILE_OF_RANK % rank
        if fn not in files:
            files[fn] = h5py.File(os.path.join(work, fn), "w")
        data = pc.make_data(shape, dt, seed=n)
        ds = files[fn].create_dataset(name, data=data, chunks=chunks,
                                      compression=B(cname=cn, clevel=cl, filters=filters[fl]))
        back = ds[...]
        if fl != "trunc_prec":
            t.check(np.array_equal(back, data), "hdf5plugin round trip",
                    "%s: hdf5plugin reads back other values than it wrote" % name)
        np.save(os.path.join(work, name + ".npy"), back)
        cd = pc.dataset_cd_values(ds)
        t.check(cd is not None, "hdf5plugin used filter 32026", name)
        manifest["datasets"].append({"file": fn, "name": name, "rank": rank, "cname": cn,
                                     "filter": fl, "clevel": cl, "dtype": dt, "cd_values": cd})
    for f in files.values():
        f.close()
    pc.save_json(os.path.join(work, "manifest.json"), manifest)
    print("wrote %d datasets in %d files; cd_values of the first rank-1 and rank-2 datasets: "
          "%s, %s" % (len(manifest["datasets"]), len(files), manifest["datasets"][0]["cd_values"],
                      next(d for d in manifest["datasets"] if d["rank"] == 2)["cd_values"]))
    return t.summary()


def b2_slice(path, name, dtype, shape):
    r = pc.run_b2(["slice", "%s:/%s" % (path, name), ":"])
    if r.returncode != 0:
        raise RuntimeError("b2 slice exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace")
                                                    .strip()[:300]))
    return np.frombuffer(r.stdout, dtype=dtype).reshape(shape)


def read(work):
    assert "hdf5plugin" not in sys.modules
    import h5py
    import b2blosc
    import b2blosc.h5
    t = pc.Tally("we read hdf5plugin's datasets (HDF5 %s)" % h5py.version.hdf5_version)
    cfg = b2blosc.get_config()
    if not t.check(cfg.get("registered") == "b2blosc", "our filter registered",
                   "b2blosc.get_config(): %r" % (cfg,)):
        return t.summary()
    man = pc.load_json(os.path.join(work, "manifest.json"))
    opened = {}
    for d in man["datasets"]:
        path = os.path.join(work, d["file"])
        f = opened.get(path) or opened.setdefault(path, h5py.File(path, "r"))
        ref = np.load(os.path.join(work, d["name"] + ".npy"))
        label = "%s (cd_values %s)" % (d["name"], d["cd_values"])
        rk = "rank 1" if d["rank"] == 1 else "ranks 2-8"
        ds = f[d["name"]]
        t.attempt("h5py ds[...], %s" % rk, label, lambda: np.array_equal(ds[...], ref))
        t.attempt("b2blosc.h5.read threads=2, %s" % rk, label,
                  lambda: np.array_equal(b2blosc.h5.read(ds, threads=2), ref))
        t.attempt("b2 slice, %s" % rk, label,
                  lambda: np.array_equal(b2_slice(path, d["name"], ref.dtype, ref.shape), ref))
    for f in opened.values():
        f.close()
    print("read %d datasets in %d files" % (len(man["datasets"]), len(opened)))
    return t.summary()


def main():
    return pc.phased_main(__file__, {"write": write, "read": read}, "peers_h5_from_hdf5plugin_")

if __name__ == "__main__":
    sys.exit(main())

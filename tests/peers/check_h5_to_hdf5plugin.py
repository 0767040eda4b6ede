# SPDX-License-Identifier: BSD-3-Clause
"""We write, hdf5plugin's Blosc2 filter reads (issue 37, section 2, item 2).

check_h5_to_hdf5plugin.py [WORK]: two phases, each in its own process:
  write: `import b2blosc` (our filter registered, checked; hdf5plugin never
    imported, HDF5_PLUGIN_PATH an empty folder) writes with b2blosc.Blosc2
    - "classic": the seven classic values, the grid of check_h5_from_hdf5plugin
      (ranks 1..8, every cname x filter, clevels 0/1/5/9, five dtypes);
    - "extra": the extra values (pipeline of core filters, blockshape), ranks
      2..16, every cname;
    - "checksums": checksums=True, ranks 1..8, every cname. Rank 1 then takes
      the one-dimensional layout, which hdf5plugin 7.1.0 refuses: the read
      phase checks that it refuses them (a PEER LIMIT row), not that it reads.
    What our filter reads back is saved as the reference; for lossless
    settings it must equal the data written. A dataset our writer refuses is a
    failed check (named), not a skipped one.
  read: `import hdf5plugin` only (its 32026, checked; our plugin on no path);
    every dataset with h5py's ds[...], compared with the reference.
Prints the counts per category; exits 1 on any mismatch or error."""
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_h5_from_hdf5plugin as grid_a  # noqa: E402  (the shared grid)
import peer_common as pc  # noqa: E402

CNAMES = ("blosclz", "lz4", "lz4hc", "zlib", "zstd")
BASE = ((7, 3), (5, 2), (3, 2), (2, 1), (2, 2), (2, 1))  # (size, chunk): edges in dims 1..3


def shape_of_rank(rank):
    """A small shape/chunk pair of any rank 1..16 with edge chunks."""
    dims = list(BASE[:rank]) if rank <= len(BASE) else \
        list(BASE) + [(1, 1)] * (rank - len(BASE) - 1) + [(2, 1)]
    return tuple(d for d, _ in dims), tuple(c for _, c in dims)


def extra_grid(B):
    """(rank, cname, pipeline, blockshape?, clevel, dtype, lossless) for the extra values."""
    pipes = [[B.NOFILTER], [B.SHUFFLE], [B.BITSHUFFLE], [B.DELTA], [B.DELTA, B.SHUFFLE],
             [B.SHUFFLE, B.BITSHUFFLE]]
    out = []
    for rank in range(2, 17):
        for i, pipe in enumerate(pipes):
            cn = CNAMES[(i + rank) % 5]
            dt = grid_a.DTYPES[(i + 3 * rank) % 5]
            out.append((rank, cn, pipe, i % 2 == 1, grid_a.CLEVELS[(i + rank) % 4], dt, True))
        # one lossy pipeline for floats: trunc_prec with its precision in meta
        out.append((rank, CNAMES[rank % 5], [(B.TRUNC_PREC, 10), B.SHUFFLE], False, 5,
                    "float32" if rank % 2 else "float64", False))
    return out


def write(work):
    import h5py
    import b2blosc
    assert "hdf5plugin" not in sys.modules
    t = pc.Tally("we write (HDF5 %s)" % h5py.version.hdf5_version)
    cfg = b2blosc.get_config()
    if not t.check(cfg.get("registered") == "b2blosc", "our filter registered", repr(cfg)):
        return t.summary()
    B = b2blosc.Blosc2
    fl_ids = {"none": B.NOFILTER, "shuffle": B.SHUFFLE, "bitshuffle": B.BITSHUFFLE,
              "delta": B.DELTA, "trunc_prec": B.TRUNC_PREC}
    todo = []  # (kind, name, rank, dtype, lossless, Blosc2 kwargs, shape, chunks)
    for rank, cn, fl, cl, dt in grid_a.grid(list(CNAMES), list(fl_ids)):
        shape, chunks = grid_a.SHAPES[rank]
        todo.append(("classic", "c_r%d_%s_%s_c%d_%s" % (rank, cn, fl, cl, dt), rank, dt, True,
                     dict(cname=cn, clevel=cl, filters=fl_ids[fl]), shape, chunks))
    for n, (rank, cn, pipe, bs, cl, dt, lossless) in enumerate(extra_grid(B)):
        shape, chunks = shape_of_rank(rank)
        kw = dict(cname=cn, clevel=cl, pipeline=pipe)
        if bs:
            kw["blockshape"] = tuple(max(1, c // 2) if c > 1 else 1 for c in chunks)
        todo.append(("extra", "x_r%d_%d_%s_%s" % (rank, n, cn, dt), rank, dt, lossless, kw,
                     shape, chunks))
    for rank, (i, cn) in itertools.product(range(1, 9), enumerate(CNAMES)):
        shape, chunks = grid_a.SHAPES[rank]
        dt = grid_a.DTYPES[(i + rank) % 5]
        todo.append(("checksums", "k_r%d_%s_%s" % (rank, cn, dt), rank, dt, True,
                     dict(cname=cn, clevel=5, filters=B.SHUFFLE, checksums=True), shape, chunks))
    manifest = []
    with h5py.File(os.path.join(work, "ours.h5"), "w") as f:
        # the README's form, compression=Blosc2(...), once; the grid below uses
        # the **Blosc2(...) form so that it does not hide everything else
        t.attempt("compression=Blosc2() accepted by h5py %s" % h5py.__version__,
                  "create_dataset(..., compression=b2blosc.Blosc2())",
                  lambda: f.create_dataset("form", data=np.arange(10), chunks=(5,),
                                           compression=B()) is not None)
        for n, (kind, name, rank, dt, lossless, kw, shape, chunks) in enumerate(todo):
            data = pc.make_data(shape, dt, seed=1000 + n)
            cat = "%s, %s" % (kind, "rank 1" if rank == 1 else "rank %s" % (
                "2-8" if rank <= 8 else "9-16"))

            def make():
                ds = f.create_dataset(name, data=data, chunks=chunks, **B(**kw))
                np.save(os.path.join(work, name + ".in.npy"), data)
                cd = pc.dataset_cd_values(ds)
                manifest.append({"name": name, "kind": kind, "cat": cat, "cd_values": cd,
                                 "kw": repr(kw), "lossless": lossless})
                return cd is not None
            t.attempt("write, " + cat, "%s %r" % (name, kw), make)
    read_back(t, work, manifest)
    pc.save_json(os.path.join(work, "manifest.json"), manifest)
    print("wrote %d of %d datasets" % (len(manifest), len(todo)))
    return t.summary()


def read_back(t, work, manifest):
    """What our filter decodes from the file, reopened (HDF5's chunk cache would
    give back the bytes written, before lossy filters such as trunc_prec ran),
    saved as the reference; for lossless settings it must equal the input."""
    import h5py
    with h5py.File(os.path.join(work, "ours.h5"), "r") as f:
        for d in manifest:
            data = np.load(os.path.join(work, d["name"] + ".in.npy"))

            def one():
                back = f[d["name"]][...]
                np.save(os.path.join(work, d["name"] + ".npy"), back)
                return not d["lossless"] or np.array_equal(back, data)
            t.attempt("write+read back, " + d["cat"], "%s %s" % (d["name"], d["kw"]), one)


def one_dimensional(cd):
    """HDF5-Blosc2 2.0's rank-1 layout: chunk rank 1 in cd_values[7]."""
    return cd is not None and len(cd) > 8 and cd[7] == 1


def refuses(ds):
    """True when reading ds fails with an HDF5 error (and does not crash)."""
    try:
        ds[...]
    except OSError:
        return True
    return False


def read(work):
    assert "b2blosc" not in sys.modules
    import h5py
    import hdf5plugin
    t = pc.Tally("hdf5plugin reads ours (HDF5 %s)" % h5py.version.hdf5_version)
    reg = hdf5plugin.get_config().registered_filters.get("blosc2", "")
    if not t.check("hdf5plugin" in reg, "hdf5plugin's filter registered", repr(reg)):
        return t.summary()
    man = pc.load_json(os.path.join(work, "manifest.json"))
    with h5py.File(os.path.join(work, "ours.h5"), "r") as f:
        for d in man:
            ref = np.load(os.path.join(work, d["name"] + ".npy"))
            ds = f[d["name"]]
            what = "%s (cd_values %s, %s)" % (d["name"], d["cd_values"], d["kw"])
            if one_dimensional(d["cd_values"]):
                # hdf5plugin 7.1.0's filter takes a chunk rank of 2 or more only
                # ("Chunk rank 1 ... is too small for B2ND"); our writer uses the
                # 1-D layout only where extra values need it (hdf5-filter.md §2a)
                t.check(refuses(ds), "PEER LIMIT: hdf5plugin refuses the 1-D layout, "
                        + d["cat"], what)
                continue
            t.attempt("hdf5plugin ds[...], " + d["cat"], what,
                      lambda: np.array_equal(ds[...], ref))
    print("read %d datasets" % len(man))
    return t.summary()


def main():
    return pc.phased_main(__file__, {"write": write, "read": read}, "peers_h5_to_hdf5plugin_")

if __name__ == "__main__":
    sys.exit(main())

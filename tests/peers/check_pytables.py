# SPDX-License-Identifier: BSD-3-Clause
"""PyTables 3.11.1 and our filter, both ways (issue 37, section 2, item 6).

check_pytables.py [WORK]: five phases, each in its own process, so PyTables'
32026 (registered by `import tables` in its own libhdf5) and ours never meet:
  write:     h5py + `import b2blosc` writes ours.h5 (ranks 1-4, lz4/zstd/blosclz,
             shuffle/bitshuffle, five dtypes, edge chunks; one rank-1 dataset in
             the one-dimensional layout; one incompressible dataset, stored as
             frames; one whose chunks of rows 32.. are raw with filter mask 1, as
             older files of ours hold incompressible chunks).
  pt_read:   `import tables`: every dataset whole and in random slices (steps
             too) through PyTables' normal read (its direct Blosc2 path where it
             applies, else its own filter).
  pt_direct: `import tables`, then 32026 unregistered in PyTables' libhdf5, so
             nothing can come through a filter: a read that succeeds came from
             PyTables' direct path (get_blosc2_slice in H5ARRAY-opt.c, which
             opens each chunk as a b2nd frame with its own c-blosc2). Checked
             first: with BLOSC2_FILTER=1 (its switch to the pipeline) reads fail.
  pt_write:  PyTables writes CArray/EArray/Table with several Blosc2 complibs
             and shuffle settings (its own direct chunk writer where it applies).
  our_read:  h5py + `import b2blosc` reads them; b2blosc.h5.read for arrays.
Prints counts per category; exits 1 on any failure."""
import ctypes
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

DTYPES = ("float32", "float64", "int16", "uint16", "int64")  # compressible at clevel 1
# chunks large enough that every frame is smaller than its chunk (so our
# optional filter stores all of them filtered; checked in write)
SHAPES = {1: ((9000,), (2048,)), 2: ((130, 97), (32, 40)), 3: ((40, 30, 20), (16, 16, 8)),
          4: ((12, 10, 9, 8), (5, 4, 4, 8))}
CODECS = ("lz4", "zstd", "blosclz")
FILTERS = ("shuffle", "bitshuffle")
N_SLICES = 12   # random slices per dataset and phase


def our_grid():
    """(name, rank, dtype, Blosc2 kwargs or compression_opts)."""
    out = []
    for rank in SHAPES:
        for i, cn in enumerate(CODECS):
            for j, fl in enumerate(FILTERS):
                dt = DTYPES[(rank + 2 * i + j) % len(DTYPES)]
                cl = (1, 5, 9)[(i + j + rank) % 3]
                out.append(("o_r%d_%s_%s_c%d_%s" % (rank, cn, fl, cl, dt), rank, dt,
                            dict(cname=cn, clevel=cl, filters=1 if fl == "shuffle" else 2)))
    return out


def write(work):
    import h5py
    import b2blosc
    t = pc.Tally("we write for PyTables (HDF5 %s)" % h5py.version.hdf5_version)
    t.check(b2blosc.get_config().get("registered") == "b2blosc", "our filter registered")
    man = []
    with h5py.File(os.path.join(work, "ours.h5"), "w") as f:
        for n, (name, rank, dt, kw) in enumerate(our_grid()):
            shape, chunks = SHAPES[rank]
            data = pc.make_data(shape, dt, seed=n)
            ds = f.create_dataset(name, data=data, chunks=chunks, **b2blosc.Blosc2(**kw))
            t.check(set(chunk_masks(ds)) == {0}, "every chunk filtered, rank %d" % rank, name)
            man.append({"name": name, "rank": rank, "kind": "classic"})
            np.save(os.path.join(work, name + ".npy"), data)
        # rank 1 in the one-dimensional layout (v[7] = 1, 1-D b2nd frames)
        data = pc.make_data((5000,), "float32", seed=99)
        ds = f.create_dataset("d_r1_onedim", data=data, chunks=(1024,), compression=32026,
                              compression_opts=(0, 0, 0, 0, 5, 1, 5, 1))
        t.check(set(chunk_masks(ds)) == {0}, "every chunk filtered, rank 1 onedim")
        t.check(pc.dataset_cd_values(ds)[7] == 1, "rank 1 onedim layout (v[7] = 1)")
        np.save(os.path.join(work, "d_r1_onedim.npy"), data)
        man.append({"name": "d_r1_onedim", "rank": 1, "kind": "onedim"})
        # incompressible: stored as frames all the same (mask 0), as the reference does
        data = np.random.default_rng(5).integers(0, 256, (40, 50), dtype=np.uint8)
        ds = f.create_dataset("u_r2_random", data=data, chunks=(16, 16),
                              **b2blosc.Blosc2(cname="lz4", clevel=0, filters=0))
        masks = chunk_masks(ds)
        t.check(set(masks) == {0}, "incompressible chunks stored as frames", repr(masks))
        np.save(os.path.join(work, "u_r2_random.npy"), data)
        man.append({"name": "u_r2_random", "rank": 2, "kind": "incompressible"})
        # mixed: compressible rows, then random ones stored raw with filter mask 1,
        # as libb2 before 0.1.1 left incompressible chunks
        data = np.zeros((64, 50), np.uint8)
        data[32:] = np.random.default_rng(6).integers(0, 256, (32, 50), dtype=np.uint8)
        src = f.create_dataset("m_r2_frames", data=data, chunks=(16, 25),
                               **b2blosc.Blosc2(cname="lz4", clevel=5, filters=1))
        ds = pc.old_raw_copy(f, "m_r2_mixed", src, data, 32)
        masks = chunk_masks(ds)
        t.check(set(masks) == {0, 1} and np.array_equal(ds[...], data),
                "mixed: chunks of rows 32.. raw (mask 1), the others frames", repr(masks))
        np.save(os.path.join(work, "m_r2_mixed.npy"), data)
        man.append({"name": "m_r2_mixed", "rank": 2, "kind": "mixed"})
    pc.save_json(os.path.join(work, "ours.json"), man)
    print("wrote %d datasets" % len(man))
    return t.summary()


def chunk_masks(ds):
    return [ds.id.get_chunk_info(i).filter_mask for i in range(ds.id.get_num_chunks())]


def random_slices(shape, rng, steps):
    out = []
    for _ in range(N_SLICES):
        key = []
        for d in shape:
            a = int(rng.integers(0, d))
            b = int(rng.integers(a + 1, d + 1))
            key.append(slice(a, b, int(rng.integers(1, 4)) if steps else 1))
        out.append(tuple(key))
    return out


def unregister_in_pytables_hdf5():
    """H5Zunregister(32026) in the libhdf5 that PyTables loaded (its wheel's copy)."""
    import tables
    libs = glob.glob(os.path.join(os.path.dirname(tables.__file__) + ".libs", "libhdf5-*.so*"))
    if len(libs) != 1:
        raise RuntimeError("PyTables' libhdf5 not found: %r" % libs)
    h5 = ctypes.CDLL(libs[0])
    h5.H5Zunregister.argtypes = [ctypes.c_int]
    h5.H5Zfilter_avail.argtypes = [ctypes.c_int]
    rc = h5.H5Zunregister(32026)
    return libs[0], rc, h5.H5Zfilter_avail(32026)


def pt_read(work, direct=False):
    import tables
    assert "b2blosc" not in sys.modules and "hdf5plugin" not in sys.modules
    what = "PyTables direct path only" if direct else "PyTables reads ours"
    t = pc.Tally("%s (tables %s, HDF5 %s, its c-blosc2 %s)" % (
        what, tables.__version__, tables.hdf5_version, tables.which_lib_version("blosc2")[1]))
    if direct:
        lib, rc, avail = unregister_in_pytables_hdf5()
        print("H5Zunregister(32026) in %s: %d, H5Zfilter_avail now %d" % (lib, rc, avail))
        if not t.check(rc >= 0 and avail == 0, "32026 unregistered in PyTables' HDF5"):
            return t.summary()
    man = pc.load_json(os.path.join(work, "ours.json"))
    rng = np.random.default_rng(7)
    with tables.open_file(os.path.join(work, "ours.h5"), "r") as f:
        for d in man:
            ref = np.load(os.path.join(work, d["name"] + ".npy"))
            node = f.get_node("/" + d["name"])
            cat = "%s, rank %d, %s" % ("direct" if direct else "read", d["rank"], d["kind"])
            if direct:
                pt_direct_one(t, node, ref, d, cat, rng)
                continue
            onedim = d["kind"] == "onedim"
            t.attempt(cat + ", whole", d["name"], lambda: np.array_equal(node[:], ref))
            for key in random_slices(ref.shape, rng, steps=not onedim):
                t.attempt(cat + (", slices" if onedim else ", slices (steps)"),
                          "%s%r" % (d["name"], key), lambda: np.array_equal(node[key], ref[key]))
            if onedim:
                # a step slice goes through PyTables' own filter, from before
                # HDF5-Blosc2 2.0: it refuses v[7] = 1 (hdf5-filter.md 2a)
                got = read_or_error(node, slice(0, 999, 3))
                print("PEER (by design): PyTables' filter on the one-dimensional layout: %s" % got)
                t.check(got != "read", cat + ", its filter refuses v[7] = 1 (pre-2.0)", got)
    return t.summary()


def pt_direct_one(t, node, ref, d, cat, rng):
    """Without a 32026 filter: b2nd-framed data must read (direct path); the
    classic rank-1 layout (plain frames, not opened by the direct path) must not."""
    os.environ["BLOSC2_FILTER"] = "1"   # PyTables' switch: pipeline only
    try:
        node[:]
        forced = "read"
    except Exception as e:  # expected: no filter to decode with
        forced = "error: " + str(e).splitlines()[0][:120]
    del os.environ["BLOSC2_FILTER"]
    t.check(forced != "read", cat + ", BLOSC2_FILTER=1 fails (no filter left)", forced)
    if d["kind"] == "classic" and d["rank"] == 1:
        # by design of PyTables' direct path (b2nd frames only): shown, not a fault
        got = read_or_error(node, slice(None))
        print("PEER (by design): rank 1 classic %s without a filter: %s; PyTables' direct "
              "path opens b2nd frames only, the classic layout stores plain frames"
              % (d["name"], got))
        t.check(got != "read", cat + ", not taken by the direct path (plain frames)", got)
        return
    if d["kind"] == "mixed":
        # its direct path ignores the chunk filter mask: one unfiltered chunk in a
        # selection makes it give up and use the pipeline for the whole selection
        got = read_or_error(node, slice(None))
        print("PEER (lost speed, values right): %s, rows 32..63 stored unfiltered, whole "
              "read without a filter: %s" % (d["name"], got))
        t.check(got != "read", cat + ", selection with an unfiltered chunk: pipeline", got)
        t.attempt(cat + ", filtered chunks only (rows 0..31)", d["name"],
                  lambda: np.array_equal(node[0:32], ref[0:32]))
        return
    t.attempt(cat + ", whole", d["name"], lambda: np.array_equal(node[:], ref))
    for key in random_slices(ref.shape, rng, steps=False):
        t.attempt(cat + ", slices", "%s%r" % (d["name"], key),
                  lambda: np.array_equal(node[key], ref[key]))


def read_or_error(node, key):
    try:
        node[key]
        return "read"
    except Exception as e:  # the message is what the check shows
        return "error: " + str(e).splitlines()[0][:120]


def pt_grid():
    """(name, kind, complib, complevel, shuffle, bitshuffle)."""
    libs = (("blosc2:zstd", 5, True, False), ("blosc2:lz4", 9, False, True),
            ("blosc2:blosclz", 1, False, False), ("blosc2", 5, True, False),
            ("blosc2:lz4hc", 3, True, False), ("blosc2:zlib", 6, False, True))
    out = []
    for kind in ("carray1", "carray2", "carray3", "earray", "table"):
        for i, (lib, cl, sh, bs) in enumerate(libs):
            out.append(("%s_%d_%s" % (kind, i, lib.replace(":", "_")), kind, lib, cl, sh, bs))
    return out


def pt_write(work):
    import tables
    assert "b2blosc" not in sys.modules
    t = pc.Tally("PyTables writes (tables %s)" % tables.__version__)
    man = []
    rng = np.random.default_rng(3)
    with tables.open_file(os.path.join(work, "pt.h5"), "w") as f:
        for n, (name, kind, lib, cl, sh, bs) in enumerate(pt_grid()):
            flt = tables.Filters(complib=lib, complevel=cl, shuffle=sh, bitshuffle=bs)

            def make():
                data = pt_write_one(f, tables, name, kind, flt, n, rng)
                np.save(os.path.join(work, name + ".npy"), data)
                man.append({"name": name, "kind": kind, "filters": repr(flt)})
                return np.array_equal(f.get_node("/" + name)[:], data)
            t.attempt("write+read back, %s" % kind, "%s %r" % (name, flt), make)
    pc.save_json(os.path.join(work, "pt.json"), man)
    return t.summary()


def pt_write_one(f, tables, name, kind, flt, n, rng):
    dt = DTYPES[n % len(DTYPES)]
    if kind.startswith("carray"):
        rank = int(kind[-1])
        shape, chunks = SHAPES[rank]
        data = pc.make_data(shape, dt, seed=100 + n)
        f.create_carray("/", name, obj=data, chunkshape=chunks, filters=flt)
        return data
    if kind == "earray":
        data = pc.make_data((333, 7), dt, seed=100 + n)
        ea = f.create_earray("/", name, atom=tables.Atom.from_dtype(data.dtype), shape=(0, 7),
                             chunkshape=(32, 7), filters=flt)
        for a in range(0, 333, 50):   # appends that end inside chunks
            ea.append(data[a:a + 50])
        return data
    rec = np.zeros(517, dtype=[("i", "<i4"), ("x", "<f8"), ("s", "S5")])
    rec["i"] = np.arange(517)
    rec["x"] = rng.normal(size=517)
    rec["s"] = [b"r%d" % (i % 97) for i in range(517)]
    f.create_table("/", name, obj=rec, chunkshape=(64,), filters=flt)
    return rec


def our_read(work):
    import h5py
    import b2blosc
    import b2blosc.h5
    assert "tables" not in sys.modules and "hdf5plugin" not in sys.modules
    t = pc.Tally("we read PyTables' writes (HDF5 %s)" % h5py.version.hdf5_version)
    t.check(b2blosc.get_config().get("registered") == "b2blosc", "our filter registered")
    man = pc.load_json(os.path.join(work, "pt.json"))
    with h5py.File(os.path.join(work, "pt.h5"), "r") as f:
        for d in man:
            ref = np.load(os.path.join(work, d["name"] + ".npy"))
            ds = f[d["name"]]
            cd = pc.dataset_cd_values(ds)
            t.check(cd is not None, "written with 32026, " + d["kind"], d["name"])
            t.attempt("h5py ds[...], " + d["kind"], "%s cd_values %s" % (d["name"], cd),
                      lambda: np.array_equal(ds[...], ref))
            if d["kind"] != "table":
                t.attempt("b2blosc.h5.read(threads=2), " + d["kind"], d["name"],
                          lambda: np.array_equal(b2blosc.h5.read(ds, threads=2), ref))
    print("read %d datasets" % len(man))
    return t.summary()


PHASES = {"write": write, "pt_read": pt_read, "pt_direct": lambda w: pt_read(w, True),
          "pt_write": pt_write, "our_read": our_read}


def main():
    return pc.phased_main(__file__, PHASES, "peers_pytables_")

if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 2.0's new types through filter 32026, both ways (issue 37, section 3).

check_h5_types.py [WORK]: four phases, each in its own process, so that
hdf5plugin's filter and ours are never registered in one process:
  ours_write    `import b2blosc` writes ours.h5 through our filter;
  theirs_write  `import hdf5plugin` writes theirs.h5 through its Blosc2;
  ours_read     reads both files with h5py ds[...], b2blosc.h5.read(threads=2)
                and `b2 slice FILE.h5:/NAME :` (b2 links the system's libhdf5, 1.10
                on Debian 12: for HDF5's complex class it must say that its HDF5
                cannot open the dataset);
  theirs_read   hdf5plugin reads both files with h5py ds[...].
The types: float16; complex64 and complex128 as h5py stores them by default (a
compound of two floats) and, where the HDF5 has them (2.0), as HDF5's own
complex class (H5T_COMPLEX, made through h5py's low-level API). bfloat16 is
not made: h5py 3.16 maps no NumPy type to it (no ml_dtypes), which the check
prints. Ranks 1-3 with edge chunks, lz4/zstd with shuffle or bitshuffle.
Prints the counts per category; exits 1 on any failure."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

SHAPES = {1: ((1000,), (300,)), 2: ((60, 70), (25, 30)), 3: ((9, 20, 30), (4, 8, 16))}
CODECS = (("lz4", "shuffle"), ("zstd", "bitshuffle"))
# (name, numpy dtype, HDF5 2.0 complex class constant in h5py.h5t or None)
TYPES = (("f2", "f2", None), ("c8", "c8", None), ("c16", "c16", None),
         ("c8n", "c8", "COMPLEX_IEEE_F32LE"), ("c16n", "c16", "COMPLEX_IEEE_F64LE"))


def cases(h5t):
    """(name, rank, dtype, native complex type or None, cname, filter) made here."""
    out = []
    for tname, dt, native in TYPES:
        if native and not hasattr(h5t, native):
            print("not made: %s (this HDF5 has no %s)" % (tname, native))
            continue
        for rank in SHAPES:
            for cname, filt in CODECS:
                out.append(("%s_r%d_%s_%s" % (tname, rank, cname, filt), rank, dt,
                            getattr(h5t, native) if native else None, cname, filt))
    print("not made: bfloat16 (h5py %s maps no NumPy type to it)" % sys.modules["h5py"].__version__)
    return out


def create(f, name, data, chunks, kwargs, native):
    """A dataset of data through the filter kwargs; with HDF5's own complex
    type when native is given (h5py's high level makes a compound)."""
    import h5py
    if native is None:
        return f.create_dataset(name, data=data, chunks=chunks, **kwargs)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_filter(kwargs["compression"], h5py.h5z.FLAG_OPTIONAL, tuple(kwargs["compression_opts"]))
    did = h5py.h5d.create(f.id, name.encode(), native, h5py.h5s.create_simple(data.shape), dcpl=dcpl)
    ds = h5py.Dataset(did)
    ds[...] = data
    return ds


def write(work, ours):
    import h5py
    if ours:
        import b2blosc
        make = b2blosc.Blosc2
        names = {"shuffle": make.SHUFFLE, "bitshuffle": make.BITSHUFFLE}
    else:
        import hdf5plugin
        make = hdf5plugin.Blosc2
        names = {"shuffle": make.SHUFFLE, "bitshuffle": make.BITSHUFFLE}
    who = "ours" if ours else "hdf5plugin"
    t = pc.Tally("%s writes HDF5 2.0 types (HDF5 %s)" % (who, h5py.version.hdf5_version))
    made = []
    with h5py.File(os.path.join(work, who + ".h5"), "w") as f:
        for n, (name, rank, dt, native, cname, filt) in enumerate(cases(h5py.h5t)):
            shape, chunks = SHAPES[rank]
            data = pc.make_data(shape, dt, seed=300 + n)
            kw = dict(make(cname=cname, clevel=5, filters=names[filt]))

            def one():
                ds = create(f, name, data, chunks, kw, native)
                np.save(os.path.join(work, "%s_%s.npy" % (who, name)), data)
                made.append(name)
                masks = [ds.id.get_chunk_info(i).filter_mask for i in range(ds.id.get_num_chunks())]
                return pc.dataset_cd_values(ds) is not None and not any(masks) and \
                    np.array_equal(ds[...], data)
            t.attempt("%s writes, %s" % (who, name.split("_")[0]), name, one)
    pc.save_json(os.path.join(work, who + ".json"), made)
    return t.summary()


def b2_slice(path, name, ref):
    r = pc.run_b2(["slice", "%s:/%s" % (path, name), ":"])
    if r.returncode != 0:
        raise RuntimeError("b2 slice exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[:300]))
    return np.frombuffer(r.stdout, dtype=ref.dtype).reshape(ref.shape)


def b2_slice_native(path, name, ref):
    """b2 links the system's libhdf5 (Debian 12: 1.10), which has no complex
    class: it must then refuse by naming that, not claim there is no dataset.
    With an HDF5 that has the class it must read the values."""
    r = pc.run_b2(["slice", "%s:/%s" % (path, name), ":"])
    if r.returncode == 0:
        return np.array_equal(np.frombuffer(r.stdout, dtype=ref.dtype).reshape(ref.shape), ref)
    err = r.stderr.decode(errors="replace")
    print("b2 slice %s: %s" % (name, err.strip()))
    return r.returncode == 1 and "exists, but the HDF5" in err and "cannot open it" in err


def read(work, ours):
    import h5py
    if ours:
        import b2blosc
        import b2blosc.h5
    else:
        import hdf5plugin  # noqa: F401  (registers its filter)
    reader = "ours" if ours else "hdf5plugin"
    t = pc.Tally("%s reads HDF5 2.0 types (HDF5 %s)" % (reader, h5py.version.hdf5_version))
    for who in ("ours", "hdf5plugin"):
        path = os.path.join(work, who + ".h5")
        with h5py.File(path, "r") as f:
            for name in pc.load_json(os.path.join(work, who + ".json")):
                ref = np.load(os.path.join(work, "%s_%s.npy" % (who, name)))
                ds, kind = f[name], name.split("_")[0]
                t.attempt("%s reads %s's, h5py, %s" % (reader, who, kind), name,
                          lambda: np.array_equal(ds[...], ref))
                if ours:
                    t.attempt("ours reads %s's, b2blosc.h5.read, %s" % (who, kind), name,
                              lambda: np.array_equal(b2blosc.h5.read(ds, threads=2), ref))
                    if kind.endswith("n"):  # HDF5's complex class: see b2_slice_native
                        t.attempt("ours reads %s's, b2 slice, %s" % (who, kind), name,
                                  b2_slice_native, path, name, ref)
                        continue
                    t.attempt("ours reads %s's, b2 slice, %s" % (who, kind), name,
                              lambda: np.array_equal(b2_slice(path, name, ref), ref))
    return t.summary()


PHASES = {"ours_write": lambda w: write(w, True), "theirs_write": lambda w: write(w, False),
          "ours_read": lambda w: read(w, True), "theirs_read": lambda w: read(w, False)}


def main():
    return pc.phased_main(__file__, PHASES, "peers_h5_types_")

if __name__ == "__main__":
    sys.exit(main())

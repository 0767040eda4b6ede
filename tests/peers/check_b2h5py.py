# SPDX-License-Identifier: BSD-3-Clause
"""b2h5py 0.5.1 slices our datasets (issue 37, section 2, item 7).

check_b2h5py.py [WORK]: two phases, each in its own process:
  write: h5py + `import b2blosc` writes ours.h5 (ranks 1-4, every shape with
    edge chunks, lz4/zstd/blosclz, shuffle/bitshuffle, several dtypes) and reads
    random slices back through plain h5py and our filter: the reference.
  read:  `import b2h5py` (which imports hdf5plugin: its 32026, never ours).
    Every slice through b2h5py.B2Dataset. Its optimized path (each chunk's frame
    opened in the file with python-blosc2, no HDF5 filter) is proven taken:
    b2h5py.blosc2._no_opt_error, its own test hook, is replaced by an exception
    that is not a NoOptSlicingError, so a fallback to h5py raises instead.
    Slices with steps, which b2h5py does not optimize, must raise there and
    then read through its fallback. A dataset of incompressible chunks (stored
    as frames by our filter) reads through the direct path; one whose chunks 2
    and 3 are stored raw with filter mask 1 (as older files of ours have them)
    shows b2h5py ignoring the chunk filter mask (PEER BUG).
Prints counts per category; exits 1 on any failure."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

SHAPES = {1: ((9000,), (2048,)), 2: ((130, 97), (32, 40)), 3: ((40, 30, 20), (16, 16, 8)),
          4: ((12, 10, 9, 16), (5, 4, 4, 16))}  # every chunk compressible (checked)
DTYPES = ("float32", "float64", "int16", "uint16", "int64")
CODECS = ("lz4", "zstd", "blosclz")
N_SLICES = 25


def random_key(shape, rng, steps):
    key = []
    for d in shape:
        a = int(rng.integers(0, d))
        b = int(rng.integers(a + 1, d + 1))
        key.append(slice(a, b, int(rng.integers(2, 4)) if steps else 1))
    if rng.random() < 0.2:   # an integer index in one dimension
        i = int(rng.integers(0, len(shape)))
        key[i] = int(rng.integers(0, shape[i]))
    return tuple(key)


def key_json(key):
    return [k if isinstance(k, int) else [k.start, k.stop, k.step] for k in key]


def key_from_json(js):
    return tuple(k if isinstance(k, int) else slice(*k) for k in js)


def write(work):
    import h5py
    import b2blosc
    t = pc.Tally("we write for b2h5py (HDF5 %s)" % h5py.version.hdf5_version)
    t.check(b2blosc.get_config().get("registered") == "b2blosc", "our filter registered")
    rng = np.random.default_rng(11)
    man = []
    with h5py.File(os.path.join(work, "ours.h5"), "w") as f:
        n = 0
        for rank, (shape, chunks) in SHAPES.items():
            for i, cn in enumerate(CODECS):
                for fl in (1, 2):
                    dt = DTYPES[(rank + i + fl) % len(DTYPES)]
                    name = "r%d_%s_f%d_%s" % (rank, cn, fl, dt)
                    data = pc.make_data(shape, dt, seed=n)
                    ds = f.create_dataset(name, data=data, chunks=chunks,
                                          **b2blosc.Blosc2(cname=cn, clevel=5, filters=fl))
                    masks = {ds.id.get_chunk_info(c).filter_mask
                             for c in range(ds.id.get_num_chunks())}
                    t.check(masks == {0}, "every chunk filtered", name)
                    man.append(ref_slices(work, ds, data, name, rank, "plain", rng))
                    n += 1
        # chunks 2 and 3 of 4 are random bytes: our filter stores them as frames too
        # (mask 0, as the reference does), which b2h5py's direct path reads
        data = np.zeros((64, 50), np.uint8)
        data[32:] = rng.integers(0, 256, (32, 50), dtype=np.uint8)
        ds = f.create_dataset("incompressible", data=data, chunks=(16, 50),
                              **b2blosc.Blosc2(cname="lz4", clevel=5, filters=1))
        masks = [ds.id.get_chunk_info(c).filter_mask for c in range(ds.id.get_num_chunks())]
        t.check(masks == [0, 0, 0, 0], "incompressible chunks stored as frames", repr(masks))
        man.append(ref_slices(work, ds, data, "incompressible", 2, "plain", rng))
        man.append(old_raw_dataset(t, f, ds, data, work, rng))
    pc.save_json(os.path.join(work, "manifest.json"), man)
    print("wrote %d datasets, %d slices" % (len(man), sum(len(d["keys"]) for d in man)))
    return t.summary()


def old_raw_dataset(t, f, src, data, work, rng):
    """Chunks 2 and 3 raw with filter mask 1 (as older files of ours hold
    incompressible chunks), 0 and 1 src's frames."""
    ds = pc.old_raw_copy(f, "mixed", src, data, 32)
    masks = [ds.id.get_chunk_info(c).filter_mask for c in range(ds.id.get_num_chunks())]
    t.check(masks == [0, 0, 1, 1] and np.array_equal(ds[...], data),
            "mixed: chunks 2 and 3 stored raw (mask 1), reads back", repr(masks))
    return ref_slices(work, ds, data, "mixed", 2, "mixed", rng)


def ref_slices(work, ds, data, name, rank, kind, rng):
    """Random slices (half with steps) read by plain h5py with our filter."""
    keys = [random_key(data.shape, rng, steps=(j % 2 == 1)) for j in range(N_SLICES)]
    if kind == "mixed":
        keys = [(slice(0, 32), slice(None)), (slice(30, 40), slice(5, 20)), (slice(40, 64),)]
    refs = {}
    for j, key in enumerate(keys):
        got = ds[key]
        assert np.array_equal(got, data[key]), (name, key)
        refs["k%d" % j] = got
    np.savez(os.path.join(work, name + ".npz"), **refs)
    return {"name": name, "rank": rank, "kind": kind,
            "keys": [key_json(k if isinstance(k, tuple) else (k,)) for k in keys]}


class Fallback(Exception):
    """Raised by b2h5py instead of falling back to h5py (not a NoOptSlicingError)."""


def read(work):
    assert "b2blosc" not in sys.modules
    import h5py
    import b2h5py
    import b2h5py.blosc2 as b2opt
    t = pc.Tally("b2h5py %s slices ours (HDF5 %s)" % (b2h5py.__version__ if hasattr(
        b2h5py, "__version__") else "0.5.1", h5py.version.hdf5_version))
    man = pc.load_json(os.path.join(work, "manifest.json"))
    with h5py.File(os.path.join(work, "ours.h5"), "r") as f:
        for d in man:
            bd = b2h5py.B2Dataset(f[d["name"]])
            t.check(bd.is_b2_fast_slicing, "dataset accepted for fast slicing", d["name"])
            refs = np.load(os.path.join(work, d["name"] + ".npz"))
            for j, js in enumerate(d["keys"]):
                key = key_from_json(js)
                ref = refs["k%d" % j]
                if d["kind"] == "mixed":
                    read_mixed(t, b2opt, bd, key, ref, d)
                    continue
                steps = any(isinstance(k, slice) and k.step not in (None, 1) for k in key)
                cat = "rank %d, %s" % (d["rank"], "steps" if steps else "step 1")
                read_one(t, b2opt, bd, key, ref, cat, steps, d["name"])
    return t.summary()


def optimized(b2opt, bd, key):
    """bd[key] with b2h5py's fallback turned into an error."""
    saved = b2opt._no_opt_error
    b2opt._no_opt_error = Fallback
    try:
        return bd[key]
    finally:
        b2opt._no_opt_error = saved


def read_one(t, b2opt, bd, key, ref, cat, steps, name):
    what = "%s%r" % (name, key)
    if not steps:
        t.attempt(cat + ": optimized path, same values", what,
                  lambda: same_or_peer_shape_bug(t, optimized(b2opt, bd, key), ref, what))
        return
    try:
        optimized(b2opt, bd, key)
        refused = False
    except Fallback:
        refused = True
    t.check(refused, cat + ": not optimized by b2h5py (falls back)", what)
    t.attempt(cat + ": fallback (hdf5plugin's filter), same values", what,
              lambda: np.array_equal(bd[key], ref))


def same_or_peer_shape_bug(t, got, ref, what):
    """Values must equal. b2h5py 0.5.1 returns a scalar selection as an array
    of shape (1,)*rank (its `slice_arr[()]` on a non-0-d array): PEER BUG, shown
    and counted, the values still compared."""
    if np.ndim(ref) == 0 and np.shape(got) != ():
        print("PEER BUG: b2h5py returns %s shape %s for the scalar selection %s"
              % (type(got).__name__, np.shape(got), what))
        t.check(True, "PEER BUG shown: scalar selection gives shape (1,)*rank")
        return np.size(got) == 1 and np.array_equal(np.reshape(got, ()), ref)
    return np.shape(got) == np.shape(ref) and np.array_equal(got, ref)


def read_mixed(t, b2opt, bd, key, ref, d):
    """Chunks stored unfiltered (filter mask 1): b2h5py opens them as frames anyway."""
    touches_raw = key[0].stop > 32
    try:
        got = optimized(b2opt, bd, key)
        res = "same values" if np.array_equal(got, ref) else "WRONG values"
    except Exception as e:  # shown: what the user gets
        res = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:150] if str(e) else "")
    if touches_raw:
        print("PEER BUG: b2h5py ignores the chunk filter mask; %s%r over unfiltered "
              "chunks: %s" % (d["name"], key, res))
        t.check(True, "PEER BUG shown: unfiltered chunks opened as frames (%s)"
                % ("error" if "values" not in res else res))
    else:
        t.check(res == "same values", "mixed, filtered chunks only: same values", res)
    # h5py's own path (hdf5plugin's filter, which honours the mask) is right
    t.attempt("mixed: h5py path, same values", repr(key),
              lambda: np.array_equal(bd.dataset[key], ref))


def main():
    return pc.phased_main(__file__, {"write": write, "read": read}, "peers_b2h5py_")

if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""How b2blosc.h5.read finds chunks under h5py's HDF5 (issue 38): one
H5Dchunk_iter for a read of many chunks, look-ups by coordinates for a read of
few (doc/format/hdf5-filter.md §11a).

check_h5_chunk_lookup.py [WORK]: h5py + `import b2blosc` writes datasets with
edge chunks (ranks 1-3), one whose chunks are partly never written (fill value)
and one in a file whose chunk index (a v1 B-tree, h5py's default) is then made
hostile. Each is read whole and in random boxes with every way of finding
chunks (B2_H5_CHUNK_LOOKUP=auto, iter, coord, read, noiter; read when a reader
opens) and compared with h5py's ds[...]. b2_h5_reader_lookup_stats proves the
path taken: iter and auto over many chunks call H5Dchunk_iter and no per-chunk
look-up, coord and auto over few chunks never iterate. The hostile index: a key
repeating another's coordinates must fail with B2_ERR_CORRUPT with iter (the
C message names it; b2blosc.h5's exception carries the code only); an
address past the end of the file an error in both ways; a key moved past the
extent (HDF5 rounds a key's offsets down to the grid, so none can be off it)
the same outcome both ways. Never a crash.
Prints counts per category; exits 1 on any failure."""
import ctypes
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

MODES = ("auto", "iter", "coord", "read", "noiter")
CASES = {  # name: (shape, chunks, dtype)
    "r1": ((50000,), (37,), "int32"),
    "r2": ((130, 97), (8, 8), "float32"),
    "r3": ((21, 30, 19), (4, 7, 5), "uint16"),
    "holes": ((200, 64), (10, 8), "float64"),
}


class Stats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int64) for n in
                ("iterations", "iterated", "by_coord", "read_chunk", "chunks", "hdf5_ns")]


def stats(lib, b2h5, ds):
    st = Stats()
    rc = lib.b2_h5_reader_lookup_stats(ctypes.c_void_p(b2h5._reader(ds.id)), ctypes.byref(st))
    assert rc == 0, rc
    return st


def data(shape, dtype, rng):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    a = (a % 1000) + rng.integers(0, 3, size=shape)
    return a.astype(dtype)


def write(path, b2blosc, rng):
    import h5py
    comp = b2blosc.Blosc2(cname="lz4", clevel=5, filters="shuffle")
    with h5py.File(path, "w") as f:
        for name, (shape, chunks, dtype) in CASES.items():
            if name == "holes":   # every third row band never written: fill value
                ds = f.create_dataset(name, shape=shape, chunks=chunks, dtype=dtype,
                                      fillvalue=-7.5, compression=comp)
                a = data(shape, dtype, rng)
                for r0 in range(0, shape[0], chunks[0]):
                    if (r0 // chunks[0]) % 3:
                        ds[r0:r0 + chunks[0], 8:] = a[r0:r0 + chunks[0], 8:]
            else:
                f.create_dataset(name, data=data(shape, dtype, rng), chunks=chunks,
                                 compression=comp)


def boxes(shape, chunks, rng, n):
    """(key, few): whole, one chunk, two chunks across an edge, random boxes."""
    out = [(tuple(slice(0, d) for d in shape), False)]
    out.append((tuple(slice(0, 1) for _ in shape), True))
    out.append((tuple(slice(max(d - c - 1, 0), d) for d, c in zip(shape, chunks)), True))
    for _ in range(n):
        key = []
        for d in shape:
            a = int(rng.integers(0, d))
            key.append(slice(a, int(rng.integers(a + 1, d + 1))))
        out.append((tuple(key), None))
    return out


def read_all(t, path, rng, lib, b2h5):
    import h5py
    for name, (shape, chunks, dtype) in CASES.items():
        with h5py.File(path, "r") as f:
            ref = f[name][...]
        keys = boxes(shape, chunks, rng, 12)
        for mode in MODES:
            os.environ["B2_H5_CHUNK_LOOKUP"] = mode
            for key, few in keys:
                with h5py.File(path, "r") as f:   # a new reader: the mode is read at open
                    ds = f[name]
                    what = "%s %s %s" % (name, mode, key)
                    got = t.attempt("%s: same values as h5py" % mode, what,
                                    lambda: np.array_equal(b2h5.read(ds, key, threads=2), ref[key]))
                    if not got:
                        continue
                    st = stats(lib, b2h5, ds)
                    if mode == "iter":
                        t.check(st.iterations == 1 and st.by_coord == 0 and st.read_chunk == 0,
                                "iter: one H5Dchunk_iter, no look-up", what)
                    elif mode in ("coord", "read", "noiter"):
                        t.check(st.iterations == 0 and st.by_coord > 0,
                                "%s: look-ups, no H5Dchunk_iter" % mode, what)
                    elif few is False:   # auto, whole dataset: many chunks
                        t.check(st.iterations == 1 and st.by_coord == 0,
                                "auto, whole dataset: H5Dchunk_iter", what)
                    elif few:
                        t.check(st.iterations == 0 and st.by_coord > 0,
                                "auto, one or two chunks: look-ups by coordinates", what)
        os.environ.pop("B2_H5_CHUNK_LOOKUP", None)


def btree_key(raw, info, rank):
    """Where the v1 B-tree key of a chunk is: chunk size, filter mask, offsets, 0."""
    pat = struct.pack("<II", info.size, info.filter_mask)
    pat += struct.pack("<%dQ" % (rank + 1), *(tuple(info.chunk_offset) + (0,)))
    return raw.find(pat), len(pat)


def hostile(t, work, b2blosc, lib, b2h5, rng):
    import h5py
    shape, chunks = (64, 64), (8, 8)
    a = data(shape, "int32", rng)
    cases = []
    for kind in ("outside", "twice", "past-eof"):
        p = os.path.join(work, "hostile-%s.h5" % kind)
        with h5py.File(p, "w", libver="earliest") as f:
            f.create_dataset("x", data=a, chunks=chunks,
                             compression=b2blosc.Blosc2(cname="lz4", clevel=5))
        with h5py.File(p, "r") as f:
            ds = f["x"]
            i5, i6 = ds.id.get_chunk_info(5), ds.id.get_chunk_info(6)
        raw = bytearray(open(p, "rb").read())
        at, n = btree_key(raw, i6, 2)
        if not t.check(at >= 0 and raw.find(raw[at:at + n], at + 1) < 0,
                       "hostile: the chunk's B-tree key found once", kind):
            continue
        offs = list(i6.chunk_offset)
        if kind == "outside":
            offs[1] += 10 * shape[1]
            raw[at + 8:at + 24] = struct.pack("<2Q", *offs)
        elif kind == "twice":
            raw[at + 8:at + 24] = struct.pack("<2Q", *i5.chunk_offset)
        else:   # the address follows the key (the child pointer)
            raw[at + n:at + n + 8] = struct.pack("<Q", len(raw) + (1 << 30))
        open(p, "wb").write(bytes(raw))
        cases.append((kind, p))
    for kind, p in cases:
        got = {}
        for mode in ("iter", "coord"):
            os.environ["B2_H5_CHUNK_LOOKUP"] = mode
            err, val = "", None
            try:
                with h5py.File(p, "r") as f:
                    val = b2h5.read(f["x"], threads=2)
            except Exception as e:   # what we want: an error, not a crash
                err = str(e)
            got[mode] = (err, val)
            print("hostile %-9s %-6s %s" % (kind, mode, err.splitlines()[0][:160] if err else "read"))
            if kind == "twice" and mode == "iter":
                # b2blosc.h5's exception carries the code, not the C message
                t.check("B2_ERR_CORRUPT" in err, "hostile index, iter: a chunk listed twice "
                        "is refused (B2_ERR_CORRUPT)", repr(err[:200]))
            elif kind == "past-eof":
                t.check(err != "", "hostile index, %s: an address past the end fails" % mode,
                        "no error")
        if kind == "outside":
            (e1, v1), (e2, v2) = got["iter"], got["coord"]
            t.check((e1 != "") == (e2 != "") and (v1 is None or np.array_equal(v1, v2)),
                    "hostile index, a key past the extent: iter as coord", "%r / %r" % (e1, e2))
    os.environ.pop("B2_H5_CHUNK_LOOKUP", None)


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.getcwd(), "chunk_lookup")
    os.makedirs(work, exist_ok=True)
    import h5py
    import b2blosc
    import b2blosc.h5 as b2h5
    from b2blosc import _loader
    lib = _loader.load()
    lib.b2_h5_reader_lookup_stats.argtypes = [ctypes.c_void_p, ctypes.POINTER(Stats)]
    lib.b2_h5_reader_lookup_stats.restype = ctypes.c_int
    hv = tuple(int(v) for v in h5py.version.hdf5_version.split(".")[:3])
    t = pc.Tally("chunk look-ups under HDF5 %s" % h5py.version.hdf5_version)
    t.check(hv >= (1, 14, 0), "HDF5 has H5Dchunk_iter", h5py.version.hdf5_version)
    rng = np.random.default_rng(38)
    path = os.path.join(work, "lookup.h5")
    write(path, b2blosc, rng)
    with h5py.File(path, "r") as f:   # the holes are real
        ds = f["holes"]
        t.check(ds.id.get_num_chunks() < int(np.prod([-(-s // c) for s, c in
                                                      zip(ds.shape, ds.chunks)])),
                "holes: some chunks never written", str(ds.id.get_num_chunks()))
    read_all(t, path, rng, lib, b2h5)
    hostile(t, work, b2blosc, lib, b2h5, rng)
    return t.summary()


if __name__ == "__main__":
    sys.exit(main())

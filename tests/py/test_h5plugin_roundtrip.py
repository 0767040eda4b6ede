# SPDX-License-Identifier: BSD-3-Clause
"""Write datasets through h5py with filter 32026 (our plugin) and read them back:
ranks 1-4, 9 and 17, integer/float dtypes of both byte orders, compound and array
types, edge chunks, chunk dimensions of 1, every codec x Blosc2 filter, several
clevels, fletcher32 after and before Blosc2, HDF5 shuffle before Blosc2. Checks
exact data, the cd_values set_local stores (doc/format/hdf5-filter.md §2), and what each
stored chunk holds: a frame of exactly the stored length (minus the fletcher32
checksum), b2nd or plain (doc/format/hdf5-filter.md §3), with the block sizes of
doc/format/hdf5-filter.md §4."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PLUGIN_DIR = hc.setup()
C = hc.Counter("h5plugin roundtrip")
RNG = np.random.default_rng(20261122)
CODEC_IDS = sorted(hc.CODECS.values())


def be32(b, off):
    return int.from_bytes(b[off:off + 4], "big")


def frame_fields(raw):
    """(frame_len, header_len, nbytes, first chunk's blocksize or None)."""
    flen = hc.frame_len(raw)
    if flen is None:
        return None
    hl = be32(raw, 11)
    nbytes = int.from_bytes(raw[30:38], "big")
    cb = int.from_bytes(raw[39:47], "big")
    bs = int.from_bytes(raw[hl + 8:hl + 12], "little") if cb > 0 and hl + 12 <= len(raw) else None
    return flen, hl, nbytes, bs


def make_data(shape, dtype, kind):
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if kind == "zeros":
        return np.zeros(shape, dt)
    if dt.names:  # compound: fill each field
        a = np.zeros(n, dt)
        for name in dt.names:
            sub = dt.fields[name][0]
            if sub.kind == "S":
                a[name] = [b"ab%d" % (i % 10) for i in range(n)]
            else:
                a[name] = (np.arange(n) % 97).astype(sub)
        return a.reshape(shape)
    base = dt.base if dt.subdtype else dt
    full = shape + (dt.shape if dt.subdtype else ())
    m = int(np.prod(full))
    if kind == "random":
        raw = RNG.integers(0, 256, m * base.itemsize, dtype=np.uint8).tobytes()
        a = np.frombuffer(raw, base).copy()
        if base.kind == "f":
            a[~np.isfinite(a)] = 0  # NaN != NaN would defeat comparisons
    else:  # smooth ramp with a little noise: compresses
        a = (np.arange(m) % 251 + RNG.integers(0, 3, m)).astype(base)
    return a.reshape(full)


def expected_cd(opts, dtype, chunks):
    """cd_values set_local must store (doc/format/hdf5-filter.md §2: ranks 2..16 recorded)."""
    dt = np.dtype(dtype)
    base = dt.base.itemsize if dt.subdtype else dt.itemsize
    v = list(opts) if opts else []
    n = max(len(v), 4)
    v += [0] * (8 + len(chunks) - len(v))
    v[0] = 1
    v[2] = base
    v[3] = (dt.itemsize * int(np.prod(chunks))) & 0xFFFFFFFF
    if 2 <= len(chunks) <= 16:
        if n < 5:
            v[4] = 5
        if n < 6:
            v[5] = 1
        if n < 7:
            v[6] = 0
        v[7] = len(chunks)
        v[8:8 + len(chunks)] = list(chunks)
        n = 8 + len(chunks)
    else:
        n = min(n, 7)
    return v[:n]


def stored_cd(ds):
    dcpl = ds.id.get_create_plist()
    for i in range(dcpl.get_nfilters()):
        fid, flags, vals, name = dcpl.get_filter(i)
        if fid == hc.FILTER_ID:
            return list(vals), name
    return None, None


def check_chunks(tag, ds, chunks, typesize, f32_after, want_b2nd, expect_bs=None):
    """Every stored chunk: filter mask, frame length, payload kind, block size."""
    nframes = 0
    grid = [range(0, s, c) for s, c in zip(ds.shape, chunks)]
    for off in np.ndindex(*[len(g) for g in grid]):
        coord = tuple(g[i] for g, i in zip(grid, off))
        mask, raw = ds.id.read_direct_chunk(coord)
        if mask & 1:
            continue  # stored raw: only where compression fails (checked by the caller)
        nframes += 1
        ff = frame_fields(raw)
        if not C.ok(ff is not None, "%s %s: stored chunk is not a frame" % (tag, coord)):
            return
        want_len = len(raw) - (4 if f32_after else 0)
        C.ok(ff[0] == want_len, "%s %s: frame_len %d, stored %d" % (tag, coord, ff[0], len(raw)))
        C.ok(hc.is_b2nd_frame(raw) == want_b2nd, "%s %s: b2nd %s, wanted %s"
             % (tag, coord, hc.is_b2nd_frame(raw), want_b2nd))
        if expect_bs is not None and ff[3] is not None:
            C.ok((ff[3], ff[2]) == expect_bs, "%s %s: (blocksize, nbytes) %s, wanted %s"
                 % (tag, coord, (ff[3], ff[2]), expect_bs))
        if nframes >= 6:
            break
    return nframes


def roundtrip(f, tag, shape, chunks, dtype, opts, kind="smooth", fletcher32=False,
              f32_before=False, h5shuffle=False, expect_bs=None, expect_cd=None):
    data = make_data(shape, dtype, kind)
    name = "d%d" % roundtrip.n
    roundtrip.n += 1
    if f32_before or h5shuffle:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk(chunks)
        if f32_before:
            dcpl.set_fletcher32()
        if h5shuffle:
            dcpl.set_shuffle()
        dcpl.set_filter(hc.FILTER_ID, 1, tuple(opts))
        tid = h5py.h5t.py_create(np.dtype(dtype), logical=True)
        dsid = h5py.h5d.create(f.id, name.encode(), tid, h5py.h5s.create_simple(shape), dcpl=dcpl)
        ds = h5py.Dataset(dsid)
        ds[...] = data
    else:
        kw = {"compression_opts": tuple(opts)} if opts is not None else {}
        ds = f.create_dataset(name, shape=shape, dtype=np.dtype(dtype), chunks=chunks,
                              compression=hc.FILTER_ID, fletcher32=fletcher32, **kw)
        ds[...] = data
    f.flush()
    back = ds[()]
    C.ok(back.dtype == data.dtype and back.shape == data.shape and
         back.tobytes() == data.tobytes(), "%s: data read back differs" % tag)
    cd, fname = stored_cd(ds)
    want = expect_cd if expect_cd is not None else expected_cd(opts, dtype, chunks)
    # h5py hands back at most 16 cd_values (garbage after that)
    C.ok(len(cd) == len(want) and cd[:16] == want[:16],
         "%s: stored cd_values %s, wanted %s" % (tag, cd, want))
    C.ok(fname == b"blosc2", "%s: filter name %r" % (tag, fname))
    dt = np.dtype(dtype)
    whole = not dt.subdtype and not f32_before
    return check_chunks(tag, ds, chunks, dt.itemsize, fletcher32,
                        whole and 2 <= len(chunks) <= 16, expect_bs)


roundtrip.n = 0


def thread_invariance(f):
    """B2_H5_NTHREADS=3 (and BLOSC_NTHREADS=2) must store the same bytes as 1 thread."""
    data = make_data((300, 400), "<f8", "smooth")
    stored = []
    for env in ({}, {"B2_H5_NTHREADS": "3"}, {"BLOSC_NTHREADS": "2"}):
        for k in ("B2_H5_NTHREADS", "BLOSC_NTHREADS"):
            os.environ.pop(k, None)
        os.environ.update(env)
        ds = f.create_dataset("threads%d" % len(stored), data=data, chunks=(150, 400),
                              compression=hc.FILTER_ID, compression_opts=(0, 0, 0, 0, 5, 1, 0))
        f.flush()
        C.ok(ds[()].tobytes() == data.tobytes(), "threads %s: data differs" % env)
        stored.append([ds.id.read_direct_chunk((i, 0)) for i in (0, 150)])
    for k in ("B2_H5_NTHREADS", "BLOSC_NTHREADS"):
        os.environ.pop(k, None)
    C.ok(stored[0] == stored[1] == stored[2], "chunks differ with the thread count")
    return 3


def main():
    tmp = b2test.scratch_dir("b2h5rt_")
    ncases = 0
    with h5py.File(os.path.join(tmp, "rt.h5"), "w") as f:
        # every codec x Blosc2 filter (trunc_prec excluded: it cannot work, doc/format/hdf5-filter.md §6)
        for codec in CODEC_IDS:
            for flt in (0, 1, 2, 3):
                clevel = (1, 5, 9)[(codec + flt) % 3]
                for shape, chunks in (((61, 47), (16, 10)), ((3001,), (512,))):
                    roundtrip(f, "codec%d filter%d clevel%d %s" % (codec, flt, clevel, shape),
                              shape, chunks, "<f4", (0, 0, 0, 0, clevel, flt, codec))
                    ncases += 1
        # every dtype, both byte orders, ranks 1-4 with edge chunks and 1-dims
        dtypes = ["|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8",
                  ">i2", ">i4", ">f4", ">f8"]
        geoms = [((1000,), (333,)), ((37, 29), (8, 7)), ((9, 10, 11), (4, 1, 5)),
                 ((5, 6, 7, 8), (2, 3, 1, 8)), ((40, 30), (1, 30)), ((7, 9), (7, 9))]
        for i, dt in enumerate(dtypes):
            for j, (shape, chunks) in enumerate(geoms):
                codec = CODEC_IDS[(i + j) % len(CODEC_IDS)]
                opts = (0, 0, 0, 0, (i + 2 * j) % 10, (i + j) % 3, codec)
                kind = ("smooth", "random", "zeros")[(i * 7 + j) % 3]
                roundtrip(f, "%s %s/%s %s %s" % (dt, shape, chunks, opts, kind), shape, chunks,
                          dt, opts, kind)
                ncases += 1
        # high ranks: 9 (b2nd, as the reference) and 17 (beyond any b2nd: plain frame)
        roundtrip(f, "rank9", (2, 3, 2, 3, 2, 2, 3, 2, 2), (1, 2, 2, 2, 2, 1, 2, 2, 2), "<f4",
                  (0, 0, 0, 0, 5, 1, 4))
        roundtrip(f, "rank17", (2,) * 16 + (3,), (1,) * 4 + (2,) * 12 + (3,), "<i2",
                  (0, 0, 0, 0, 1, 2, 2))
        ncases += 2
        # compound and array types
        comp = np.dtype({"names": ["a", "b", "c", "d"], "formats": ["<i4", "<f8", "u1", "S3"],
                         "offsets": [0, 4, 12, 13], "itemsize": 16})
        roundtrip(f, "compound 1d", (2498,), (965,), comp, (0, 0, 0, 0, 5, 2, 5))
        roundtrip(f, "compound 2d", (60, 45), (16, 10), comp, (0, 0, 0, 0, 1, 1, 2))
        roundtrip(f, "array f4x3", (5000,), (700,), np.dtype(("<f4", (3,))), (0, 0, 0, 0, 1, 0, 0))
        roundtrip(f, "array i2x2x2 2d", (40, 30), (9, 8), np.dtype(("<i2", (2, 2))),
                  (0, 0, 0, 0, 5, 1, 1))
        ncases += 4
        # pipelines
        roundtrip(f, "fletcher32 after", (150, 130), (40, 50), "<f4", (0, 0, 0, 0, 5, 2, 1),
                  fletcher32=True)
        roundtrip(f, "fletcher32 after rank1", (25000,), (4000,), "<u2", (0, 0, 0, 0, 5, 0, 1),
                  fletcher32=True)
        roundtrip(f, "fletcher32 before", (150, 130), (40, 50), "<i4", (0, 0, 0, 0, 5, 1, 1),
                  f32_before=True)
        roundtrip(f, "hdf5 shuffle before", (20000,), (5000,), "<i4", (0, 0, 0, 0, 5, 0, 5),
                  h5shuffle=True)
        ncases += 4
        # cd_values and block shapes of doc/format/hdf5-filter.md §2, §4, §8
        roundtrip(f, "spec (50,100) zstd", (100, 200), (50, 100), "<f4", (0, 0, 0, 0, 5, 1, 5),
                  expect_cd=[1, 0, 4, 20000, 5, 1, 5, 2, 50, 100], expect_bs=(20000, 20000))
        roundtrip(f, "spec (50,100) bs 2048", (50, 100), (50, 100), "<f4",
                  (0, 2048, 0, 0, 5, 1, 1), expect_bs=(2048, 32768))
        roundtrip(f, "spec (256,512) blosclz", (256, 512), (256, 512), "<f4",
                  (0, 0, 0, 0, 5, 1, 0), expect_bs=(262144, 524288))
        roundtrip(f, "spec (256,512) zstd9", (256, 512), (256, 512), "<f4",
                  (0, 0, 0, 0, 9, 1, 5), expect_bs=(524288, 524288))
        roundtrip(f, "spec (37,53,11)", (37, 53, 11), (37, 53, 11), "<f8",
                  (0, 0, 0, 0, 5, 1, 0), expect_bs=(172568, 172568))
        roundtrip(f, "spec (300,) i4", (600,), (300,), "<i4", (0, 0, 0, 0, 5, 1, 0),
                  expect_cd=[1, 0, 4, 1200, 5, 1, 0])
        roundtrip(f, "spec (3,4) i2 no opts", (6, 8), (3, 4), "<i2", None,
                  expect_cd=[1, 0, 2, 24, 5, 1, 0, 2, 3, 4])
        ncases += 7
        # forced block sizes: tiny, not a multiple of the typesize, larger than the chunk
        for bs in (1, 7, 4096, 10 ** 9, 2 ** 32 - 1):
            for shape, chunks in (((10007,), (3001,)), ((97, 103), (50, 60))):
                roundtrip(f, "blocksize %d rank %d" % (bs, len(shape)), shape, chunks, "<f4",
                          (0, bs, 0, 0, 5, 1, 0))
                ncases += 1
        # rank 1 without values: compression fails (no clevel), the optional filter's
        # chunks are stored raw (doc/format/hdf5-filter.md §6)
        nfr = roundtrip(f, "spec (5,) i2 no opts", (10,), (5,), "<i2", None,
                        expect_cd=[1, 0, 2, 10])
        C.ok(nfr == 0, "rank 1 without values stored %d frames, wanted none" % nfr)
        ncases += 1
        ncases += thread_invariance(f)
    print("cases written and read back: %d" % ncases)
    C.finish()


main()

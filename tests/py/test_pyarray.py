# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.array (python/b2blosc/array.py) on real files:
  * every b2nd vector of test_data/ (written by c-blosc2 3.3) opens with the
    manifest's shape, chunk/block shapes and dtype, and decodes to its sha256;
    metalayers and vlmetalayers match the manifest;
  * every frame vector (contiguous files and sparse-frame directories) opens as
    a 1-D array of items whose bytes match the manifest;
  * basic slices (ints, negative indices, steps of either sign, Ellipsis,
    newaxis, empty selections) equal NumPy slicing of the whole array, and a
    small box decodes only the blocks it touches;
  * save() round trips across dtypes (structured, big-endian, strings, V),
    ndims 0..8, every codec, every hdf5plugin filter value and filter lists,
    explicit and default chunk/block shapes, sparse frames, user metalayers;
  * msgpack_unpack (vlmeta.unpack) on hand-made encodings and malformed input."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import pyarray_common as pc  # noqa: E402

ba = pc.load()
import numpy as np  # noqa: E402

check = b2test.Checks()
rng = np.random.default_rng(1234)


def random_keys(shape, n):
    """n random basic indices for an array of this shape."""
    keys = []
    for _ in range(n):
        key = []
        for s in shape:
            r = rng.integers(0, 6)
            if s == 0 or r == 0:
                key.append(slice(None))
            elif r == 1:
                key.append(int(rng.integers(-s, s)))
            elif r == 2:
                a, b = sorted(int(x) for x in rng.integers(0, s + 1, 2))
                key.append(slice(a, b))
            elif r == 3:
                key.append(slice(int(rng.integers(0, s)), None, int(rng.integers(2, 5))))
            elif r == 4:
                key.append(slice(int(rng.integers(-s, s)), None, -int(rng.integers(1, 4))))
            else:
                a = int(rng.integers(-s - 2, s + 2))
                key.append(slice(a, a + int(rng.integers(0, 4))))
        if key and rng.integers(0, 3) == 0:
            i = int(rng.integers(0, len(key) + 1))
            key = key[:i] + [Ellipsis] + key[i + 1:]   # ... replacing one entry
        if rng.integers(0, 4) == 0:
            key.insert(int(rng.integers(0, len(key) + 1)), None)
        keys.append(tuple(key))
    return keys


def same(got, want):
    got = np.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if want.dtype.fields:  # field by field: NumPy 2 leaves a copy's padding bytes unspecified
        return all(got[f].tobytes() == want[f].tobytes() for f in want.dtype.names)
    return got.tobytes() == want.tobytes()


def check_slices(a, full, name, n=12):
    keys = random_keys(a.shape, n) + [(), Ellipsis]
    if a.ndim:
        keys += [0, -1, (Ellipsis, -1), (None, Ellipsis), slice(None, None, -1)]
    for key in keys:
        try:
            want = full[key]
        except IndexError:
            continue
        try:
            got = a[key]
        except Exception as e:
            check(False, "%s[%r] raised %s: %s" % (name, key, type(e).__name__, e))
            continue
        if isinstance(want, np.ndarray):
            check(isinstance(got, np.ndarray) and same(got, want), "%s[%r] equals numpy's" % (name, key))
        else:
            check(not isinstance(got, np.ndarray) and np.asarray(got).tobytes() == np.asarray(want).tobytes(),
                  "%s[%r] gives the same scalar as numpy" % (name, key))


def check_selections(a, full, name, n=6):
    """Index lists: the orthogonal selection, NumPy's full[np.ix_(...)]."""
    rng = np.random.default_rng(len(name) * 31 + a.ndim)
    for _ in range(n):
        key, lists, drop = [], [], []
        for d, s in enumerate(a.shape):
            r = int(rng.integers(0, 4)) if d else 0
            if r == 0 or s == 0:
                idx = [int(x) for x in rng.integers(-s, s, int(rng.integers(0, 6)))] if s else []
                key.append(idx)
            elif r == 1:
                mask = rng.integers(0, 2, s).astype(bool)
                key.append(mask)
                idx = list(np.nonzero(mask)[0])
            elif r == 2:
                sl = slice(int(rng.integers(-s, s)), None, int(rng.choice([-2, 1, 3])))
                key.append(sl)
                idx = list(range(*sl.indices(s)))
            else:
                i = int(rng.integers(-s, s))
                key.append(i)
                idx = [i]
                drop.append(d)
            lists.append(np.asarray(idx, dtype=np.int64))
        want = full[np.ix_(*lists)]
        want = want.reshape(tuple(x for d, x in enumerate(want.shape) if d not in drop))
        try:
            got = a[tuple(key)]
        except Exception as e:
            check(False, "%s[%r] raised %s: %s" % (name, key, type(e).__name__, e))
            continue
        check(same(got, want), "%s[%r] equals numpy's np.ix_ selection" % (name, key))
    if a.ndim and a.shape[0] > 0:
        for bad in ([a.shape[0]], [[0]], [0.5]):
            try:
                a[bad]
                check(False, "%s[%r] raises IndexError" % (name, bad))
            except IndexError:
                check(True, "")


def b2nd_vectors(d, m):
    n = 0
    for v in m["vectors"]:
        if v["kind"] != "b2nd":
            continue
        n += 1
        name = os.path.basename(v["path"])
        arr = v["array"]
        with ba.open(os.path.join(d, v["path"])) as a:
            check(isinstance(a, ba.B2ndArray), "%s opens as a B2ndArray" % name)
            check(a.shape == tuple(arr["shape"]) and a.chunks == tuple(arr["chunkshape"])
                  and a.blocks == tuple(arr["blockshape"]) and a.ndim == arr["ndim"],
                  "%s: shape %s chunks %s blocks %s" % (name, a.shape, a.chunks, a.blocks))
            # the dtype: NumPy's reading of the label when its itemsize is the typesize
            try:
                want_dt = np.dtype(arr["dtype"]) if not arr["dtype"].startswith("[") else \
                    np.dtype(eval(arr["dtype"]))  # noqa: S307 (manifest of the repository)
            except TypeError:
                want_dt = None
            if want_dt is None or want_dt.itemsize != arr["typesize"]:
                want_dt = np.dtype("V%d" % arr["typesize"])
            check(a.dtype == want_dt and a.dtype_label == arr["dtype"],
                  "%s: dtype %s (label %r), want %s" % (name, a.dtype, a.dtype_label, want_dt))
            full = np.asarray(a)
            check(full.shape == a.shape and full.dtype == a.dtype, "%s: __array__ shape/dtype" % name)
            if a.ndim:
                check_selections(a, full, name)
            diff = b2test.check_expected(full.tobytes(), v["expected"])
            check(diff is None, "%s: decoded bytes match the manifest (%s)" % (name, diff))
            check(a.nbytes == full.nbytes and a.cbytes >= 0 and
                  (a.ndim == 0 or len(a) == a.shape[0]), "%s: nbytes/cbytes/len" % name)
            fr = v["frame"]
            metas = dict(a.meta)
            check(list(metas) == [x["name"] for x in fr["metalayers"]] and
                  all(b2test.sha256(metas[x["name"]]) == x["sha256"] for x in fr["metalayers"]),
                  "%s: metalayers %s" % (name, list(metas)))
            vl = dict(a.vlmetalayers)
            check(list(vl) == [x["name"] for x in fr["vlmetalayers"]] and
                  all(b2test.sha256(vl[x["name"]]) == x["sha256"] for x in fr["vlmetalayers"]),
                  "%s: vlmetalayers %s" % (name, list(vl)))
            if v["expected"].get("sha256") is not None:
                check_slices(a, full, name)
            check(name in repr(a) and str(a.shape) in repr(a), "%s: repr %s" % (name, repr(a)))
        check("closed" in repr(a), "%s: closed after the with block" % name)
    return n


def frame_vectors(d, m):
    n = 0
    for v in m["vectors"]:
        if v["kind"] not in ("cframe", "sframe"):
            continue
        n += 1
        name = os.path.basename(v["path"])
        path = os.path.join(d, v["path"])
        check(os.path.isdir(path) == (v["kind"] == "sframe"), "%s: %s is a %s" % (
            name, "directory" if os.path.isdir(path) else "file", v["kind"]))
        with ba.open(path) as a:
            fr = v["frame"]
            ts = fr["typesize"]
            if fr["nbytes"] % ts:
                ts = 1
            want_dt = np.dtype({1: "u1", 2: "<u2", 4: "<u4", 8: "<u8"}.get(ts, "V%d" % ts))
            check(isinstance(a, ba.FrameArray) and a.dtype == want_dt and a.shape == (fr["nbytes"] // ts,)
                  and a.nchunks == fr["nchunks"],
                  "%s: FrameArray of %s items, dtype %s" % (name, a.shape, a.dtype))
            full = np.asarray(a)
            diff = b2test.check_expected(full.tobytes(), v["expected"])
            check(diff is None, "%s: items match the manifest (%s)" % (name, diff))
            metas = dict(a.meta)
            check(sorted(metas) == sorted(x["name"] for x in fr["metalayers"]),
                  "%s: metalayers %s" % (name, list(metas)))
            vl = dict(a.vlmeta)
            check(sorted(vl) == sorted(x["name"] for x in fr["vlmetalayers"]) and
                  all(b2test.sha256(vl[x["name"]]) == x["sha256"] for x in fr["vlmetalayers"] if "sha256" in x),
                  "%s: vlmetalayers %s" % (name, list(vl)))
            if v["expected"].get("sha256") is not None and full.size:
                check_slices(a, full, name, n=8)
                # ranges across chunk boundaries
                cs = a.chunks[0] if a.chunks else max(1, full.size // max(1, a.nchunks))
                for lo in (cs - 3, 2 * cs - 1):
                    if 0 <= lo < full.size:
                        check(same(a[lo:lo + 7], full[lo:lo + 7]), "%s[%d:%d] across chunks" % (name, lo, lo + 7))
    return n


def partial_decoding(d):
    """A box inside one block decodes one block; the whole array decodes them all."""
    path = os.path.join(d, "b2nd", "a31_big.b2nd")
    with ba.open(path) as a:
        before = a.blocks_decoded
        got = a[1:5, 2:7, 3:9]
        one = a.blocks_decoded - before
        full = np.asarray(a)
        total = a.blocks_decoded - before - one
        check(same(got, full[1:5, 2:7, 3:9]), "a31_big box inside one block")
        check(one == 1 and total > 20, "a31_big: the small box decoded %d block(s), the whole array %d"
              % (one, total))


def roundtrips(tmp):
    """save() then open() for many arrays and parameters."""
    cases = []
    x = rng.standard_normal((37, 23))
    cases.append(("f8_2d_default", x, {}))
    cases.append(("f4_3d_zstd_bitshuffle", rng.standard_normal((9, 14, 11)).astype("<f4"),
                  dict(chunks=(5, 7, 6), blocks=(2, 3, 6), cname="zstd", clevel=9, filters=ba.BITSHUFFLE)))
    cases.append(("big_endian_f8", x.astype(">f8"), dict(chunks=(10, 10), cname="zlib")))
    cases.append(("i2_1d_blosclz_delta", np.arange(5000, dtype="<i2"), dict(cname="blosclz", filters=ba.DELTA)))
    cases.append(("u1_nofilter_lz4hc", rng.integers(0, 4, (60, 70), dtype=np.uint8),
                  dict(cname="lz4hc", filters=ba.NOFILTER, chunks=(33, 70), blocks=(8, 70))))
    cases.append(("c16_clevel0", (x + 1j * x).astype("<c16"), dict(clevel=0)))
    cases.append(("bool", x > 0, dict(chunks=(8, 8))))
    cases.append(("S5", np.array([[b"ab", b"hello"], [b"", b"xyz12"]] * 7, dtype="S5"), {}))
    cases.append(("U3", np.array(["a", "bcd", "ef"] * 11, dtype="<U3"), dict(chunks=(10,))))
    st = np.dtype([("x", "<f4"), ("y", "<i2"), ("s", "S3")])
    cases.append(("structured", np.zeros((13, 4), dtype=st), dict(chunks=(5, 3), filters=["shuffle"])))
    cases.append(("structured_padded", np.zeros(9, dtype=np.dtype({"names": ["a", "b"], "formats": ["u1", "<i4"],
                                                                     "offsets": [0, 4], "itemsize": 12})), {}))
    cases.append(("V7", np.frombuffer(rng.bytes(7 * 30), dtype="V7").reshape(5, 6), {}))
    cases.append(("V300_typesize_over_255", np.frombuffer(rng.bytes(300 * 10), dtype="V300"), dict(chunks=(4,))))
    cases.append(("scalar_0d", np.array(3.25), {}))
    cases.append(("empty_extent", np.zeros((0, 5), dtype="<i4"), dict(chunks=(4, 5))))
    cases.append(("ndim8", rng.integers(0, 100, (2, 3, 2, 3, 2, 3, 2, 3)).astype("<i8"),
                  dict(chunks=(2, 2, 2, 2, 2, 2, 2, 2), blocks=(1, 2, 1, 2, 1, 2, 1, 2))))
    cases.append(("transposed_input", x.T, dict(chunks=(7, 9))))
    cases.append(("strided_input", x[::3, ::-2], {}))
    cases.append(("filter_list", rng.integers(0, 1000, (40, 40)).astype("<i4"),
                  dict(filters=["delta", "bitshuffle"], cname="zstd")))
    cases.append(("filter_ids_and_bytedelta", rng.integers(0, 9, (50,)).astype("<f4"),
                  dict(filters=[1, ("bytedelta", 4)])))
    cases.append(("list_input", [[1, 2, 3], [4, 5, 6]], {}))
    for fv in (0, 1, 2, 3):
        for cname in ba.CODEC_NAMES:
            cases.append(("f4_%s_filter%d" % (cname, fv), (x * 100).astype("<f4"),
                          dict(cname=cname, filters=fv, chunks=(16, 16), blocks=(8, 8))))
    n = 0
    for name, data, kw in cases:
        want = np.asarray(data)
        path = os.path.join(tmp, name + ".b2nd")
        try:
            a = ba.save(data, path, **kw)
        except Exception as e:
            check(False, "save %s raised %s: %s" % (name, type(e).__name__, e))
            continue
        n += 1
        with a:
            check(isinstance(a, ba.B2ndArray) and os.path.isfile(path), "save %s returns the opened array" % name)
            check(a.shape == want.shape and a.dtype == want.dtype,
                  "%s: shape %s dtype %s, want %s %s" % (name, a.shape, a.dtype, want.shape, want.dtype))
            got = np.asarray(a)
            check(same(got, want if want.flags.c_contiguous else want.copy(order="C")), "%s: round trip" % name)
            if "chunks" in kw:
                check(a.chunks == tuple(kw["chunks"]), "%s: chunks %s" % (name, a.chunks))
            if "blocks" in kw:
                check(a.blocks == tuple(kw["blocks"]), "%s: blocks %s" % (name, a.blocks))
            cp = a.cparams
            if "cname" in kw:
                check(cp["cname"] == kw["cname"], "%s: codec %s" % (name, cp["cname"]))
            if isinstance(kw.get("filters"), int):
                check(cp["filters"] == [0] * 5 + [kw["filters"]], "%s: filters %s" % (name, cp["filters"]))
            if want.size and want.ndim:
                check_slices(a, want, "saved " + name, n=4)
    # lossy trunc_prec keeps the requested bits
    y = rng.standard_normal(1000).astype("<f4")
    with ba.save(y, os.path.join(tmp, "trunc.b2nd"), filters=[("trunc_prec", 10), "shuffle"]) as a:
        got = np.asarray(a)
        rel = np.max(np.abs(got - y) / np.maximum(np.abs(y), 1e-30))
        check(a.cparams["filters"][:2] == [4, 1] and a.cparams["filters_meta"][0] == 10 and rel < 2.0 ** -9,
              "trunc_prec 10 bits: max relative error %.3g" % rel)
    # default shapes come from the C library's rule, and fit the array
    z = np.zeros((3000, 2000), dtype="<f8")
    with ba.save(z, os.path.join(tmp, "default_shapes.b2nd")) as a:
        cb = int(np.prod(a.chunks)) * 8
        bb = int(np.prod(a.blocks)) * 8
        check(a.chunks != a.shape and 0 < cb <= 8 * 2**20 and 0 < bb <= cb,
              "default chunks %s (%d bytes), blocks %s (%d bytes)" % (a.chunks, cb, a.blocks, bb))
    # a sparse frame (directory) holding a b2nd, with user metalayers and vlmetalayers
    sp = os.path.join(tmp, "sparse.b2nd")
    w = rng.standard_normal((20, 30)).astype("<f4")
    a = ba.save(w, sp, chunks=(8, 12), contiguous=False, meta={"units": b"\x92\xa1m\xa1s"},
                vlmeta={"note": b"hello", "text": "caf\u00e9", "attrs": b"\x82\xa1a\x01\xa1b\x92\xc3\xcb" + b"@\x04" + bytes(6)})
    a.close()
    check(os.path.isdir(sp) and os.path.isfile(os.path.join(sp, "chunks.b2frame")), "sparse b2nd is a directory")
    with ba.open(sp) as a:
        check(same(np.asarray(a), w) and a[3:17:2, -5] .tolist() == w[3:17:2, -5].tolist(),
              "sparse b2nd reads back")
        check(list(a.meta) == ["b2nd", "units"] and a.meta["units"] == b"\x92\xa1m\xa1s",
              "user metalayer: %r" % dict(a.meta))
        check(a.vlmeta["text"] == "caf\u00e9".encode() and a.vlmeta["note"] == b"hello", "vlmeta: %r" % dict(a.vlmeta))
        check(a.vlmeta.unpack("attrs") == {"a": 1, "b": [True, 2.5]}, "vlmeta msgpack: %r" % a.vlmeta.unpack("attrs"))
        try:
            a.vlmeta.unpack("note")
            check(False, "vlmeta.unpack of b'hello' (no msgpack value) raises ValueError")
        except ValueError:
            pass
        check("note" in a.vlmeta and "nope" not in a.vlmeta and a.vlmeta.get("nope") is None and len(a.vlmeta) == 3,
              "vlmeta mapping protocol")
    # saving over an existing file replaces it
    with ba.save(np.arange(4), os.path.join(tmp, "f8_2d_default.b2nd")) as a:
        check(a.shape == (4,), "save replaces an existing file")
    return n


def msgpack():
    """msgpack_unpack (python3-msgpack underneath) on hand-made encodings."""
    import struct
    cases = [(b"\x81\xa1a\x01", {"a": 1}), (b"\x93\x01\xa3abc\xc3", [1, "abc", True]),
             (b"\xcb" + struct.pack(">d", 2.5), 2.5), (b"\xca" + struct.pack(">f", 0.5), 0.5),
             (b"\xd0\xff", -1), (b"\xff", -1), (b"\xcd\x01\x00", 256), (b"\xd3" + (-2**40).to_bytes(8, "big", signed=True), -2**40),
             (b"\xcf" + (2**63).to_bytes(8, "big"), 2**63), (b"\xc4\x03xyz", b"xyz"), (b"\xc0", None),
             (b"\xc2", False), (b"\xd9\x05hello", "hello"), (b"\xde\x00\x01\xa1k\x92\x01\x02", {"k": [1, 2]}),
             (b"\xd4\x2a\x07", (42, b"\x07")), (b"\xc7\x02\x05ab", (5, b"ab")),
             (b"\xdc\x00\x02\x90\x80", [[], {}])]
    for raw, want in cases:
        try:
            got = ba.msgpack_unpack(raw)
        except Exception as e:
            got = e
        check(got == want and type(got) is type(want), "msgpack %s -> %r (%r)" % (raw.hex(), want, got))
    for raw in (b"", b"\x92\x01", b"\x01\x02", b"\xc1", b"\xa2\xff\xfe", b"\xdb\xff\xff\xff\xff", b"\x91" * 1000):
        try:
            ba.msgpack_unpack(raw)
            check(False, "msgpack %s... raises ValueError" % raw[:8].hex())
        except ValueError:
            check(True, "")
        except Exception as e:
            check(False, "msgpack %s...: %s is not a ValueError" % (raw[:8].hex(), type(e).__name__))


def main():
    d, m = pc.manifest()
    tmp = b2test.scratch_dir("b2pyarray_")
    nb = b2nd_vectors(d, m)
    nf = frame_vectors(d, m)
    partial_decoding(d)
    nr = roundtrips(tmp)
    msgpack()
    print("b2nd vectors %d, frame vectors %d, save round trips %d; %d checks, %d failed"
          % (nb, nf, nr, check.count, len(check.failures)))
    return 1 if check.failures or nb == 0 or nf == 0 else 0


sys.exit(main())

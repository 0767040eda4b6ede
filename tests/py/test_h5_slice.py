# SPDX-License-Identifier: BSD-3-Clause
"""Fast HDF5 slicing (b2_h5_read_box and python/b2blosc/h5.py) against h5py.

Every read is compared with h5py's ordinary read of the same key:
  * >= 500 random boxes over datasets written by our plugin: ranks 1-4, edge and
    partial chunks, int8/uint16/int32/float32/float64/big-endian float64, codecs
    blosclz/lz4/zstd/zlib with shuffle/bitshuffle, blocks smaller than chunks;
    these must take the direct path;
  * chunks HDF5 holds unallocated (fill value) and chunks stored raw (filter
    mask set, written with write_direct_chunk): mixed path, reason given;
  * every dataset-level fallback, reported with its reason: contiguous and
    compact layouts, other filters (gzip, HDF5 shuffle, fletcher32), type
    conversion (C API with another memory type), the core file driver;
  * every dataset of the reference-written files in test_data/hdf5/;
  * a large chunk: a 10x10 box reads far fewer bytes than the stored chunk;
  * enable()/disable() (h5py's Dataset.__getitem__), b2blosc.Blosc2's values, keys
    with ints, negative indices, Ellipsis, steps (h5py path)."""
import ctypes
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
b2test.use_source_package()
import b2blosc  # noqa: E402
import b2blosc.h5 as b2h5  # noqa: E402

check = b2test.Checks()
rng = np.random.default_rng(20261124)
stats = {"boxes": 0, "direct": 0, "mixed": 0, "h5dread": 0, "h5py": 0}


def random_key(shape):
    key = []
    for n in shape:
        a = int(rng.integers(0, n))
        b = int(rng.integers(a + 1, n + 1))
        if rng.random() < 0.1:
            key.append(a - n if rng.random() < 0.5 else a)  # an int (maybe negative)
        else:
            key.append(slice(a, b))
    return tuple(key)


def compare(ds, key, want_path=None, label=""):
    got, rep = b2h5.read_slice(ds, key, report=True)
    ref = b2h5._h5py_getitem(ds, key)
    ok = np.array_equal(np.asarray(got), np.asarray(ref)) and np.shape(got) == np.shape(ref)
    stats["boxes"] += 1
    stats[rep["path"]] = stats.get(rep["path"], 0) + 1
    if want_path and rep["path"] not in want_path:
        ok = False
    if not ok:
        check(False, "%s %s key %s: path %s (%s), equal %s" % (
            label or ds.name, ds.shape, key, rep["path"], rep.get("reason"),
            np.array_equal(np.asarray(got), np.asarray(ref))))
    return rep


def ours(tmp):
    """Datasets written by our plugin, every chunk allocated: direct path."""
    path = os.path.join(tmp, "ours.h5")
    specs = [
        ((50003,), (4096,), "i1", "lz4", "shuffle"),
        ((20000,), (6000,), "f8", "zstd", "bitshuffle"),
        ((97, 131), (32, 40), "f4", "blosclz", "shuffle"),
        ((300, 200), (100, 100), "u2", "zlib", "shuffle"),
        ((40, 50, 33), (16, 16, 16), "i4", "lz4", "bitshuffle"),
        ((9, 17, 13, 11), (4, 8, 5, 6), "f8", "zstd", "shuffle"),
        ((120, 90), (120, 90), ">f8", "lz4", "shuffle"),
        ((1000, 300), (500, 300), "f8", "lz4", "shuffle"),
    ]
    with h5py.File(path, "w") as f:
        for i, (shape, chunks, dt, codec, filt) in enumerate(specs):
            n = int(np.prod(shape))
            a = np.sin(np.arange(n) / 37.0) * 1000 + rng.normal(size=n)
            if dt == "i1":  # small integers must compress, or HDF5 stores chunks raw
                a = (np.arange(n) // 20) % 100
            a = a.astype(dt).reshape(shape)
            f.create_dataset("d%d" % i, data=a, chunks=chunks,
                             **b2blosc.Blosc2(cname=codec, clevel=5, filters=filt))
    with h5py.File(path, "r") as f:
        for i in range(len(specs)):
            ds = f["d%d" % i]
            for _ in range(60):
                compare(ds, random_key(ds.shape), want_path=("direct",))
            compare(ds, (Ellipsis,), want_path=("direct",))
            compare(ds, tuple(slice(None) for _ in ds.shape), want_path=("direct",))
        # a 10x10 box of a 500x300 float64 chunk reads a small part of it
        ds = f["d7"]
        _, rep = b2h5.read_slice(ds, (slice(200, 210), slice(100, 110)), report=True)
        stored = ds.id.get_chunk_info_by_coord((0, 0)).size
        check(rep["path"] == "direct" and 0 < rep["bytes_read"] < stored // 2,
              "10x10 box of a %d-byte chunk reads %d bytes (%d blocks)"
              % (stored, rep["bytes_read"], rep["blocks_decoded"]))
        # keys the fast path does not take go through h5py
        got, rep = b2h5.read_slice(ds, (slice(0, 100, 3), 5), report=True)
        check(rep["path"] == "h5py" and np.array_equal(got, ds[0:100:3, 5]),
              "a stepped key is read by h5py")
        check(b2h5.read_slice(ds, (-1, -1)) == ds[-1, -1], "negative scalar index")
        try:
            b2h5.read_slice(ds, (1000, 0))
            check(False, "an out-of-range index raises IndexError")
        except IndexError:
            check(True, "an out-of-range index raises IndexError")


def mixed(tmp):
    """Unallocated chunks (fill value) and chunks stored raw: those chunks take H5Dread."""
    path = os.path.join(tmp, "mixed.h5")
    a = np.arange(100 * 120, dtype="i4").reshape(100, 120)
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("holes", shape=(100, 120), dtype="i4", chunks=(25, 30), fillvalue=-7,
                              **b2blosc.Blosc2(cname="lz4"))
        ds[0:50, 0:60] = a[0:50, 0:60]
        ds = f.create_dataset("raw", data=a, chunks=(25, 30), **b2blosc.Blosc2(cname="zstd"))
        raw = np.ascontiguousarray(a[25:50, 30:60] * 3)
        ds.id.write_direct_chunk((25, 30), raw.tobytes(), filter_mask=1)
    with h5py.File(path, "r") as f:
        reps = [compare(f["holes"], random_key((100, 120)), want_path=("direct", "mixed", "h5dread"))
                for _ in range(40)]
        rep = compare(f["holes"], (slice(40, 60), slice(50, 70)), want_path=("mixed",))
        check("not allocated" in rep["reason"], "unallocated chunk reported: %s" % rep["reason"])
        rep = compare(f["holes"], (slice(80, 90), slice(100, 110)), want_path=("h5dread",))
        check(rep["chunks_h5dread"] == 1, "a box in one unallocated chunk takes H5Dread")
        reps += [compare(f["raw"], random_key((100, 120)), want_path=("direct", "mixed", "h5dread"))
                 for _ in range(40)]
        rep = compare(f["raw"], (slice(20, 30), slice(25, 35)), want_path=("mixed",))
        check("filter mask" in rep["reason"], "raw chunk reported: %s" % rep["reason"])
        check(any(r["path"] == "direct" for r in reps), "boxes missing the odd chunks stay direct")


def fallbacks(tmp):
    """Datasets the direct path must not read itself: H5Dread, with the reason."""
    path = os.path.join(tmp, "fallback.h5")
    a = np.arange(60 * 70, dtype="f4").reshape(60, 70)
    kw = b2blosc.Blosc2(cname="lz4")
    plain = {"compression": hc.FILTER_ID, "compression_opts": kw["compression_opts"]}
    with h5py.File(path, "w") as f:
        f.create_dataset("contiguous", data=a)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        sid = h5py.h5s.create_simple((10, 10))
        h5py.h5d.create(f.id, b"compact2", h5py.h5t.NATIVE_FLOAT, sid, dcpl=dcpl).write(
            h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(a[:10, :10]))
        f.create_dataset("gzip_then_blosc2", data=a, chunks=(20, 20), compression="gzip")
        f.create_dataset("shuffle_blosc2", data=a, chunks=(20, 20), shuffle=True, **plain)
        f.create_dataset("fletcher", data=a, chunks=(20, 20), fletcher32=True, **plain)
        f.create_dataset("plain", data=a, chunks=(20, 20), **plain)
    want = {"contiguous": "not chunked", "compact2": "not chunked",
            "gzip_then_blosc2": "not Blosc2 alone", "shuffle_blosc2": "not Blosc2 alone",
            "fletcher": "not Blosc2 alone"}
    with h5py.File(path, "r") as f:
        for name, why in want.items():
            ds = f[name]
            for _ in range(8):
                compare(ds, random_key(ds.shape), want_path=("h5dread",))
            rep = compare(ds, (slice(1, 9), slice(2, 8)), want_path=("h5dread",))
            check(why in rep["reason"], "%s falls back: %s" % (name, rep["reason"]))
        # type conversion: the C API with a memory type other than the file's
        ds = f["plain"]
        out = np.empty((10, 12), dtype="f8")
        rep = b2h5.ReadReport()
        st = (ctypes.c_uint64 * 2)(5, 7)
        ct = (ctypes.c_uint64 * 2)(10, 12)
        rc = b2h5._library().b2_h5_read_box(ds.id.id, h5py.h5t.NATIVE_DOUBLE.id, st, ct,
                                             out.ctypes.data, out.nbytes, ctypes.byref(rep))
        check(rc == 0 and rep.path == "h5dread" and "conversion" in rep.reason and
              np.array_equal(out, a[5:15, 7:19].astype("f8")),
              "float32 read as float64 takes H5Dread: %s" % rep.reason)
        check(compare(ds, (slice(5, 15), slice(7, 19)))["path"] == "direct", "same box direct as f4")
        # bad calls: a box past the extent, a buffer too small
        rc = b2h5._library().b2_h5_read_box(ds.id.id, 0, (ctypes.c_uint64 * 2)(55, 0), ct,
                                             out.ctypes.data, out.nbytes, None)
        check(rc < 0, "a box past the extent is refused (%d)" % rc)
        rc = b2h5._library().b2_h5_read_box(ds.id.id, 0, st, ct, out.ctypes.data, 8, None)
        check(rc < 0, "a buffer too small is refused (%d)" % rc)
    # the core driver keeps the file in memory: nothing to open in place
    with h5py.File(os.path.join(tmp, "core.h5"), "w", driver="core", backing_store=False) as f:
        ds = f.create_dataset("x", data=a, chunks=(20, 20), **plain)
        rep = compare(ds, (slice(3, 33), slice(4, 44)), want_path=("h5dread",))
        check("driver" in rep["reason"], "core driver falls back: %s" % rep["reason"])
    # a file still open for writing: flushed first, then read directly
    with h5py.File(os.path.join(tmp, "open.h5"), "w") as f:
        ds = f.create_dataset("x", data=a, chunks=(20, 20), **plain)
        ds[0:20, 0:20] = -a[0:20, 0:20]
        compare(ds, (slice(0, 30), slice(0, 30)), want_path=("direct",))


def reference_files():
    """Every dataset of the reference-written HDF5 files."""
    d = os.path.join(b2test.REPO, "test_data", "hdf5")
    n = 0
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".h5"):
            continue
        with h5py.File(os.path.join(d, fn), "r") as f:
            names = []
            f.visititems(lambda k, o: names.append(k) if isinstance(o, h5py.Dataset) else None)
            for k in names:
                ds = f[k]
                fast = ds.dtype.fields is None and ds.dtype.subdtype is None
                for _ in range(6):
                    rep = compare(ds, random_key(ds.shape), label="%s:%s" % (fn, k))
                    if fast and rep["path"] == "h5py":
                        check(False, "%s:%s should not need h5py" % (fn, k))
                n += 1
    check(n >= 30, "%d reference-written datasets read" % n)


def switch(tmp):
    path = os.path.join(tmp, "switch.h5")
    a = np.arange(50 * 40, dtype="i2").reshape(50, 40)
    with h5py.File(path, "w") as f:
        f.create_dataset("b", data=a, chunks=(10, 10), **b2blosc.Blosc2("zstd", 3, "bitshuffle"))
        f.create_dataset("g", data=a, chunks=(10, 10), compression="gzip")
    with h5py.File(path, "r") as f:
        cd = f["b"].id.get_create_plist().get_filter(0)[2]
        check(tuple(cd[4:7]) == (3, 2, 5), "Blosc2 gives clevel 3, bitshuffle, zstd: %s" % (cd,))
        b2h5.enable()
        try:
            check(b2h5.enabled(), "enable() patches h5py")
            check(np.array_equal(f["b"][3:17, 5:33], a[3:17, 5:33]), "patched read of a Blosc2 dataset")
            check(np.array_equal(f["g"][3:17, 5:33], a[3:17, 5:33]), "patched read of a gzip dataset")
            check(np.array_equal(f["b"][::2, 1], a[::2, 1]), "patched stepped read")
        finally:
            b2h5.disable()
        check(not b2h5.enabled() and h5py.Dataset.__getitem__ is not b2h5._patched_getitem,
              "disable() restores h5py")


def live(tmp):
    """A dataset open for writing: the reader b2blosc.h5 keeps for it (checks made
    once) sees later writes and extent changes, as h5py does."""
    path = os.path.join(tmp, "live.h5")
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(40, 30), maxshape=(None, 30), dtype="f4", chunks=(16, 16),
                              **b2blosc.Blosc2("lz4", 5, "shuffle"))
        ds[...] = np.arange(40 * 30, dtype="f4").reshape(40, 30)
        compare(ds, (slice(5, 35), slice(3, 29)), want_path=("direct",), label="live before writes")
        for step in range(6):
            ds[step * 6:step * 6 + 9, :] = (np.arange(270) % 7 + step).astype("f4").reshape(9, 30)
            compare(ds, (slice(0, 40), slice(0, 30)), want_path=("direct",), label="live write %d" % step)
        ds.resize((70, 30))
        ds[50:70, :] = 5.5
        rep = compare(ds, (slice(30, 70), slice(2, 20)), want_path=("direct", "mixed"), label="live resized")
        check(rep["chunks_direct"] > 0, "a resized dataset is still read directly: %s" % rep)
        check(len(b2h5._readers) >= 1, "read_slice keeps a reader per open dataset")
    import gc
    gc.collect()
    check(all(k != id(ds.id) for k in b2h5._readers) or not ds.id.valid,
          "a closed dataset's reader is not used")


def cli(tmp):
    """`b2 slice FILE.h5:/DATASET SPEC` gives h5py's bytes, and says how it read them."""
    if not os.environ.get("B2_BIN") and not any(
            os.access(os.path.join(b2test.REPO, d, "tools", "b2"), os.X_OK) for d in ("build", "build-asan")):
        return
    env = b2test.clean_env()
    env["HDF5_PLUGIN_PATH"] = ""  # b2 registers the filter itself
    path = os.path.join(tmp, "ours.h5")
    with h5py.File(path, "r") as f:
        for name, spec, key in [("d4", "3:20,5:9,:", (slice(3, 20), slice(5, 9))),
                                ("d5", "1,-5:,2:4,7", (slice(1, 2), slice(-5, None), slice(2, 4), slice(7, 8))),
                                ("d7", "495:505,145:155", (slice(495, 505), slice(145, 155)))]:
            p = subprocess.run([b2test.b2_bin(), "slice", "%s:/%s" % (path, name), spec, "--report"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            want = np.ascontiguousarray(f[name][key]).tobytes()
            check(p.returncode == 0 and p.stdout == want and b"direct" in p.stderr,
                  "b2 slice %s %s: %d bytes, exit %d, %s" % (name, spec, len(p.stdout), p.returncode,
                                                          p.stderr.decode().strip()))
    p = b2test.run_b2(["slice", path + ":/nope", "0:1"])
    check(p.returncode == 1 and b"no dataset" in p.stderr, "b2 slice of a missing dataset fails")
    p = b2test.run_b2(["slice", path + ":/d4", "0:1,0:1,0:1,0:1"])
    check(p.returncode == 2, "b2 slice with too many dimensions is a usage error")
    p = subprocess.run([b2test.b2_bin(), "slice", os.path.join(tmp, "fallback.h5") + ":/fletcher",
                        "10:20,30:40", "--report"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    with h5py.File(os.path.join(tmp, "fallback.h5"), "r") as f:
        want = np.ascontiguousarray(f["fletcher"][10:20, 30:40]).tobytes()
    check(p.returncode == 0 and p.stdout == want and b"H5Dread" in p.stderr,
          "b2 slice of a fletcher32 dataset goes through HDF5: %s" % p.stderr.decode().strip())
    # b2nd chunks hold whole blocks: (100, 800) float64 chunks get (100, 512)
    # blocks and are padded to 100 x 1024 items; b2 info says so under the table
    pad = os.path.join(tmp, "padded.h5")
    with h5py.File(pad, "w") as f:
        f.create_dataset("d", data=np.random.default_rng(5).random((200, 800)), chunks=(100, 800),
                         **b2blosc.Blosc2("blosclz", 5, "shuffle"))
    out = b2test.run_b2(["info", pad]).stdout.decode()
    # the chunk table with its padding note is the C program's (built with HDF5);
    # the wheel's b2 serves `info FILE.h5` from Python with a summary per dataset
    check((b2test.INSTALLED and "(200, 800)" in out and "2 chunks stored" in out) or " 819200 " in out and "note: blocks of (100,512) pad each chunk to (100,1024), so nbytes "
          "is 819200 for a 640000-byte chunk" in out, "b2 info explains padded b2nd chunks:\n" + out)


def main():
    tmp = b2test.scratch_dir("b2h5slice_")
    ours(tmp)
    mixed(tmp)
    fallbacks(tmp)
    reference_files()
    switch(tmp)
    live(tmp)
    cli(tmp)
    summary = "%d boxes compared with h5py (%s)" % (stats["boxes"], ", ".join(
        "%s %d" % kv for kv in sorted(stats.items()) if kv[0] != "boxes"))
    print(summary)
    check(stats["boxes"] >= 500, summary)
    print("%d checks, %d failed" % (check.count, len(check.failures)))
    return 1 if check.failures else 0


sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""`b2 convert`: HDF5 dataset <-> b2nd array.

  * Datasets of filter 32026 (written by our plugin, ranks 1-3, edge chunks,
    several dtypes and block shapes) convert to b2nd without recompressing:
    the output says every chunk moved, `b2 cat` and `b2 slice` give the
    dataset's bytes, and each chunk of the array is byte for byte the b2nd
    chunk inside the HDF5 chunk's frame. Converted back to HDF5 they read the
    same through h5py, again without recompressing, and every stored chunk is
    byte-identical to what the filter stored.
  * The reference plugin's datasets (../shared/bench/ref/libH5Zblosc2.so)
    convert the same way.
  * The other chunks are decoded and compressed again, and the data still
    match: gzip, fletcher32 after Blosc2, unallocated chunks (fill value),
    another chunk shape (--chunks), compression options, --recompress.
  * Errors: a missing dataset or file, an input that is not a b2nd array, an
    existing destination (unless --force), two HDF5 sides: a message and exit
    status 1 or 2, nothing left behind."""
import ctypes
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import libb2_ctypes  # noqa: E402

h5py, np, PDIR = hc.setup()
c = b2test.Counter("cli convert")
run = b2test.run_b2
tmp = b2test.scratch_dir("b2convert-")
lib = libb2_ctypes.load()
vp = ctypes.c_void_p
lib.dll.b2_nd_open.restype, lib.dll.b2_nd_open.argtypes = ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(vp)]
lib.dll.b2_schunk_get_chunk.restype = ctypes.c_int
lib.dll.b2_schunk_get_chunk.argtypes = [vp, ctypes.c_int64, ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
                                        ctypes.POINTER(ctypes.c_int32)]
lib.dll.b2_schunk_nchunks.restype, lib.dll.b2_schunk_nchunks.argtypes = ctypes.c_int64, [vp]


def b2nd_chunks(path):
    """Stored bytes of every chunk of a b2nd file, in order."""
    a = vp()
    lib.check(lib.dll.b2_nd_open(path.encode(), 0, ctypes.byref(a)), "b2_nd_open")
    s = lib.dll.b2_nd_schunk(a)
    out = []
    for i in range(lib.dll.b2_schunk_nchunks(s)):
        p, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_int32()
        lib.check(lib.dll.b2_schunk_get_chunk(s, i, ctypes.byref(p), ctypes.byref(n)), "get_chunk")
        out.append(ctypes.string_at(p, n.value))
        lib.free(p)
    lib.dll.b2_nd_free(a)
    return out


def inner_chunk(frame):
    """The one chunk stored in a one-chunk frame (None for an index-only special chunk)."""
    hl = int.from_bytes(frame[11:15], "big")
    if len(frame) < hl + 32 or frame[hl] not in (2, 3, 4, 5):  # chunk format versions
        return None
    cb = int.from_bytes(frame[hl + 12:hl + 16], "little")
    return frame[hl:hl + cb]


def chunk_offsets(shape, chunks):
    """Chunk start coordinates in C order of the chunk grid."""
    grid = [(s + k - 1) // k for s, k in zip(shape, chunks)]
    for idx in np.ndindex(*grid):
        yield tuple(i * k for i, k in zip(idx, chunks))


def data_for(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":  # exact values, compressible, not all alike
        a = (np.arange(n) % 1000) / 4.0 + rng.integers(0, 2, n)
    elif dt.itemsize == 1:  # runs, so that even 256-byte blocks compress
        a = (np.arange(n) // 40) % 100
    else:
        a = (np.arange(n) // 3) % (1 << min(8 * dt.itemsize - 1, 30))
        a[rng.integers(0, n, n // 17)] += 1
    return a.astype(dt).reshape(shape)


def convert(*args):
    r = run(["convert"] + list(args))
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def moved_counts(out):
    """(moved, recompressed) from convert's line."""
    import re
    m = re.search(r"(\d+) chunks? moved without recompressing, (\d+) recompressed", out)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def check_b2nd_matches(path, arr, what):
    r = run(["cat", path])
    c.ok(r.returncode == 0 and r.stdout == np.ascontiguousarray(arr).tobytes(),
         "%s: b2 cat gives the dataset's bytes" % what)
    box = ",".join("%d:%d" % (s // 3, s - s // 4) for s in arr.shape)
    sl = tuple(slice(s // 3, s - s // 4) for s in arr.shape)
    r = run(["slice", path, box])
    c.ok(r.returncode == 0 and r.stdout == np.ascontiguousarray(arr[sl]).tobytes(),
         "%s: b2 slice %s matches" % (what, box))


def raw_roundtrip(h5path, name, arr, chunks, what):
    """H5 -> b2nd -> H5 without recompressing; bytes compared at every step."""
    nd = os.path.join(tmp, what.replace(" ", "_") + ".b2nd")
    rc, out, err = convert("%s:/%s" % (h5path, name), nd)
    nchunks = len(list(chunk_offsets(arr.shape, chunks)))
    c.ok(rc == 0, "%s: h5 -> b2nd exits 0 (%s)" % (what, err.strip()))
    c.ok(moved_counts(out) == (nchunks, 0), "%s: all %d chunks moved raw: %s" % (what, nchunks, out.strip()))
    check_b2nd_matches(nd, arr, what)
    with h5py.File(h5path, "r") as f:
        ds = f[name]
        stored = [ds.id.read_direct_chunk(off)[1] for off in chunk_offsets(arr.shape, chunks)]
    bch = b2nd_chunks(nd)
    same = sum(1 for b, s in zip(bch, stored) if inner_chunk(s) == b)
    inner = sum(1 for s in stored if inner_chunk(s) is not None)
    c.ok(len(bch) == nchunks and same == inner and inner > 0,
         "%s: b2nd chunks are the HDF5 frames' inner chunks (%d of %d)" % (what, same, inner))
    back = os.path.join(tmp, what.replace(" ", "_") + "_back.h5")
    rc, out, err = convert(nd, back + ":/grp/" + name)
    c.ok(rc == 0 and moved_counts(out) == (nchunks, 0), "%s: b2nd -> h5 moves all chunks: %s %s" % (
        what, out.strip(), err.strip()))
    with h5py.File(back, "r") as f:
        ds = f["grp/" + name]
        c.ok(ds.dtype == arr.dtype and ds.shape == arr.shape and ds.chunks == tuple(chunks),
             "%s: dtype/shape/chunks kept (%s %s %s)" % (what, ds.dtype, ds.shape, ds.chunks))
        c.ok(np.array_equal(ds[()], arr), "%s: h5py reads the converted-back dataset identical" % what)
        back_stored = [ds.id.read_direct_chunk(off) for off in chunk_offsets(arr.shape, chunks)]
        c.ok(all(m == 0 for m, _ in back_stored), "%s: filter mask 0 on every chunk" % what)
        nsame = sum(1 for (m, b), s in zip(back_stored, stored) if b == s)
        c.ok(nsame == nchunks, "%s: %d of %d stored chunks byte-identical to the filter's" % (
            what, nsame, nchunks))


# ---- raw path: datasets written by our filter ----
CASES = [
    # name, shape, chunks, dtype, compression_opts
    ("r1 i8 edge", (10001,), (1000,), "<i8", (0, 0, 0, 0, 5, 1, 1)),
    ("r1 f4 blocks", (5000,), (1024,), "<f4", (0, 1024, 0, 0, 5, 1, 5)),
    ("r2 f4 edge", (250, 403), (50, 100), "<f4", (0, 0, 0, 0, 5, 1, 5)),
    ("r2 i1 padded blocks", (100, 90), (32, 33), "|i1", (0, 256, 0, 0, 9, 1, 1)),
    ("r2 f8 big-endian", (64, 70), (16, 32), ">f8", (0, 0, 0, 0, 3, 2, 0)),
    ("r3 u2 edge", (37, 53, 11), (10, 20, 6), "<u2", (0, 0, 0, 0, 5, 2, 0)),
    ("r3 i4 lz4hc", (20, 30, 40), (8, 16, 16), "<i4", (0, 2048, 0, 0, 6, 1, 2)),
    ("r2 chunk beyond shape", (10, 7), (64, 64), "<f8", (0, 0, 0, 0, 5, 1, 0)),
    ("r4 i2", (6, 8, 10, 12), (3, 4, 10, 12), "<i2", (0, 0, 0, 0, 5, 1, 1)),
]
ours = os.path.join(tmp, "ours.h5")
with h5py.File(ours, "w") as f:
    for k, (name, shape, chunks, dt, opts) in enumerate(CASES):
        beyond = any(k > n for k, n in zip(chunks, shape))  # HDF5 then wants extendible dims
        f.create_dataset(name.replace(" ", "_"), data=data_for(shape, dt, k), chunks=chunks,
                         maxshape=(None,) * len(shape) if beyond else None,
                         compression=hc.FILTER_ID, compression_opts=opts)
for k, (name, shape, chunks, dt, opts) in enumerate(CASES):
    raw_roundtrip(ours, name.replace(" ", "_"), data_for(shape, dt, k), chunks, name)

# strings (|S) and h5py's complex compounds keep their type; other fixed-size
# types (here a compound of two int16) travel as opaque |V items, byte for byte
other = os.path.join(tmp, "other.h5")
strs = np.array([b"ab", b"cde", b"", b"xyz"] * 600, dtype="S3").reshape(60, 40)
cpx = (np.arange(60 * 40) % 97 + 1j).astype("<c8").reshape(60, 40)
with h5py.File(other, "w") as f:
    f.create_dataset("strs", data=strs, chunks=(30, 40), compression=hc.FILTER_ID)
    f.create_dataset("cpx", data=cpx, chunks=(30, 40), compression=hc.FILTER_ID)
    pairs = np.zeros((60, 40), dtype=[("a", "<i2"), ("b", "<i2")])
    pairs["a"] = np.arange(2400).reshape(60, 40) % 50
    f.create_dataset("pairs", data=pairs, chunks=(30, 40), compression=hc.FILTER_ID)
raw_roundtrip(other, "strs", strs, (30, 40), "r2 S3 strings")
raw_roundtrip(other, "cpx", cpx, (30, 40), "r2 complex64")
info = run(["info", "--json", os.path.join(tmp, "r2_complex64.b2nd")]).stdout.decode()
c.ok('"<c8"' in info, "complex64 is dtype <c8 in the b2nd array")
nd = os.path.join(tmp, "pairs.b2nd")
rc, out, err = convert(other + ":/pairs", nd)
c.ok(rc == 0 and moved_counts(out) == (2, 0), "compound moves raw: %s %s" % (out.strip(), err.strip()))
r = run(["cat", nd])
c.ok(r.stdout == pairs.tobytes(), "compound: b2 cat gives its bytes")
rc, out, err = convert(nd, other + ":/pairs_back")
with h5py.File(other, "r") as f:
    back = f["pairs_back"][()]
    c.ok(rc == 0 and back.dtype.itemsize == 4 and back.tobytes() == pairs.tobytes(),
         "compound back as 4-byte opaque items, same bytes (%s)" % back.dtype)

# ---- datasets written by the reference plugin ----
REF = os.environ.get("B2_REF_PLUGIN_DIR") or os.path.join(b2test.REPO, "..", "shared", "bench", "ref")
if os.path.isfile(os.path.join(REF, "libH5Zblosc2.so")):
    refh5 = os.path.join(tmp, "ref.h5")
    code = ("import h5py, numpy as np\n"
            "f = h5py.File(%r, 'w')\n"
            "a = (np.sin(np.arange(250*403)/100.0)*1000).astype('<f4').reshape(250, 403)\n"
            "f.create_dataset('f2', data=a, chunks=(50, 100), compression=32026, compression_opts=(0,0,0,0,5,1,5))\n"
            "b = (np.arange(30*41*17) %% 1000).astype('<i2').reshape(30, 41, 17)\n"
            "f.create_dataset('i3', data=b, chunks=(8, 16, 17), compression=32026, compression_opts=(0,0,0,0,5,1,1))\n"
            "f.close()\n" % refh5)
    env = b2test.clean_env(HDF5_PLUGIN_PATH=os.path.abspath(REF))
    r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if c.ok(r.returncode == 0, "reference plugin writes its datasets: %s" % r.stdout.decode()[-300:]):
        with h5py.File(refh5, "r") as f:
            a, b = f["f2"][()], f["i3"][()]
        raw_roundtrip(refh5, "f2", a, (50, 100), "reference r2 f4")
        raw_roundtrip(refh5, "i3", b, (8, 16, 17), "reference r3 i2")
        # the reference plugin reads what b2 convert wrote
        back = os.path.join(tmp, "reference_r2_f4_back.h5")
        code = ("import h5py, numpy as np\n"
                "f = h5py.File(%r, 'r'); g = h5py.File(%r, 'r')\n"
                "assert np.array_equal(f['grp/f2'][()], g['f2'][()])\n" % (back, refh5))
        r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        c.ok(r.returncode == 0, "the reference plugin reads the converted dataset: %s" % r.stdout.decode()[-300:])
else:
    print("note: reference plugin not found in %s; its datasets not converted" % REF)

# ---- recompressing ----
mixed = os.path.join(tmp, "mixed.h5")
g = data_for((130, 77), "<f4", 99)
with h5py.File(mixed, "w") as f:
    f.create_dataset("gzip", data=g, chunks=(32, 32), compression="gzip")
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((32, 32))
    dcpl.set_filter(hc.FILTER_ID, 1, (0, 0, 0, 0, 5, 1, 1))
    dcpl.set_fletcher32()
    dsid = h5py.h5d.create(f.id, b"fletcher", h5py.h5t.IEEE_F32LE, h5py.h5s.create_simple(g.shape), dcpl=dcpl)
    h5py.Dataset(dsid)[...] = g
    part = f.create_dataset("part", shape=(100, 100), dtype="<i4", chunks=(25, 25), compression=hc.FILTER_ID,
                            compression_opts=(0, 0, 0, 0, 5, 1, 0), fillvalue=7)
    part[0:50, 0:25] = np.arange(50 * 25, dtype="<i4").reshape(50, 25)
    f.create_dataset("contig", data=g)
    # incompressible chunks stored raw (filter mask 1), as libb2 before issue 37
    # declined them: our filter now stores frames, so they are written directly
    noisy = np.random.default_rng(5).integers(-128, 127, (100, 90)).astype("|i1")
    noisy[:32, :] = 3
    dn = f.create_dataset("noisy", data=noisy, chunks=(32, 33), compression=hc.FILTER_ID,
                          compression_opts=(0, 256, 0, 0, 9, 1, 1))
    for r0 in range(32, 100, 32):
        for c0 in range(0, 90, 33):
            full = np.zeros((32, 33), "|i1")  # an edge chunk is stored whole
            part = noisy[r0:r0 + 32, c0:c0 + 33]
            full[:part.shape[0], :part.shape[1]] = part
            dn.id.write_direct_chunk((r0, c0), full.tobytes(), filter_mask=1)
with h5py.File(mixed, "r") as f:
    parts = f["part"][()]

for name, arr, expect in [("gzip", g, "does not use the Blosc2 filter"),
                          ("fletcher", g, "filters other than Blosc2"),
                          ("contig", g, "not chunked")]:
    nd = os.path.join(tmp, "mixed_%s.b2nd" % name)
    rc, out, err = convert(mixed + ":/" + name, nd)
    mv, rec = moved_counts(out)
    c.ok(rc == 0 and mv == 0 and rec and expect in out, "%s: recompressed (%s %s)" % (name, out.strip(), err.strip()))
    check_b2nd_matches(nd, arr, name)

nd = os.path.join(tmp, "noisy.b2nd")
rc, out, err = convert(mixed + ":/noisy", nd)
mv, rec = moved_counts(out)
c.ok(rc == 0 and mv and rec and mv + rec == 12 and "filter mask" in out,
     "chunks stored raw (filter mask) recompressed, the others moved: %s %s" % (out.strip(), err.strip()))
check_b2nd_matches(nd, noisy, "filter-mask chunks")

nd = os.path.join(tmp, "part.b2nd")
rc, out, err = convert(mixed + ":/part", nd)
c.ok(rc == 0 and moved_counts(out) == (2, 14) and "unallocated" in out,
     "partly written dataset: 2 chunks moved, 14 unallocated ones recompressed: %s %s" % (out.strip(), err.strip()))
check_b2nd_matches(nd, parts, "partly written (fill value 7)")

# compression options, --recompress, other chunk shapes: both directions
src = os.path.join(tmp, "r2_f4_edge.b2nd")
arr = data_for((250, 403), "<f4", 2)
for args, expect, what in [
        (["--recompress"], "--recompress", "--recompress"),
        (["--codec", "lz4", "--clevel", "1", "--filter", "bitshuffle"], "compression options", "codec options"),
        (["--chunks", "64,64"], "another chunk shape", "--chunks 64,64")]:
    out_h5 = os.path.join(tmp, "opts.h5")
    rc, out, err = convert(*(args + [src, out_h5 + ":/d"]), "--force")
    c.ok(rc == 0 and moved_counts(out)[0] == 0 and expect in out, "b2nd -> h5 %s recompresses: %s %s" % (
        what, out.strip(), err.strip()))
    with h5py.File(out_h5, "r") as f:
        ds = f["d"]
        c.ok(np.array_equal(ds[()], arr), "b2nd -> h5 %s: identical data" % what)
        if what == "codec options":
            cd = ds.id.get_create_plist().get_filter(0)[2]
            c.ok(cd[4:7] == (1, 2, 1), "codec options reach cd_values: %s" % (cd,))
        if what == "--chunks 64,64":
            c.ok(ds.chunks == (64, 64), "--chunks sets the HDF5 chunk shape")
    nd = os.path.join(tmp, "opts.b2nd")
    rc, out, err = convert(*(args + [ours + ":/r2_f4_edge", nd, "--force"]))
    c.ok(rc == 0 and moved_counts(out)[0] == 0 and expect in out, "h5 -> b2nd %s recompresses: %s %s" % (
        what, out.strip(), err.strip()))
    check_b2nd_matches(nd, arr, "h5 -> b2nd " + what)

# an array written by b2 compress (default block shape, zero chunks) to HDF5 and back
z = np.zeros((300, 200), dtype="<u4")
z[150:, :] = np.arange(150 * 200, dtype="<u4").reshape(150, 200)
raw_in = os.path.join(tmp, "z.raw")
with open(raw_in, "wb") as fh:
    fh.write(z.tobytes())
znd = os.path.join(tmp, "z.b2nd")
r = run(["compress", "--shape", "300,200", "--dtype", "<u4", "--chunks", "64,100", "--codec", "zstd",
         raw_in, znd])
c.ok(r.returncode == 0, "b2 compress makes the zero-chunk array")
zh5 = os.path.join(tmp, "z.h5")
rc, out, err = convert(znd, zh5 + ":/z")
c.ok(rc == 0 and moved_counts(out) == (10, 0), "compressed array with zero chunks moves raw: %s %s" % (
    out.strip(), err.strip()))
with h5py.File(zh5, "r") as f:
    c.ok(np.array_equal(f["z"][()], z), "zero chunks read back as zeros")
rc, out, err = convert(zh5 + ":/z", os.path.join(tmp, "z2.b2nd"))
c.ok(rc == 0 and moved_counts(out) == (10, 0), "and back to b2nd raw: %s %s" % (out.strip(), err.strip()))
check_b2nd_matches(os.path.join(tmp, "z2.b2nd"), z, "zero chunks back")

# ---- errors ----
def err_case(args, code, words, what, absent=None):
    rc, out, err = convert(*args)
    c.ok(rc == code and all(w in err for w in words) and "Traceback" not in err and rc < 128,
         "%s: exit %d with %s (got %d: %s)" % (what, code, words, rc, err.strip()))
    if absent:
        c.ok(not os.path.exists(absent), "%s: %s not created" % (what, absent))


err_case([ours + ":/nope", os.path.join(tmp, "e1.b2nd")], 1, ["no dataset", "nope"], "missing dataset",
         os.path.join(tmp, "e1.b2nd"))
err_case([os.path.join(tmp, "missing.h5") + ":/d", os.path.join(tmp, "e2.b2nd")], 1, ["missing.h5"],
         "missing HDF5 file", os.path.join(tmp, "e2.b2nd"))
frame = os.path.join(tmp, "plain.b2frame")
run(["compress", raw_in, frame])
err_case([frame, os.path.join(tmp, "e3.h5") + ":/d"], 1, ["not a b2nd array"], "plain frame as input",
         os.path.join(tmp, "e3.h5"))
err_case([raw_in, os.path.join(tmp, "e4.h5") + ":/d"], 1, ["z.raw"], "raw file as input",
         os.path.join(tmp, "e4.h5"))
err_case([ours + ":/r2_f4_edge", src], 1, ["exists", "--force"], "existing b2nd destination")
err_case([src, zh5 + ":/z"], 1, ["exists", "--force"], "existing HDF5 dataset")
with h5py.File(zh5, "r") as f:
    c.ok(np.array_equal(f["z"][()], z), "the refused conversion left the dataset alone")
rc, out, err = convert(src, zh5 + ":/z", "--force")
with h5py.File(zh5, "r") as f:
    c.ok(rc == 0 and np.array_equal(f["z"][()], arr) and list(f.keys()) == ["z"],
         "--force replaces an HDF5 dataset: %s" % err.strip())
err_case([ours + ":/r2_f4_edge", zh5 + ":/y"], 2, ["one of them must be a .b2nd"], "two HDF5 sides")
err_case([src, os.path.join(tmp, "x.b2nd")], 2, ["FILE.h5:/DATASET"], "two b2nd sides")
err_case([src], 2, ["missing"], "one argument")
err_case([src, zh5 + ":/w", "--codec", "zstd", "--filter", "bytedelta"], 2, ["cd_values"],
         "filters cd_values cannot carry")
err_case([src, zh5 + ":/w", "--chunks", "5"], 2, ["--chunks needs 2 values"], "--chunks of another rank")
with h5py.File(zh5, "r") as f:
    c.ok("w" not in f, "failed conversions leave no dataset behind")
# progress bar: on a terminal, once the input reaches B2_PROGRESS_MIN_BYTES
def run_pty(args, env):
    master, slave = os.openpty()
    try:
        p = subprocess.Popen([b2test.b2_bin()] + args, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=slave, env=env)
    finally:
        os.close(slave)
    out = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:
            break
        if not b:
            break
        out.append(b)
    os.close(master)
    return p.wait(timeout=120), b"".join(out)


rc, err = run_pty(["convert", "--force", ours + ":/r2_f4_edge", os.path.join(tmp, "bar.b2nd")],
                  dict(os.environ, B2_PROGRESS_MIN_BYTES="1k"))
c.ok(rc == 0 and b"convert [" in err, "progress bar drawn on a terminal: %r" % err[:200])
rc, err = run_pty(["convert", "--force", os.path.join(tmp, "bar.b2nd"), os.path.join(tmp, "bar.h5") + ":/d"],
                  dict(os.environ, B2_PROGRESS_MIN_BYTES="1G"))
c.ok(rc == 0 and b"convert [" not in err, "no progress bar below the threshold")

r = run(["convert", "--help"])
c.ok(r.returncode == 0 and b"usage: b2 convert" in r.stdout, "convert --help")
c.finish()

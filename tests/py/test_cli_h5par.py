# SPDX-License-Identifier: BSD-3-Clause
"""The b2 commands on the parallel HDF5 reader and writer (b2_h5filter.h):

  * `b2 slice FILE.h5:/d SPEC --threads N` (1, 2, 4) gives h5py's bytes for
    whole datasets, large multi-chunk boxes (the parallel path) and small ones,
    ranks 1-3 with edge chunks;
  * `b2 verify --threads N` passes a good file and fails, naming the dataset
    and chunk, on a file with a wiped frame header and on one whose chunk data
    are overwritten (headers intact: only decoding finds it); `b2 convert` and
    `b2 slice` name a damaged chunk by its coordinates;
  * `b2 convert --threads N` recompressing both ways gives the same bytes for
    every thread count: stored HDF5 chunks equal to what the filter stores
    through h5py, and identical b2nd files (but for the thread counts the
    frame header records).
`b2bench --hdf5-parallel` is tested by test_bench_h5par.py."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
c = b2test.Counter("cli h5 parallel")
run = b2test.run_b2
tmp = b2test.scratch_dir("b2h5par-")
rng = np.random.default_rng(20261125)
CD = (0, 0, 0, 0, 5, 1, 1)  # lz4 5 + shuffle


def chunk_offsets(shape, chunks):
    import itertools
    return itertools.product(*[range(0, s, k) for s, k in zip(shape, chunks)])


def make(path):
    arrs = {
        "r1": ((np.arange(300001) // 5) % 1000).astype("<i4"),
        "r2": np.sin(np.arange(700 * 450, dtype="<f8") / 300.0).reshape(700, 450),
        "r3": ((np.arange(40 * 90 * 70) // 3) % 251).astype("<u2").reshape(40, 90, 70),
    }
    chunks = {"r1": (40000,), "r2": (128, 100), "r3": (16, 32, 32)}
    with h5py.File(path, "w") as f:
        for k, a in arrs.items():
            f.create_dataset(k, data=a, chunks=chunks[k], compression=hc.FILTER_ID, compression_opts=CD)
    return arrs, chunks


h5 = os.path.join(tmp, "par.h5")
arrs, chunks = make(h5)

# ---- slice --threads ----
for name, a in arrs.items():
    boxes = [":" * 1 if a.ndim == 1 else ",".join(":" for _ in a.shape)]
    for _ in range(6):
        lo = [int(rng.integers(0, s)) for s in a.shape]
        hi = [int(rng.integers(l + 1, s + 1)) for l, s in zip(lo, a.shape)]
        boxes.append(",".join("%d:%d" % (l, h) for l, h in zip(lo, hi)))
    boxes.append(",".join("%d:%d" % (s // 10, s - s // 10) for s in a.shape))  # large, many chunks
    for box in boxes:
        sl = tuple(slice(*map(int, b.split(":"))) if b != ":" else slice(None) for b in box.split(","))
        want = np.ascontiguousarray(a[sl]).tobytes()
        for t in (1, 2, 4):
            r = run(["slice", h5 + ":/" + name, box, "--threads", str(t), "--report"])
            c.ok(r.returncode == 0 and r.stdout == want,
                 "slice %s %s --threads %d equals h5py (exit %d, %r)" % (name, box, t, r.returncode,
                                                                         r.stderr[-300:]))
            c.ok(b"direct" in r.stderr or len(want) == 0, "slice %s %s: read direct: %r" % (name, box, r.stderr))
r = run(["slice", h5 + ":/r2", ":", "--threads", "0"])
c.ok(r.returncode == 2 and b"--threads" in r.stderr, "slice --threads 0 is a usage error")
r = run(["slice", "--help"])
c.ok(b"FILE.h5:/DATASET SPEC [-o OUT] [--threads N]" in r.stdout, "slice --help: --threads for HDF5")

# ---- verify --threads ----
for t in (1, 2, 4):
    r = run(["verify", "--threads", str(t), h5])
    c.ok(r.returncode == 0 and b"ok (hdf5, 3 Blosc2 datasets" in r.stdout and r.stderr == b"",
         "verify --threads %d: good file passes (%r %r)" % (t, r.stdout, r.stderr))


def damaged(name, k, how):
    """Copy of the file with chunk k of dataset name damaged: 'magic' wipes the
    frame's start, 'data' overwrites bytes in the middle of the stored chunk
    (so that it no longer decodes: there is no checksum to catch other damage)."""
    bad = os.path.join(tmp, "bad_%s_%s.h5" % (name, how))
    shutil.copy(h5, bad)
    with h5py.File(h5, "r") as f:
        info = f[name].id.get_chunk_info(k)
    with open(bad, "r+b") as fh:
        if how == "magic":
            fh.seek(info.byte_offset)
            fh.write(b"\x00" * 16)
        else:
            fh.seek(info.byte_offset + info.size // 2)
            fh.write(b"\xff" * 64)  # LZ4 tokens and lengths running past the block
    return bad


for name, k, how in [("r2", 4, "magic"), ("r1", 5, "data"), ("r3", 3, "data")]:
    bad = damaged(name, k, how)
    for t in (1, 2):
        r = run(["verify", "--threads", str(t), bad])
        lines = [l for l in r.stderr.decode(errors="replace").splitlines() if l.strip()]
        c.ok(r.returncode == 1 and len(lines) == 1 and ("/%s chunk %d " % (name, k)) in lines[0]
             and os.path.basename(bad) in lines[0],
             "verify --threads %d: %s chunk %d (%s) named: exit %d %s" % (t, name, k, how, r.returncode, lines))
        c.ok(b"BAD (1 of" in r.stdout, "verify --threads %d: summary says BAD: %r" % (t, r.stdout))

# convert names the damaged HDF5 chunk by its coordinates too, both paths
bad = damaged("r2", 4, "magic")
with h5py.File(h5, "r") as f:
    at = "(%s)" % ",".join(map(str, f["r2"].id.get_chunk_info(4).chunk_offset))
for extra in ([], ["--recompress"]):
    out = os.path.join(tmp, "bad_out.b2nd")
    r = run(["convert"] + extra + [bad + ":/r2", out])
    c.ok(r.returncode == 1 and ("HDF5 chunk 4 at %s: " % at).encode() in r.stderr and not os.path.exists(out),
         "convert %s of a damaged chunk names it at %s: %d %r" % (extra, at, r.returncode, r.stderr))
r = run(["slice", bad + ":/r2", ":", "-o", os.path.join(tmp, "bad.raw")])
c.ok(r.returncode == 1 and ("chunk at %s" % at.replace(" ", "")).encode() in r.stderr,
     "slice of a damaged chunk names it at %s: %r" % (at, r.stderr))

# ---- convert --threads: the same bytes for every thread count ----
a = arrs["r2"]
nd = os.path.join(tmp, "r2.b2nd")
r = run(["convert", h5 + ":/r2", nd])
c.ok(r.returncode == 0, "convert h5 -> b2nd: %r" % r.stderr)
ref_h5 = os.path.join(tmp, "ref.h5")
outs_h5, outs_nd = [], []
for t in (1, 2, 4):
    out = os.path.join(tmp, "back%d.h5" % t)
    r = run(["convert", "--recompress", "--threads", str(t), nd, out + ":/d"])
    c.ok(r.returncode == 0 and b"recompressed" in r.stdout, "b2nd -> h5 --recompress --threads %d: %r %r" % (
        t, r.stdout, r.stderr))
    with h5py.File(out, "r") as f:
        ds = f["d"]
        c.ok(np.array_equal(ds[()], a), "b2nd -> h5 --threads %d: data identical" % t)
        cd = ds.id.get_create_plist().get_filter(0)[2][:7]
        outs_h5.append([ds.id.read_direct_chunk(off) for off in chunk_offsets(a.shape, ds.chunks)])
        ch = ds.chunks
    ndo = os.path.join(tmp, "again%d.b2nd" % t)
    r = run(["convert", "--recompress", "--threads", str(t), h5 + ":/r2", ndo])
    c.ok(r.returncode == 0 and b"recompressed" in r.stdout, "h5 -> b2nd --recompress --threads %d: %r" % (t, r.stderr))
    outs_nd.append(open(ndo, "rb").read())
with h5py.File(ref_h5, "w") as f:  # what the filter itself stores for the same cd_values
    f.create_dataset("d", data=a, chunks=ch, compression=hc.FILTER_ID, compression_opts=tuple(cd))
with h5py.File(ref_h5, "r") as f:
    ref_stored = [f["d"].id.read_direct_chunk(off) for off in chunk_offsets(a.shape, ch)]
for t, st in zip((1, 2, 4), outs_h5):
    c.ok(st == ref_stored, "b2nd -> h5 --threads %d: every stored chunk is the filter's (%d chunks)" % (
        t, len(st)))
# the frame header records the compression and decompression thread counts
# (two 16-bit fields at offsets 64 and 66); every other byte is the same
masked = [o[:64] + b"\0" * 4 + o[68:] for o in outs_nd]
c.ok(masked[0] == masked[1] == masked[2],
     "h5 -> b2nd --recompress: byte-identical for 1, 2, 4 threads but the header's thread counts")
r = run(["cat", os.path.join(tmp, "again2.b2nd")])
c.ok(r.returncode == 0 and r.stdout == a.tobytes(), "h5 -> b2nd --threads 2: b2 cat gives the data")

c.finish()

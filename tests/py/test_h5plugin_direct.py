# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 filter 32026 read/write paths against numpy: datasets of ranks 1..8, dtypes
of item size 1, 2, 4, 8 and 16 (u1, i2, f4, f8, complex128 / a 16-byte compound),
chunk shapes whose edge chunks are partial in every dimension (and chunk dims of
1), Blosc2 filters none / shuffle / bitshuffle (cd_values[5] = 0/1/2, plus some
delta), codecs lz4 / zstd (cd_values[6] = 1/5), written whole and then partly
overwritten (read-modify-write through the filter, datasets interleaved so that
the plugin's per-thread contexts switch between dtypes and codecs).

Everything runs in child processes, one per B2_H5_NTHREADS value (1 and 2; the
plugin may read it once): each child writes its own file and checks whole reads
and random hyperslabs (steps included) with no chunk cache, so every read goes
through the filter; then each child re-reads the file the other thread count
wrote. The parent checks that both files store identical chunks (the stored
bytes do not depend on the thread count) and decodes a sample of stored chunks
itself, with libb2's plain chunk decoder and a numpy un-blocking of the b2nd
layout (doc/format/b2nd.md §3), so that a symmetric encode/decode mistake cannot hide."""
import ctypes
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import libb2_ctypes  # noqa: E402

SEED = 20261124
THREADS = (1, 2)
CODECS = (1, 5)        # lz4, zstd
FILTERS = (0, 1, 2)    # none, shuffle, bitshuffle
COMPOUND16 = [("a", "<i8"), ("b", "<f8")]


def dtypes(np):
    """Item sizes 1, 2, 4, 8, 16 (16: complex128 and a compound, alternately)."""
    return [np.dtype("u1"), np.dtype("<i2"), np.dtype("<f4"), np.dtype("<f8"),
            np.dtype("<c16"), np.dtype(COMPOUND16)]


def geometry(rng, rank, itemsize, chunk_bytes):
    """(shape, chunks): chunks of about chunk_bytes (big enough to compress below
    the raw size, so that the filter stores frames), a few chunks per dataset,
    and partial edge chunks in up to three dimensions (plus chunk dims of 1)."""
    items = max(1, chunk_bytes // itemsize)
    ones = [rank > 2 and rng.random() < 0.15 for i in range(rank)]
    base = max(1.0, items ** (1.0 / max(1, rank - sum(ones))))
    chunks = [1 if one else max(1, int(round(base * rng.uniform(0.6, 1.5)))) for one in ones]
    shape = list(chunks)
    dims = rng.permutation(rank)[:min(rank, 3)]
    for i in dims:
        c = chunks[i]
        n = int(rng.integers(1, 3))  # whole chunks before the partial one
        shape[i] = n * c + (int(rng.integers(1, c)) if c > 1 else 1)
    return tuple(shape), tuple(chunks)


def cases():
    """The deterministic list of datasets; identical in every process."""
    rng = np.random.default_rng(SEED)
    out = []
    dts = dtypes(np)
    for rank in range(1, 9):
        for di in range(5):
            dt = dts[di] if di < 4 else dts[4 + rank % 2]
            combos = [(f, c) for f in FILTERS for c in CODECS]
            combos.append((3, CODECS[(rank + di) % 2]))  # delta, once per rank x dtype
            for flt, codec in combos:
                cbytes = int(rng.choice([2500, 5000, 12000]))
                shape, chunks = geometry(rng, rank, dt.itemsize, cbytes)
                clevel = int(rng.integers(1, 10))
                kind = ("smooth", "mixed", "zeros-chunks")[int(rng.integers(0, 3))]
                name = "r%d_%s_f%d_c%d_%d" % (rank, dt.str.replace("<", "").replace("|", ""),
                                              flt, codec, len(out))
                out.append(dict(name=name, shape=shape, chunks=chunks, dtype=dt,
                                opts=(0, 0, 0, 0, clevel, flt, codec), kind=kind, idx=len(out),
                                mandatory=False))
        # per rank: a forced block size (blocks that do not divide the chunk), data
        # near the compressibility threshold (optional filter: some chunks kept
        # raw, some frames just smaller), incompressible data with a mandatory
        # filter (frames larger than the chunk)
        for extra in ("blocksize", "threshold", "mandatory"):
            dt = dts[int(rng.integers(0, len(dts)))]
            shape, chunks = geometry(rng, rank, dt.itemsize, int(rng.choice([2500, 8000])))
            flt, codec = int(rng.choice(FILTERS)), int(rng.choice(CODECS))
            bs = int(rng.choice([1, 7, 100, 1000, 4096, 1 << 20])) if extra == "blocksize" else 0
            kind = {"blocksize": "mixed", "threshold": "threshold", "mandatory": "random"}[extra]
            name = "r%d_%s_%s_f%d_c%d_%d" % (rank, extra, dt.str.replace("<", "").replace("|", ""),
                                             flt, codec, len(out))
            out.append(dict(name=name, shape=shape, chunks=chunks, dtype=dt,
                            opts=(0, bs, 0, 0, int(rng.integers(1, 10)), flt, codec), kind=kind,
                            idx=len(out), mandatory=extra == "mandatory"))
    return out


def make_data(case):
    """The dataset's content (deterministic per case)."""
    rng = np.random.default_rng([SEED, case["idx"]])
    shape, dt = case["shape"], case["dtype"]
    n = int(np.prod(shape))
    # a slowly varying integer field, cast to the dtype: compresses well
    g = (np.arange(n, dtype=np.int64) // int(rng.integers(1, 6))) % int(rng.integers(3, 24))
    if dt.names:
        a = np.zeros(n, dt)
        a["a"] = g * 1000
        a["b"] = g * 0.5
    elif dt.kind == "c":
        a = (g * 0.25 + 1j * (g % 7)).astype(dt)
    else:
        a = (g * (1 if dt.kind in "ui" else 0.5)).astype(dt)
    raw = a.view(np.uint8)
    nb = raw.size
    noisy = rng.random(nb) < 0.003
    raw[noisy] = rng.integers(0, 256, int(noisy.sum()), dtype=np.uint8)
    if case["kind"] == "mixed":  # a random stretch: some chunks do not compress
        a0 = int(rng.integers(0, nb))
        a1 = min(nb, a0 + nb // 5)
        raw[a0:a1] = rng.integers(0, 256, a1 - a0, dtype=np.uint8)
    elif case["kind"] in ("threshold", "random"):
        frac = 1.0 if case["kind"] == "random" else rng.uniform(0.75, 1.0)
        noisy = rng.random(nb) < frac
        raw[noisy] = rng.integers(0, 256, int(noisy.sum()), dtype=np.uint8)
    a = a.reshape(shape)
    if case["kind"] == "zeros-chunks":
        # zero some whole chunks (stored as zero special chunks) and one slab
        grid = [range(0, s, c) for s, c in zip(shape, case["chunks"])]
        for _ in range(3):
            o = [g[int(rng.integers(0, len(g)))] for g in grid]
            a[tuple(slice(x, x + c) for x, c in zip(o, case["chunks"]))] = np.zeros((), dt)
        a[tuple(slice(0, max(1, s // 3)) for s in shape)] = np.zeros((), dt)
    return a


def overwrite_plan(case, data):
    """Two partial writes (box, new content) applied after the first full write."""
    rng = np.random.default_rng([SEED, case["idx"], 1])
    plan = []
    for _ in range(2):
        sel = []
        for s in case["shape"]:
            a, b = sorted(int(x) for x in rng.integers(0, s + 1, 2))
            if a == b:
                b = min(s, a + 1)
                a = b - 1
            sel.append(slice(a, b))
        sel = tuple(sel)
        sub = data[sel]
        if rng.random() < 0.3:
            content = rng.integers(0, 256, sub.nbytes, dtype=np.uint8).tobytes()
        else:
            content = bytes(sub.nbytes)  # zeros: may turn chunks into zero chunks
        new = np.frombuffer(content, data.dtype).reshape(sub.shape)
        plan.append((sel, new.copy()))
    return plan


def final_data(case):
    d = make_data(case)
    for sel, new in overwrite_plan(case, d):
        d[sel] = new
    return d


def random_selections(rng, shape, n):
    """Hyperslabs: random boxes, single items, whole extents, steps."""
    out = []
    for k in range(n):
        sel = []
        for s in shape:
            r = rng.random()
            if r < 0.15:
                sel.append(slice(None))
            elif r < 0.3:
                i = int(rng.integers(0, s))
                sel.append(slice(i, i + 1))
            else:
                a, b = sorted(int(x) for x in rng.integers(0, s + 1, 2))
                if a == b:
                    b = min(s, a + 1)
                    a = b - 1
                step = int(rng.choice([1, 1, 1, 2, 3])) if k % 3 == 2 else 1
                sel.append(slice(a, b, step))
        out.append(tuple(sel))
    return out


def check_reads(C, ds, want, rng, tag, nsel):
    got = ds[()]
    C.ok(got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(),
         "%s: whole read differs" % tag)
    for sel in random_selections(rng, want.shape, nsel):
        g = ds[sel]
        w = np.ascontiguousarray(want[sel])
        C.ok(g.shape == w.shape and g.tobytes() == w.tobytes(),
             "%s: hyperslab %s differs" % (tag, sel))
    # read_direct into a buffer with a canary around the box
    sel = random_selections(rng, want.shape, 1)[0]
    w = np.ascontiguousarray(want[sel])
    buf = np.zeros(w.size + 4, want.dtype)
    canary = np.frombuffer(b"\xa5" * (4 * want.dtype.itemsize), want.dtype)
    buf[w.size:] = canary
    ds.read_direct(buf[:w.size].reshape(w.shape), source_sel=sel)
    C.ok(buf[:w.size].tobytes() == w.tobytes() and buf[w.size:].tobytes() == canary.tobytes(),
         "%s: read_direct %s differs or wrote past the box" % (tag, sel))


def child_write(path, nthreads):
    C = hc.Counter("h5plugin direct write (B2_H5_NTHREADS=%d)" % nthreads)
    rng = np.random.default_rng([SEED, nthreads])
    cs = cases()
    t0 = time.time()
    # no chunk cache: every read and every partial write goes through the filter
    with h5py.File(path, "w", rdcc_nbytes=0) as f:
        for c in cs:
            d = make_data(c)
            if c["mandatory"]:
                dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
                dcpl.set_chunk(c["chunks"])
                dcpl.set_filter(hc.FILTER_ID, 0, c["opts"])  # flags 0: mandatory
                tid = h5py.h5t.py_create(c["dtype"], logical=True)
                ds = h5py.Dataset(h5py.h5d.create(f.id, c["name"].encode(), tid,
                                                  h5py.h5s.create_simple(c["shape"]), dcpl=dcpl))
            else:
                ds = f.create_dataset(c["name"], shape=c["shape"], dtype=c["dtype"],
                                      chunks=c["chunks"], compression=hc.FILTER_ID,
                                      compression_opts=c["opts"])
            ds[...] = d
            check_reads(C, ds, d, rng, "%s (first write)" % c["name"], 3)
        # partial overwrites, datasets interleaved (contexts switch between dtypes/codecs)
        plans = [(c, overwrite_plan(c, make_data(c))) for c in cs]
        for step in range(2):
            order = rng.permutation(len(cs))
            for i in order:
                c, plan = plans[i]
                sel, new = plan[step]
                f[c["name"]][sel] = new
        for c in cs:
            check_reads(C, f[c["name"]], final_data(c), rng, "%s (after overwrites)" % c["name"], 4)
    # reopened: nothing cached
    with h5py.File(path, "r", rdcc_nbytes=0) as f:
        for c in cs:
            check_reads(C, f[c["name"]], final_data(c), rng, "%s (reopened)" % c["name"], 4)
    print("datasets: %d, %.1f s" % (len(cs), time.time() - t0))
    C.finish()


def child_verify(path, nthreads):
    C = hc.Counter("h5plugin direct cross-read (B2_H5_NTHREADS=%d)" % nthreads)
    rng = np.random.default_rng([SEED, nthreads, 7])
    with h5py.File(path, "r", rdcc_nbytes=0) as f:
        for c in cases():
            check_reads(C, f[c["name"]], final_data(c), rng, "%s (other file)" % c["name"], 6)
    C.finish()


# ---- parent: stored chunks ----

class Plain:
    """libb2's plain chunk decoder through ctypes (no b2nd read path)."""

    def __init__(self, lib):
        self.lib = lib
        d = lib.dll
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        d.b2_schunk_nchunks.argtypes, d.b2_schunk_nchunks.restype = [vp], ctypes.c_int64
        d.b2_schunk_chunk_nbytes.argtypes = [vp, ctypes.c_int64]
        d.b2_schunk_chunk_nbytes.restype = ctypes.c_int
        d.b2_schunk_decompress_chunk.argtypes = [vp, ctypes.c_int64, ctypes.c_char_p, sz]
        d.b2_schunk_decompress_chunk.restype = ctypes.c_int

    def chunk0(self, frame):
        """Decoded bytes of the frame's only chunk."""
        d = self.lib.dll
        rc, s = self.lib.open_schunk(buffer=frame, copy_buffer=True, flags=libb2_ctypes.OPEN_WRITE)
        self.lib.check(rc, "open")
        try:
            if d.b2_schunk_nchunks(s) != 1:
                raise ValueError("frame holds %d chunks" % d.b2_schunk_nchunks(s))
            nb = self.lib.check(d.b2_schunk_chunk_nbytes(s, 0), "chunk_nbytes")
            buf = ctypes.create_string_buffer(nb)
            n = self.lib.check(d.b2_schunk_decompress_chunk(s, 0, buf, nb), "decompress_chunk")
            return buf.raw[:n]
        finally:
            d.b2_schunk_free(s)


def unblock(raw, shape, chunkshape, blockshape, itemsize):
    """A one-chunk b2nd array's padded chunk (blocks in C order over the block grid,
    items in C order inside each block) as a uint8 array of shape + (itemsize,)."""
    r = len(shape)
    bic = [-(-c // b) for c, b in zip(chunkshape, blockshape)]
    ext = [n * b for n, b in zip(bic, blockshape)]
    a = np.frombuffer(raw, np.uint8).reshape(tuple(bic) + tuple(blockshape) + (itemsize,))
    order = [x for i in range(r) for x in (i, r + i)] + [2 * r]
    a = a.transpose(order).reshape(tuple(ext) + (itemsize,))
    return a[tuple(slice(0, s) for s in shape)]


def load_plain():
    """libb2blosc.so through the repository's ctypes binding, or None (with the reason)."""
    bd = os.environ.get("B2_BUILD_DIR")
    if not bd:
        return None, "B2_BUILD_DIR not set"
    path = os.path.join(bd, "libb2", "libb2blosc.so")
    if not os.path.isfile(path):
        return None, "%s not built" % path
    if libb2_ctypes.sanitized(bd) and "libasan" not in os.environ.get("LD_PRELOAD", ""):
        return None, "sanitizer build without the runtimes preloaded"
    try:
        return Plain(libb2_ctypes.Lib(path)), None
    except OSError as e:
        return None, str(e)


def check_stored(C, paths):
    """Both files store the same chunks; a sample decodes (plain decoder + numpy
    un-blocking) to the source."""
    plain, why = load_plain()
    if plain is None:
        print("note: stored chunks not decoded independently (%s)" % why)
    ncmp = ndec = nraw = nbig = 0
    rng = np.random.default_rng([SEED, 99])
    files = [h5py.File(p, "r") for p in paths]
    try:
        for c in cases():
            want = final_data(c)
            dss = [f[c["name"]] for f in files]
            shape, chunks, dt = c["shape"], c["chunks"], c["dtype"]
            grid = [range(0, s, ch) for s, ch in zip(shape, chunks)]
            offs = list(np.ndindex(*[len(g) for g in grid]))
            pick = rng.permutation(len(offs))[:6]
            for k in pick:
                off = tuple(g[i] for g, i in zip(grid, offs[k]))
                stored = [ds.id.read_direct_chunk(off) for ds in dss]
                C.ok(stored[0] == stored[1], "%s %s: stored chunk differs between thread counts"
                     % (c["name"], off))
                ncmp += 1
                mask, raw = stored[0]
                if c["mandatory"]:
                    C.ok(mask == 0, "%s %s: a mandatory filter's chunk stored raw (mask %d)"
                         % (c["name"], off, mask))
                    nbig += len(raw) > int(np.prod(chunks)) * dt.itemsize
                region = tuple(slice(o, min(o + ch, s)) for o, ch, s in zip(off, chunks, shape))
                part = np.ascontiguousarray(want[region]).view(np.uint8).reshape(
                    tuple(r.stop - r.start for r in region) + (dt.itemsize,))
                C.ok(not mask & 1, "%s %s: chunk stored raw (mask %d): every chunk is a frame"
                     % (c["name"], off, mask))
                if mask & 1:
                    got = np.frombuffer(raw, np.uint8).reshape(tuple(chunks) + (dt.itemsize,))
                    nraw += 1
                elif plain is None:
                    continue
                else:
                    try:
                        dec = plain.chunk0(raw)
                    except Exception as e:  # noqa: BLE001
                        C.ok(False, "%s %s: plain decode failed: %s" % (c["name"], off, e))
                        continue
                    if len(chunks) >= 2:
                        shp = plain.lib.b2nd_shapes(raw)
                        C.ok(shp[0] == tuple(chunks) and shp[1] == tuple(chunks),
                             "%s %s: b2nd shape/chunkshape %s, chunk %s"
                             % (c["name"], off, shp, chunks))
                        got = unblock(dec, chunks, shp[1], shp[2], dt.itemsize)
                    else:
                        got = np.frombuffer(dec, np.uint8).reshape(tuple(chunks) + (dt.itemsize,))
                    ndec += 1
                inner = got[tuple(slice(0, r.stop - r.start) for r in region)]
                C.ok(inner.tobytes() == part.tobytes(),
                     "%s %s: stored chunk does not decode to the source" % (c["name"], off))
    finally:
        for f in files:
            f.close()
    print("stored chunks: %d compared across thread counts, %d decoded by the plain decoder, "
          "%d stored raw, %d frames larger than their chunk" % (ncmp, ndec, nraw, nbig))


def run_child(C, args, nthreads, timeout=600):
    env = dict(os.environ, B2_H5_NTHREADS=str(nthreads))
    env.pop("BLOSC_NTHREADS", None)
    t0 = time.time()
    r = subprocess.run([sys.executable, os.path.abspath(__file__)] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=timeout)
    out = r.stdout.decode(errors="replace")
    lines = out.strip().splitlines()
    print("child %s (B2_H5_NTHREADS=%d): exit %d, %.1f s; %s"
          % (args[0], nthreads, r.returncode, time.time() - t0, lines[-1] if lines else ""))
    C.ok(r.returncode == 0, "child %s B2_H5_NTHREADS=%d exited %d:\n%s\n%s"
         % (args, nthreads, r.returncode, out[-3000:], r.stderr.decode(errors="replace")[-3000:]))


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("--write", "--verify"):
        global h5py, np
        h5py, np, _ = hc.setup()
        fn = child_write if sys.argv[1] == "--write" else child_verify
        fn(sys.argv[2], int(os.environ.get("B2_H5_NTHREADS", "1")))
        return
    # The parent never runs the filter (it only reads stored chunks), so it does
    # not load the plugin; the children do.
    hc.plugin_dir()
    try:
        import h5py as h
        import numpy as n
    except ImportError as e:
        hc.skip("h5py/numpy not importable by %s: %s" % (sys.executable, e))
    globals()["h5py"], globals()["np"] = h, n
    C = hc.Counter("h5plugin direct")
    tmp = b2test.scratch_dir("b2h5direct_")
    paths = [os.path.join(tmp, "t%d.h5" % t) for t in THREADS]
    print("datasets per file: %d" % len(cases()))
    for t, p in zip(THREADS, paths):
        run_child(C, ["--write", p], t)
    for t, p in zip(THREADS, reversed(paths)):
        run_child(C, ["--verify", p], t)
    if all(os.path.isfile(p) for p in paths):
        check_stored(C, paths)
    for p in paths:
        if os.path.exists(p):
            os.remove(p)
    os.rmdir(tmp)
    C.finish()


if __name__ == "__main__":
    main()

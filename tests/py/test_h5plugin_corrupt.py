# SPDX-License-Identifier: BSD-3-Clause
"""Hostile stored chunks: write mutated frames with write_direct_chunk (filter
mask 0, so HDF5 hands them to our filter on read) and read them back. Every read
must either fail with an HDF5 error (OSError in h5py) or return data; the process
must never crash or hang. The mutations run in a child process so that a crash is
reported with the mutation that caused it. Also checks that a frame of the wrong
shape is refused with a message naming the mismatch (doc/format/hdf5-filter.md §7), and
that a damaged chunk header inside the frame reaches the HDF5 error stack with
libb2's detail (the offending value and the check that failed)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PLUGIN_DIR = hc.setup()


def mutations(raw, rng):
    """(label, bytes) pairs: truncations, extensions, byte changes everywhere in
    header/index/trailer, sampled changes in the chunk data, garbage."""
    n = len(raw)
    hl = int.from_bytes(raw[11:15], "big")
    out = []
    for cut in sorted({1, 8, 23, 60, 87, hl - 1, hl, hl + 16, hl + 32, n - 76, n - 40, n - 35,
                       n - 23, n - 1}):
        if 0 < cut < n:
            out.append(("truncate to %d" % cut, raw[:cut]))
    out.append(("append 4 bytes", raw + b"\0\0\0\0"))
    out.append(("append 1 byte", raw + b"\x01"))
    tail = list(range(max(hl, n - 80), n))
    positions = list(range(min(hl, n))) + tail
    positions += sorted(rng.choice(np.arange(hl, max(hl + 1, n - 80)),
                                   size=min(120, max(0, n - 80 - hl)), replace=False).tolist())
    for p in positions:
        for val in {raw[p] ^ 0x01, raw[p] ^ 0x80, 0x00, 0xFF, 0x7F}:
            if val != raw[p]:
                b = bytearray(raw)
                b[p] = val
                out.append(("byte %d = %#04x" % (p, val), bytes(b)))
    for k in range(20):
        out.append(("garbage %d" % k, rng.integers(0, 256, n, dtype=np.uint8).tobytes()))
        b = bytearray(raw)
        for p in rng.integers(0, n, 8):
            b[p] = int(rng.integers(0, 256))
        out.append(("8 random bytes %d" % k, bytes(b)))
    return out


def child(path):
    rng = np.random.default_rng(7)
    stats = {"errors": 0, "data": 0}
    with h5py.File(path, "a") as f:
        for name in ("b2nd2", "b2nd3", "plain", "plain_bs"):
            ds = f[name]
            off = (0,) * ds.ndim
            sel = tuple(slice(0, c) for c in ds.chunks)
            mask, raw = ds.id.read_direct_chunk(off)
            assert mask == 0 and hc.frame_len(raw) == len(raw), name
            for label, bad in mutations(raw, rng):
                print("%s: %s" % (name, label), flush=True)
                ds.id.write_direct_chunk(off, bad, 0)
                try:
                    ds[sel]
                    stats["data"] += 1
                except OSError:
                    stats["errors"] += 1
            ds.id.write_direct_chunk(off, raw, 0)
    print("RESULT errors=%d data=%d" % (stats["errors"], stats["data"]), flush=True)


def make_file(path):
    with h5py.File(path, "w") as f:
        opts = (0, 0, 0, 0, 5, 1, 0)
        f.create_dataset("b2nd2", data=(np.arange(50 * 100) % 300).astype("<f4").reshape(50, 100),
                         chunks=(50, 100), compression=hc.FILTER_ID, compression_opts=opts)
        f.create_dataset("b2nd3", data=(np.arange(12 * 9 * 15) % 50).astype("<i2").reshape(12, 9, 15),
                         chunks=(12, 9, 15), compression=hc.FILTER_ID,
                         compression_opts=(0, 512, 0, 0, 9, 2, 5))
        f.create_dataset("plain", data=(np.arange(4000) // 3).astype("<i4"), chunks=(4000,),
                         compression=hc.FILTER_ID, compression_opts=(0, 0, 0, 0, 5, 1, 1))
        f.create_dataset("plain_bs", data=(np.arange(6000) % 17).astype("<u2"), chunks=(6000,),
                         compression=hc.FILTER_ID, compression_opts=(0, 1024, 0, 0, 1, 3, 4))
        # mandatory filter: the frame is kept although it is larger than the chunk
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((3, 4))
        dcpl.set_filter(hc.FILTER_ID, 0, (0, 0, 0, 0, 9, 1, 5))
        tid = h5py.h5t.py_create(np.dtype("<i2"))
        ds = h5py.Dataset(h5py.h5d.create(f.id, b"small", tid, h5py.h5s.create_simple((3, 4)),
                                          dcpl=dcpl))
        ds[...] = np.arange(12, dtype="<i2").reshape(3, 4) + 7


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    C = hc.Counter("h5plugin corrupt chunks")
    tmp = b2test.scratch_dir("b2h5bad_")
    path = os.path.join(tmp, "bad.h5")
    make_file(path)
    # wrong shape: a (3,4) frame stored in a (50,100) chunk
    with h5py.File(path, "a") as f:
        mask, small = f["small"].id.read_direct_chunk((0, 0))
        C.ok(mask == 0, "small chunk not filtered (mask %d)" % mask)
        f["b2nd2"].id.write_direct_chunk((0, 0), small, 0)
        try:
            f["b2nd2"][()]
            C.ok(False, "a (3,4) frame in a (50,100) chunk was accepted")
        except OSError as e:
            C.ok("blosc2" in str(e) and "shape" in str(e),
                 "wrong-shape error does not name the mismatch: %s" % e)
    # libb2's detailed message reaches the HDF5 error stack (and h5py's OSError)
    make_file(path)
    with h5py.File(path, "a") as f:
        for name in ("plain", "b2nd2"):
            ds = f[name]
            off = (0,) * ds.ndim
            _, raw = ds.id.read_direct_chunk(off)
            hl = int.from_bytes(raw[11:15], "big")  # the frame's first chunk follows the header
            for at, val, want in ((3, b"\0", "chunk typesize is 0"),
                                  (12, (0x7fff0000).to_bytes(4, "little"), "cbytes 2147418112")):
                bad = bytearray(raw)
                bad[hl + at:hl + at + len(val)] = val
                ds.id.write_direct_chunk(off, bytes(bad), 0)
                try:
                    ds[()]
                    C.ok(False, "%s: damaged chunk header byte %d was accepted" % (name, at))
                except OSError as e:
                    C.ok("blosc2 filter" in str(e) and want in str(e),
                         "%s: error does not carry %r: %s" % (name, want, e))
            ds.id.write_direct_chunk(off, raw, 0)
    # B2_H5_MEMORY_LIMIT bounds what a stored frame may make the filter allocate
    make_file(path)
    with h5py.File(path, "r") as f:
        for name in ("plain", "b2nd2"):
            want = f[name][()]
            for limit, fails in (("4K", True), ("1M", False), ("junk", False)):
                os.environ["B2_H5_MEMORY_LIMIT"] = limit
                try:
                    got = f[name][()]
                    C.ok(not fails and np.array_equal(got, want),
                         "%s under B2_H5_MEMORY_LIMIT=%s: read, %s" % (
                             name, limit, "equal" if np.array_equal(got, want) else "different"))
                except OSError as e:
                    C.ok(fails and "memory limit" in str(e),
                         "%s under B2_H5_MEMORY_LIMIT=%s: %s" % (name, limit, e))
            del os.environ["B2_H5_MEMORY_LIMIT"]
    make_file(path)
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600,
                       env=dict(os.environ, HDF5_PLUGIN_PATH=PLUGIN_DIR))
    lines = r.stdout.decode(errors="replace").splitlines()
    last = lines[-1] if lines else "(no output)"
    ok = r.returncode == 0 and last.startswith("RESULT")
    C.ok(ok, "child exited %d after: %s\n%s" % (r.returncode, last,
                                                 r.stderr.decode(errors="replace")[-800:]))
    if ok:
        print("mutated chunks read: %d (%s)" % (len(lines) - 1, last))
    C.finish()


main()

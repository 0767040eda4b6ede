# SPDX-License-Identifier: BSD-3-Clause
"""Per-chunk checksums in the HDF5 plugin (issue 26): b2blosc.Blosc2(checksums=True)
sets flags bit 1 of the extra cd_values, and every frame the plugin stores then
holds the vlmetalayer b2.checksums.

For lz4 and then zstd (no Blosc2 filter, bytes with literal runs) the test finds
a bit inside the stored codec payload (past the frame header, the chunk header
and the block starts) whose flip still decodes without a codec error, but to
other bytes; it writes the damaged chunk back (write_direct_chunk) and checks:
  (a) reading through our plugin fails, the message saying "checksum", and so do
      b2blosc.h5's direct reads (B2_ERR_CHECKSUM);
  (b) the reference plugin (../shared/bench/ref/libH5Zblosc2.so, c-blosc2 3.3,
      in a subprocess) reads the same dataset without an error and returns other
      bytes than were written: silently wrong data (skipped with a reason when
      the reference is absent);
  (c) b2_schunk_checksum_state (libb2 through ctypes) says B2_ERR_CHECKSUM for
      chunk 0 of the damaged frame and B2_CHECKSUM_OK for the original.
The undamaged checksummed datasets read back exactly through both plugins."""
import ctypes
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import libb2_ctypes  # noqa: E402

h5py, np, PDIR = hc.setup()
b2test.use_source_package()
os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
import b2blosc  # noqa: E402
import b2blosc.h5 as b2h5  # noqa: E402

check = b2test.Checks()
REF = os.environ.get("B2_REF_DIR") or os.path.join(b2test.REPO, "..", "shared", "bench", "ref")
HAVE_REF = b2test.ref_usable(REF)
B2_ERR_CHECKSUM, B2_CHECKSUM_OK = -20, 0

LIB = libb2_ctypes.load()
_d = LIB.dll
_d.b2_schunk_checksum_state.restype = ctypes.c_int
_d.b2_schunk_checksum_state.argtypes = [ctypes.c_void_p, ctypes.c_int64]
_d.b2_schunk_has_checksums.restype = ctypes.c_int
_d.b2_schunk_has_checksums.argtypes = [ctypes.c_void_p]
_d.b2_schunk_decompress_chunk.restype = ctypes.c_int
_d.b2_schunk_decompress_chunk.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                                          ctypes.c_size_t]


def frame_call(frame, fn):
    """fn(handle) on the frame opened read-only (no verification), or None."""
    rc, s = LIB.open_schunk(buffer=frame, copy_buffer=True, flags=libb2_ctypes.OPEN_WRITE)
    if rc < 0:
        return None
    try:
        return fn(s)
    finally:
        _d.b2_schunk_free(s)


def decode(frame, nbytes):
    """Chunk 0 of the frame decoded by libb2 without checking its checksum:
    its bytes, or None when the codec (or anything else) fails."""
    out = ctypes.create_string_buffer(nbytes)

    def dec(s):
        rc = _d.b2_schunk_decompress_chunk(s, 0, out, nbytes)
        return out.raw if rc == nbytes else None
    return frame_call(frame, dec)


def state(frame):
    return frame_call(frame, lambda s: _d.b2_schunk_checksum_state(s, 0))


def has_sums(frame):
    return frame_call(frame, lambda s: _d.b2_schunk_has_checksums(s))


def chunk_layout(frame):
    """(first payload byte, end of the chunk, nbytes) of the frame's chunk 0:
    past the frame header, the 32-byte chunk header, the block starts and the
    first stream's 4-byte size."""
    hl = int.from_bytes(frame[11:15], "big")
    hdr = frame[hl:hl + 32]
    nbytes = int.from_bytes(hdr[4:8], "little")
    blocksize = int.from_bytes(hdr[8:12], "little")
    cbytes = int.from_bytes(hdr[12:16], "little")
    nblocks = (nbytes + blocksize - 1) // blocksize
    bstarts = [int.from_bytes(frame[hl + 32 + 4 * i:hl + 36 + 4 * i], "little") for i in range(nblocks)]
    first = min(bstarts)
    return hl + first + 4, hl + cbytes, nbytes


def find_silent_flip(frame):
    """(byte offset in the frame, bit) whose flip decodes without an error but to
    other bytes than the original's, or None."""
    start, end, nbytes = chunk_layout(frame)
    good = decode(frame, nbytes)
    if good is None:
        return None, None
    buf = bytearray(frame)
    # from the middle of the first stream on: a literal run is soon met
    mid = start + min(64, (end - start) // 4)
    for pos in list(range(mid, end)) + list(range(start, mid)):
        for bit in (0, 3, 6):
            buf[pos] ^= 1 << bit
            got = decode(bytes(buf), nbytes)
            buf[pos] ^= 1 << bit
            if got is not None and got != good:
                return pos, bit
    return None, None


read_with = hc.read_with


def sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def make_data():
    """uint8 rows made of 8-byte words drawn from 48 random ones: lz4 and zstd
    find matches between literal runs."""
    rng = np.random.default_rng(2026)
    words = rng.integers(0, 256, size=(48, 8), dtype=np.uint8)
    pick = rng.integers(0, 48, size=128 * 192 // 8)
    a = words[pick].reshape(128, 192).copy()
    a[::7, ::5] = rng.integers(0, 256, size=a[::7, ::5].shape, dtype=np.uint8)  # more literals
    return a


def main():
    tmp = b2test.scratch_dir("h5sums_")
    path = os.path.join(tmp, "sums.h5")
    data = make_data()
    chunks = (64, 96)
    with h5py.File(path, "w") as f:
        for cname in ("lz4", "zstd"):
            comp = b2blosc.Blosc2(cname, 5, b2blosc.Blosc2.NOFILTER, checksums=True)
            check(comp.filter_options[-1] == 2 and comp.get_config().get("checksums") is True,
                  "%s: Blosc2(checksums=True) sets flags bit 1: %r" % (cname, comp.filter_options))
            f.create_dataset("%s_ok" % cname, data=data, chunks=chunks, **comp)
            f.create_dataset("%s_bad" % cname, data=data, chunks=chunks, **comp)
            f.create_dataset("%s_plain" % cname, data=data, chunks=chunks,
                             **b2blosc.Blosc2(cname, 5, b2blosc.Blosc2.NOFILTER))
    want = sha(data)

    with h5py.File(path, "r+") as f:
        for cname in ("lz4", "zstd"):
            ok, bad, plain = f["%s_ok" % cname], f["%s_bad" % cname], f["%s_plain" % cname]
            check(b2blosc.Blosc2.from_dataset(ok).get_config().get("checksums") is True,
                  "%s: from_dataset sees checksums" % cname)
            check(np.array_equal(ok[()], data), "%s: our plugin reads the checksummed data" % cname)
            mask, frame = ok.id.read_direct_chunk((0, 0))
            frame = bytes(frame)
            check(mask == 0 and has_sums(frame) == 1 and state(frame) == B2_CHECKSUM_OK,
                  "%s: the stored frame holds a matching checksum" % cname)
            _m, pframe = plain.id.read_direct_chunk((0, 0))
            check(has_sums(bytes(pframe)) == 0, "%s: without the option no checksums" % cname)
            start, end, nbytes = chunk_layout(frame)
            check(end - start < nbytes * 0.9, "%s: the chunk is compressed (%d of %d bytes)"
                  % (cname, end - start, nbytes))
            pos, bit = find_silent_flip(frame)
            if not check(pos is not None, "%s: a bit whose flip decodes silently" % cname):
                continue
            print("%s: flipping bit %d of byte %d of the %d-byte frame (chunk payload %d..%d) "
                  "decodes without an error to other bytes" % (cname, bit, pos, len(frame), start, end))
            dmg = bytearray(frame)
            dmg[pos] ^= 1 << bit
            dmg = bytes(dmg)
            check(state(dmg) == B2_ERR_CHECKSUM, "%s: (c) b2_schunk_checksum_state says %s"
                  % (cname, state(dmg)))
            bad.id.write_direct_chunk((0, 0), dmg, 0)
        f.flush()

    with h5py.File(path, "r") as f:
        for cname in ("lz4", "zstd"):
            bad = f["%s_bad" % cname]
            try:
                bad[()]
                check(False, "%s: (a) our plugin read the damaged chunk" % cname)
            except OSError as e:
                print("%s: our plugin: %s" % (cname, e))
                check("checksum" in str(e), "%s: (a) our plugin's error names the checksum: %s"
                      % (cname, e))
            # the chunks that are not damaged still read
            check(np.array_equal(bad[64:, :], data[64:, :]), "%s: other chunks read" % cname)
            for threads in (1, 2):  # b2blosc.h5: direct reads, serial and parallel
                try:
                    b2h5.read_box(bad, (0, 0), data.shape, threads=threads, slab_bytes=None, out=None)
                    check(False, "%s: b2h5 read with %d threads read the damaged chunk"
                          % (cname, threads))
                except OSError as e:
                    check("-20" in str(e) and "CHECKSUM" in str(e),
                          "%s: b2h5 read (%d threads): %s" % (cname, threads, e))

    if not HAVE_REF:
        print("SKIP (b): reference plugin not found in %s" % REF)
    else:
        ref = read_with(REF, path)
        for cname in ("lz4", "zstd"):
            check(ref.get("%s_ok" % cname) == want, "%s: the reference reads the checksummed "
                  "dataset exactly (%s)" % (cname, ref.get("%s_ok" % cname, ref)))
            got = str(ref.get("%s_bad" % cname, ref))
            print("%s: the reference on the damaged chunk: %s" % (cname, got))
            check(not got.startswith("error") and got != want and len(got) == 64,
                  "%s: (b) the reference returns silently wrong bytes (%s)" % (cname, got))
    print("%d checks, %d failures" % (check.count, len(check.failures)))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())

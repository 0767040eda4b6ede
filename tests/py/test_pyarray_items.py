# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.array writes and refresh (python/b2blosc/array.py):
  * open(path, "r+") on a frame without b2nd metalayer takes f[i] = v and
    f[a:b] = values (b2_schunk_set_items) across chunks: random writes equal the
    same writes on a NumPy array, also after reopening; a broadcast scalar; bad
    keys (steps, out of range) raise IndexError; "r" handles refuse with
    Blosc2Error (B2_ERR_READ_ONLY); b2nd files refuse "r+";
  * refresh() on a reader open beside a writer: False until the writer commits,
    then True with the new items (and shape, for a b2nd array the writer grew)."""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import pyarray_common as pc  # noqa: E402

ba = pc.load()
import numpy as np  # noqa: E402
import libb2_ctypes  # noqa: E402

check = b2test.Checks()
rng = np.random.default_rng(27)


def make_frame(lib, path, data, chunk_items, typesize):
    raw = data.tobytes()
    step = chunk_items * typesize
    chunks = [raw[i:i + step] for i in range(0, len(raw), step)]
    frame = lib.schunk_frame(lib.cparams(codec="lz4", typesize=typesize, blocksize=typesize * 64),
                             chunks=chunks)
    with open(path, "wb") as f:
        f.write(frame)


def writes(lib, tmp):
    path = os.path.join(tmp, "items.b2frame")
    want = (np.arange(10_000, dtype="<u4") * 3).astype("<u4")
    make_frame(lib, path, want, 1_000, 4)
    with ba.open(path, "r+") as f:
        check(isinstance(f, ba.FrameArray) and f.shape == (10_000,), "r+ opens a FrameArray")
        for _ in range(40):
            a = int(rng.integers(0, 10_000))
            b = int(rng.integers(a, min(10_000, a + 3_000) + 1))
            v = rng.integers(0, 2**32, b - a, dtype=np.uint64).astype("<u4")
            f[a:b] = v
            want[a:b] = v
            check(np.array_equal(f[:], want), "write %d:%d" % (a, b))
        f[-1] = 7
        want[-1] = 7
        f[100:2_100] = 5
        want[100:2_100] = 5
        f[3:3] = []
        check(np.array_equal(np.asarray(f), want), "int, broadcast and empty writes")
        for key in (slice(0, 10, 2), 10_000, -10_001, "x"):
            try:
                f[key] = 1
                check(False, "key %r accepted" % (key,))
            except IndexError:
                pass
    with ba.open(path) as f:
        check(np.array_equal(np.asarray(f), want), "reopened")
        try:
            f[0] = 1
            check(False, "a read-only handle wrote")
        except ba.Blosc2Error as e:
            check(e.name == "B2_ERR_READ_ONLY", "read-only error: %s" % e.name)
    nd = os.path.join(tmp, "a.b2nd")
    ba.save(np.arange(100.0), nd).close()
    try:
        ba.open(nd, "r+")
        check(False, "a b2nd array opened r+")
    except ValueError:
        pass


def refresh(lib, tmp):
    path = os.path.join(tmp, "refresh.b2frame")
    data = np.arange(4_000, dtype="<u4")
    make_frame(lib, path, data, 1_000, 4)
    r = ba.open(path)
    check(r.refresh() is False, "nothing new")
    with ba.open(path, "r+") as w:
        w[500:1_500] = 9
    check(r[600] == 600, "the old view stays until refresh")
    check(r.refresh() is True and r[600] == 9 and r[1_499] == 9 and r[1_500] == 1_500,
          "refresh shows the write")
    check(r.refresh() is False, "a second refresh finds nothing")
    r.close()

    # a b2nd array grown by a writer through the C API
    nd = os.path.join(tmp, "grow.b2nd")
    ba.save(np.arange(60.0).reshape(10, 6), nd, chunks=(4, 6), blocks=(2, 3)).close()
    r = ba.open(nd)
    d = lib.dll
    d.b2_nd_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    d.b2_nd_append.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    d.b2_nd_free.argtypes = [ctypes.c_void_p]
    h = ctypes.c_void_p()
    lib.check(d.b2_nd_open(nd.encode(), 1, ctypes.byref(h)), "b2_nd_open")
    more = np.arange(60.0, 120.0)
    lib.check(d.b2_nd_append(h, more.ctypes.data, more.nbytes, 0), "b2_nd_append")
    d.b2_nd_free(h)
    check(r.shape == (10, 6), "old shape until refresh")
    check(r.refresh() is True and r.shape == (20, 6), "refreshed shape %s" % (r.shape,))
    check(np.array_equal(np.asarray(r), np.arange(120.0).reshape(20, 6)), "grown contents")
    r.close()


def main():
    lib = libb2_ctypes.load()
    tmp = b2test.scratch_dir("b2pyitems_")
    writes(lib, tmp)
    refresh(lib, tmp)
    print("%d checks, %d failed" % (check.count, len(check.failures)))
    return 1 if check.failures else 0


sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.codecs' encode/decode take their large buffers from a pool of warm
blocks (b2blosc._bufpool), and a block serves again only when nothing uses it:
  * a decoded chunk's memory is reused by the next decode of the same size
    once the result and every view of it are gone (the same address), and
    never while a view derived from it (a reshaped dtype view, a slice, a
    memoryview) is alive: the held values stay intact through 20 decodes;
  * chunks below the pooled size and uninit special chunks are plain arrays;
  * encode returns a copy of its own size for a small chunk (the worst-case
    block goes back to the pool) and the block itself for an incompressible
    one; encode_bytes returns bytes equal to encode's;
  * free blocks are bounded (MAX_FREE_BYTES), oldest sizes dropped first;
  * threads decoding side by side get each value right (a pool shared under
    a lock), and a failed encode returns its block.
Runs from the source tree (python/ on sys.path, B2_LIBB2 and B2_H5_PLUGIN from
the build)."""
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import pyarray_common as pc  # noqa: E402

if not b2test.INSTALLED:  # the built library and plugin, as the other package tests
    os.environ.setdefault("B2_LIBB2", os.path.join(pc.build_dir(), "libb2", "libb2blosc.so"))
    os.environ.setdefault("B2_H5_PLUGIN", os.path.join(hc.plugin_dir(), hc.PLUGIN_NAME))
b2test.use_source_package()
import numpy as np  # noqa: E402

from b2blosc import _bufpool, codecs  # noqa: E402

check = b2test.Checks()
cfg = codecs.normalize_config("lz4", 5, "shuffle", 4)
N = 1 << 20
a = np.arange(N // 4, dtype="<i4")
b = (a * 7 + 3).astype("<i4")
ca, cb = codecs.encode(cfg, a), codecs.encode(cfg, b)


def addr(x):
    return np.asarray(x).__array_interface__["data"][0]


# reuse once the result is gone
x = codecs.decode(cfg, ca)
first = addr(x)
check(bytes(x) == a.tobytes(), "decode gives the values")
del x
y = codecs.decode(cfg, cb)
check(addr(y) == first, "the next decode of the size reuses the freed block")
check(bytes(y) == b.tobytes(), "and gives its own values")

# never while a derived view lives
view = y.view("<i4").reshape(512, -1)[3:]   # NumPy's base is the lease, not y
mv = memoryview(y[100:])
del y
held = []
for i in range(20):
    held.append(addr(codecs.decode(cfg, ca if i % 2 else cb)))
check(first not in held, "a block with a live view is not handed out (%d decodes)" % len(held))
check(np.array_equal(view, b.reshape(512, -1)[3:]), "the view's values stay intact")
check(bytes(mv[:16]) == b.tobytes()[100:116], "a memoryview's bytes stay intact")
del view
check(addr(codecs.decode(cfg, ca)) != first, "the block is still held by the memoryview")
del mv
z = codecs.decode(cfg, ca)
check(addr(z) == first, "the last view gone, the block serves again")
del z

# small and special chunks
small = np.arange(1000, dtype="<i4")
s = codecs.decode(cfg, codecs.encode(cfg, small))
check(s.base is None and bytes(s) == small.tobytes(), "a small chunk decodes into a plain array")
import ctypes  # noqa: E402
lib = __import__("b2blosc._libb2", fromlist=["get"]).get()
special = np.zeros(64, np.uint8)
fn = lib.dll.b2_chunk_make_special
fn.restype = ctypes.c_int
n = fn(4, 4, N, None, ctypes.c_void_p(special.ctypes.data), ctypes.c_size_t(64))
check(n > 0, "an uninit special chunk made (%d bytes)" % n)
u = codecs.decode(cfg, special[:n])
check(u.nbytes == N and not u.any(), "an uninit chunk decodes to zeros, not a used block's bytes")

# encode: compact copy, the block back; incompressible: the block itself
p = _bufpool.pool()
before = p.free_bytes
e = codecs.encode(cfg, a)
check(e.base is None and e.nbytes < N // 4, "a small encoded chunk is a copy of its size")
check(p.free.get(N + 32), "its worst-case block went back to the pool")
noise = np.random.default_rng(1).integers(0, 256, N, dtype=np.uint8)
en = codecs.encode(cfg, noise)
check(en.nbytes > N * 3 // 4 and en.base is not None, "an incompressible chunk stays in its block")
check(codecs.encode_bytes(cfg, a) == e.tobytes(), "encode_bytes equals encode")
check(bytes(codecs.decode(cfg, en)) == noise.tobytes(), "the incompressible chunk decodes")
try:
    codecs.encode(codecs.normalize_config("lz4", 5, "shuffle", 4), np.zeros(2 ** 31, np.uint8))
    check(False, "an over-size chunk raises")
except (ValueError, MemoryError):
    check(True, "an over-size chunk raises")
check(p.free_bytes >= before and p.free.get(N + 32), "its block did not push the others out")

# the bound
q = _bufpool.BufferPool()
blocks = [q.take(s) for s in (40 << 20, 20 << 20, 10 << 20)]
for blk in blocks:
    q.give(blk)
check(q.free_bytes <= _bufpool.MAX_FREE_BYTES, "free blocks stay within the bound (%d)" % q.free_bytes)
check((10 << 20) in q.free and (40 << 20) not in q.free, "the oldest size is dropped first")
check(q.take(10 << 20) is blocks[2], "a free block of the size comes back")

# threads side by side
errors = []


def worker(seed):
    r = np.random.default_rng(seed)
    for _ in range(40):
        v = r.integers(0, 1000, N // 4, dtype="<i4")
        got = codecs.decode(cfg, codecs.encode(cfg, v))
        if bytes(got) != v.tobytes():
            errors.append(seed)


ts = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
check(not errors, "4 threads x 40 round trips give their own values")

print("test_pypkg_codec_buffers: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

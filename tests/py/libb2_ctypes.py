# SPDX-License-Identifier: BSD-3-Clause
"""Minimal ctypes binding of libb2's public frame and b2nd API (libb2/include/b2blosc/
b2_frame.h, b2_nd.h), for tests that need frames the b2 program cannot write yet
(several chunks, metalayers, vlmetalayers, special chunks).

The library is $B2_BUILD_DIR/libb2/libb2blosc.so. In sanitizer builds it is
instrumented: ctest preloads the sanitizer runtimes (tests/CMakeLists.txt), and
without them load() skips rather than let the loader abort."""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

MAX_DIM = 16
CODECS = {"blosclz": 0, "lz4": 1, "lz4hc": 2, "zlib": 4, "zstd": 5}
FILTERS = {"none": 0, "shuffle": 1, "bitshuffle": 2, "delta": 3}
SPECIAL_ZEROS, SPECIAL_NAN = 1, 2
FILL_ZEROS, FILL_NANS = 0, 2
STORAGE_MEMORY = 0
OPEN_READONLY, OPEN_WRITE, OPEN_CREATE = 0, 1, 2   # B2_OPEN_* (b2_frame.h)


class BlockGeometry(ctypes.Structure):
    _fields_ = [("ndim", ctypes.c_int), ("blockshape", ctypes.c_int32 * MAX_DIM)]


class CParams(ctypes.Structure):
    _fields_ = [("codec", ctypes.c_int), ("clevel", ctypes.c_int), ("typesize", ctypes.c_int32),
                ("blocksize", ctypes.c_int32), ("splitmode", ctypes.c_int),
                ("filters", ctypes.c_uint8 * 6), ("filters_meta", ctypes.c_uint8 * 6),
                ("nthreads", ctypes.c_int), ("use_dict", ctypes.c_int),
                ("codec_meta", ctypes.c_uint8), ("geometry", BlockGeometry),
                ("registry", ctypes.c_void_p)]


class OpenOptions(ctypes.Structure):   # b2_open_options (b2_frame.h), size checked at load
    _fields_ = [("size", ctypes.c_size_t), ("flags", ctypes.c_int), ("path", ctypes.c_char_p),
                ("buffer", ctypes.c_void_p), ("buffer_len", ctypes.c_size_t),
                ("copy_buffer", ctypes.c_int), ("io", ctypes.c_void_p),
                ("io_user", ctypes.c_void_p), ("offset", ctypes.c_int64),
                ("memory_limit", ctypes.c_int64), ("nthreads", ctypes.c_int),
                ("registry", ctypes.c_void_p), ("mmap", ctypes.c_int), ("sparse", ctypes.c_int),
                ("cparams", ctypes.POINTER(CParams)), ("checksums", ctypes.c_int),
                ("verify", ctypes.c_int)]


class UserMeta(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("content", ctypes.c_void_p), ("len", ctypes.c_int32)]


class NDParams(ctypes.Structure):
    _fields_ = [("ndim", ctypes.c_int), ("shape", ctypes.c_int64 * MAX_DIM),
                ("chunkshape", ctypes.c_int32 * MAX_DIM), ("blockshape", ctypes.c_int32 * MAX_DIM),
                ("typesize", ctypes.c_int32), ("dtype", ctypes.c_char_p),
                ("cparams", ctypes.POINTER(CParams)), ("nmetalayers", ctypes.c_int),
                ("metalayers", ctypes.POINTER(UserMeta))]


class Storage(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("path", ctypes.c_char_p)]


class B2Error(Exception):
    pass


class Lib:
    """The loaded library with argument types declared and error checking."""

    def __init__(self, path):
        self.dll = dll = ctypes.CDLL(path)
        vp, i64, i32, sz = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_size_t
        pbuf, psz = ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)), ctypes.POINTER(sz)
        sigs = {
            "b2_cparams_init": (None, [ctypes.POINTER(CParams)]),
            "b2_strerror": (ctypes.c_char_p, [ctypes.c_int]),
            "b2_open_options_init": (None, [vp]),
            "b2_schunk_open_with": (ctypes.c_int, [ctypes.POINTER(OpenOptions), ctypes.POINTER(vp)]),
            "b2_schunk_free": (None, [vp]),
            "b2_schunk_append_buffer": (i64, [vp, ctypes.c_char_p, i32]),
            "b2_schunk_fill_special": (i64, [vp, i64, ctypes.c_int, i32]),
            "b2_schunk_meta_add": (ctypes.c_int, [vp, ctypes.c_char_p, ctypes.c_char_p, i32]),
            "b2_schunk_vlmeta_add": (ctypes.c_int, [vp, ctypes.c_char_p, ctypes.c_char_p, i32]),
            "b2_schunk_to_buffer": (ctypes.c_int, [vp, pbuf, psz]),
            "b2_nd_from_cbuffer": (ctypes.c_int, [ctypes.POINTER(NDParams), ctypes.POINTER(Storage),
                                                 ctypes.c_char_p, sz, ctypes.POINTER(vp)]),
            "b2_nd_create": (ctypes.c_int, [ctypes.POINTER(NDParams), ctypes.POINTER(Storage),
                                           ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(vp)]),
            "b2_nd_set_slice_cbuffer": (ctypes.c_int, [vp, ctypes.POINTER(i64), ctypes.POINTER(i64),
                                                      ctypes.c_char_p, sz]),
            "b2_nd_set_orthogonal_selection": (ctypes.c_int, [vp, ctypes.POINTER(ctypes.POINTER(i64)),
                                                             ctypes.POINTER(i64), ctypes.c_char_p, sz]),
            "b2_nd_schunk": (vp, [vp]),
            "b2_nd_to_frame_buffer": (ctypes.c_int, [vp, pbuf, psz]),
            "b2_nd_free": (None, [vp]),
            "b2_nd_open_buffer": (ctypes.c_int, [ctypes.c_char_p, sz, ctypes.c_int, ctypes.POINTER(vp)]),
            "b2_nd_ndim": (ctypes.c_int, [vp]),
            "b2_nd_shape": (ctypes.POINTER(i64), [vp]),
            "b2_nd_chunkshape": (ctypes.POINTER(i32), [vp]),
            "b2_nd_blockshape": (ctypes.POINTER(i32), [vp]),
            "b2_nd_concatenate": (ctypes.c_int, [vp, vp, ctypes.c_int, ctypes.POINTER(Storage),
                                                ctypes.POINTER(vp)]),
            "b2_nd_expand_dims": (ctypes.c_int, [vp, ctypes.POINTER(ctypes.c_int), ctypes.c_int,
                                                ctypes.POINTER(Storage), ctypes.POINTER(vp)]),
            "b2_nd_copy": (ctypes.c_int, [vp, ctypes.POINTER(i32), ctypes.POINTER(i32),
                                         ctypes.POINTER(Storage), ctypes.POINTER(vp)]),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(dll, name)
            fn.restype, fn.argtypes = res, args
        # free() of the process: the sanitizer's when preloaded, like the library's malloc
        self.free = ctypes.CDLL(None).free
        self.free.argtypes, self.free.restype = [ctypes.c_void_p], None
        # the library's b2_open_options must be OpenOptions: init writes its sizeof
        # into .size (into a generous buffer, so a larger struct cannot overrun)
        probe = ctypes.create_string_buffer(4096)
        dll.b2_open_options_init(probe)
        size = ctypes.c_size_t.from_buffer(probe).value
        if size != ctypes.sizeof(OpenOptions):
            raise B2Error("%s: b2_open_options is %d bytes, libb2_ctypes.OpenOptions %d: "
                          "update the struct" % (path, size, ctypes.sizeof(OpenOptions)))

    def open_schunk(self, path=None, buffer=None, flags=OPEN_READONLY, copy_buffer=False,
                    offset=0, memory_limit=0, cparams=None, sparse=False, checksums=0,
                    verify=False):
        """b2_schunk_open_with on the defaults (b2_open_options_init) with these
        fields set: (rc, handle). flags=OPEN_CREATE with cparams (and path, sparse)
        creates; path or buffer (bytes; copy_buffer=True copies it, writable)
        opens. A borrowed buffer must outlive the handle (handle._keep holds it)."""
        o = OpenOptions()
        self.dll.b2_open_options_init(ctypes.byref(o))
        o.flags = flags
        if path is not None:
            o.path = os.fsencode(path)
        ref = None
        if buffer is not None:
            ref = ctypes.c_char_p(bytes(buffer))   # never NULL, not even for b""
            o.buffer, o.buffer_len = ctypes.cast(ref, ctypes.c_void_p), len(buffer)
            o.copy_buffer = int(bool(copy_buffer))
        o.offset, o.memory_limit, o.sparse = offset, memory_limit, int(bool(sparse))
        if cparams is not None:
            o.cparams = ctypes.pointer(cparams)
        o.checksums, o.verify = checksums, int(bool(verify))
        s = ctypes.c_void_p()
        rc = self.dll.b2_schunk_open_with(ctypes.byref(o), ctypes.byref(s))
        if rc >= 0 and ref is not None and not copy_buffer:
            s._keep = ref
        return rc, s

    def check(self, rc, what):
        if rc < 0:
            raise B2Error("%s: %s (%d)" % (what, self.dll.b2_strerror(rc).decode(), rc))
        return rc

    def cparams(self, codec="zstd", clevel=5, typesize=4, filt="shuffle", blocksize=0, nthreads=1):
        p = CParams()
        self.dll.b2_cparams_init(ctypes.byref(p))
        p.codec, p.clevel, p.typesize, p.blocksize = CODECS[codec], clevel, typesize, blocksize
        p.filters = (ctypes.c_uint8 * 6)(0, 0, 0, 0, 0, FILTERS[filt])
        p.nthreads = nthreads
        return p

    def _take(self, fn, handle, what):
        out, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_size_t()
        self.check(fn(handle, ctypes.byref(out), ctypes.byref(n)), what)
        try:
            return ctypes.string_at(out, n.value)
        finally:
            self.free(out)

    def schunk_frame(self, cparams, chunks=(), special=None, meta=(), vlmeta=()):
        """Contiguous frame of a new super-chunk: metalayers first (name, bytes),
        then special (kind, nitems, chunksize) if given, then the chunks (bytes)
        compressed with cparams, then the vlmetalayers."""
        rc, s = self.open_schunk(flags=OPEN_CREATE, cparams=cparams)
        self.check(rc, "b2_schunk_open_with (create)")
        try:
            for name, content in meta:
                self.check(self.dll.b2_schunk_meta_add(s, name.encode(), content, len(content)), "meta_add")
            if special:
                kind, nitems, chunksize = special
                self.check(self.dll.b2_schunk_fill_special(s, nitems, kind, chunksize), "fill_special")
            for c in chunks:
                self.check(self.dll.b2_schunk_append_buffer(s, c, len(c)), "append_buffer")
            for name, content in vlmeta:
                self.check(self.dll.b2_schunk_vlmeta_add(s, name.encode(), content, len(content)), "vlmeta_add")
            return self._take(self.dll.b2_schunk_to_buffer, s, "schunk_to_buffer")
        finally:
            self.dll.b2_schunk_free(s)

    def b2nd_frame(self, arr, chunkshape, blockshape, cparams, dtype=None, meta=(), vlmeta=(),
                   fill=None, box=None, selections=()):
        """Contiguous frame of a b2nd array shaped like arr (numpy, C order).
        Without fill: arr's content. With fill (FILL_ZEROS/FILL_NANS): an array
        created so (special chunks), then box=(start, stop) overwritten from arr.
        Then each of selections, (index lists, C-order bytes), is written with
        b2_nd_set_orthogonal_selection."""
        nd = arr.ndim
        p = NDParams()
        p.ndim, p.typesize = nd, arr.dtype.itemsize
        for i in range(nd):
            p.shape[i], p.chunkshape[i], p.blockshape[i] = arr.shape[i], chunkshape[i], blockshape[i]
        p.dtype = (dtype or arr.dtype.str).encode()
        cp = cparams
        p.cparams = ctypes.pointer(cp)
        metas = (UserMeta * max(1, len(meta)))()
        keep = []
        for i, (name, content) in enumerate(meta):
            buf = ctypes.create_string_buffer(content, len(content))
            keep.append(buf)
            metas[i] = UserMeta(name.encode(), ctypes.cast(buf, ctypes.c_void_p), len(content))
        p.nmetalayers, p.metalayers = len(meta), metas
        st = Storage(STORAGE_MEMORY, None)
        a = ctypes.c_void_p()
        if fill is None:
            data = arr.tobytes()
            self.check(self.dll.b2_nd_from_cbuffer(ctypes.byref(p), ctypes.byref(st), data, len(data),
                                                  ctypes.byref(a)), "b2_nd_from_cbuffer")
        else:
            self.check(self.dll.b2_nd_create(ctypes.byref(p), ctypes.byref(st), fill, None,
                                            ctypes.byref(a)), "b2_nd_create")
        try:
            if box is not None:
                start, stop = box
                sub = arr[tuple(slice(a0, b0) for a0, b0 in zip(start, stop))].tobytes()
                self.check(self.dll.b2_nd_set_slice_cbuffer(
                    a, (ctypes.c_int64 * nd)(*start), (ctypes.c_int64 * nd)(*stop), sub, len(sub)),
                    "b2nd_set_slice_cbuffer")
            for lists, vals in selections:
                p64 = ctypes.POINTER(ctypes.c_int64)
                arrs = [(ctypes.c_int64 * max(1, len(x)))(*x) for x in lists]
                sel = (p64 * nd)(*[ctypes.cast(x, p64) for x in arrs])
                self.check(self.dll.b2_nd_set_orthogonal_selection(
                    a, sel, (ctypes.c_int64 * nd)(*[len(x) for x in lists]), vals, len(vals)),
                    "b2_nd_set_orthogonal_selection")
            s = self.dll.b2_nd_schunk(a)
            for name, content in vlmeta:
                self.check(self.dll.b2_schunk_vlmeta_add(s, name.encode(), content, len(content)), "vlmeta_add")
            return self._take(self.dll.b2_nd_to_frame_buffer, a, "b2_nd_to_frame_buffer")
        finally:
            self.dll.b2_nd_free(a)

    def b2nd_op_frame(self, op, frames, axis=0, inplace=False, axes=(), chunkshape=None,
                      blockshape=None):
        """Contiguous frame of the array an operation on the arrays in frames
        (copies, writable) makes: "concat" (frames[0] and [1] joined along axis,
        in place on the first or into a new array), "expand_dims" (axes) or
        "copy" (new chunkshape and blockshape: a rechunk)."""
        arrs = []
        out = ctypes.c_void_p()
        st = Storage(STORAGE_MEMORY, None)
        try:
            for fr in frames:
                a = ctypes.c_void_p()
                self.check(self.dll.b2_nd_open_buffer(fr, len(fr), 1, ctypes.byref(a)), "b2_nd_open_buffer")
                arrs.append(a)
            if op == "concat":
                self.check(self.dll.b2_nd_concatenate(arrs[0], arrs[1], axis,
                                                      None if inplace else ctypes.byref(st),
                                                      None if inplace else ctypes.byref(out)),
                           "b2_nd_concatenate")
            elif op == "expand_dims":
                self.check(self.dll.b2_nd_expand_dims(arrs[0], (ctypes.c_int * len(axes))(*axes), len(axes),
                                                      ctypes.byref(st), ctypes.byref(out)),
                           "b2_nd_expand_dims")
            else:
                n = len(chunkshape)
                self.check(self.dll.b2_nd_copy(arrs[0], (ctypes.c_int32 * n)(*chunkshape),
                                               (ctypes.c_int32 * n)(*blockshape), ctypes.byref(st),
                                               ctypes.byref(out)), "b2_nd_copy")
            res = out if out.value else arrs[0]
            return self._take(self.dll.b2_nd_to_frame_buffer, res, "b2_nd_to_frame_buffer")
        finally:
            if out.value:
                self.dll.b2_nd_free(out)
            for a in arrs:
                self.dll.b2_nd_free(a)

    def b2nd_shapes(self, frame):
        """(shape, chunkshape, blockshape) of the b2nd array in a frame."""
        a = ctypes.c_void_p()
        self.check(self.dll.b2_nd_open_buffer(frame, len(frame), 1, ctypes.byref(a)), "b2_nd_open_buffer")
        try:
            n = self.dll.b2_nd_ndim(a)
            return tuple(tuple(f(a)[i] for i in range(n)) for f in
                         (self.dll.b2_nd_shape, self.dll.b2_nd_chunkshape, self.dll.b2_nd_blockshape))
        finally:
            self.dll.b2_nd_free(a)


def sanitized(build_dir):
    """Whether build_dir was configured with -DB2_SANITIZE=ON."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            return any(ln.strip() in ("B2_SANITIZE:BOOL=ON", "B2_SANITIZE:BOOL=1") for ln in f)
    except OSError:
        return False


def load():
    """Load $B2_BUILD_DIR/libb2/libb2blosc.so (or the first build dir's); skip when
    it is not built or cannot be loaded. Against an installed b2blosc
    (b2test.INSTALLED), the package's own library."""
    if b2test.INSTALLED:
        from b2blosc import _libb2
        return Lib(_libb2.library_path()[0])
    bd = os.environ.get("B2_BUILD_DIR")
    dirs = [bd] if bd else [os.path.join(b2test.REPO, d) for d in sorted(os.listdir(b2test.REPO))
                            if d.startswith("build")]
    for d in dirs:
        path = os.path.join(d, "libb2", "libb2blosc.so")
        if os.path.isfile(path):
            if sanitized(d) and "asan" not in os.environ.get("LD_PRELOAD", ""):  # gcc's or clang's
                b2test.skip("sanitizer build: libb2blosc.so needs the sanitizer runtimes preloaded (run through ctest)")
            try:
                return Lib(path)
            except OSError as e:
                b2test.skip("cannot load %s: %s" % (path, e))
    b2test.skip("libb2blosc.so not built (looked in: %s)" % ", ".join(dirs))

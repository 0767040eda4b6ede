# SPDX-License-Identifier: BSD-3-Clause
"""ctypes binding of libb2's public chunk, frame and b2nd C API (libb2/include/b2blosc/
b2_common.h, b2_chunk.h, b2_frame.h, b2_nd.h, and a few calls of the *_experimental.h
headers: b2_inspect_path, b2_nd_meta_*, b2_nd_dtype_itemsize, b2_nd_blocks_decoded),
for b2blosc.array and b2blosc.codecs. Frame handles come from one call,
b2_schunk_open_with (Lib.open_schunk), whose b2_open_options struct (OpenOptions) is
checked against the library's size when it loads.

The library is found once, on first use (get()), never at import:
  1. $B2_LIBB2, the path of a libb2blosc.so file, when set (it must then load:
     there is no fallback, so a wrong setting is reported, not bypassed);
  2. otherwise <this package>/lib/libb2blosc.so, where the package's build step puts it;
  3. otherwise, in a copy that `cmake --install` (or the .deb) put beside the C
     library, that library (libb2blosc.so.1 in the install's libdir).
Failure raises LibraryNotFoundError (an OSError) naming the paths tried and why.

Every call that can fail goes through check(): a negative B2_ERR_* code becomes a
Blosc2Error (a ValueError) carrying the code and the library's detailed message."""
import ctypes
import os
import threading

__all__ = ["Blosc2Error", "LibraryNotFoundError", "get", "library_path"]

MAX_DIM = 16            # B2_ND_MAX_DIM / B2_GEOM_MAX_DIM
MAX_FILTERS = 6         # B2_MAX_FILTERS
OPEN_READONLY, OPEN_WRITE, OPEN_CREATE = 0, 1, 2   # B2_OPEN_* (b2_frame.h)
STORAGE_MEMORY, STORAGE_FILE, STORAGE_SPARSE = 0, 1, 2
ERR_NOT_FOUND = -12

ERROR_NAMES = {
    -1: "B2_ERR_INVALID_PARAM", -2: "B2_ERR_TRUNCATED", -3: "B2_ERR_INVALID_HEADER",
    -4: "B2_ERR_CORRUPT", -5: "B2_ERR_UNSUPPORTED", -6: "B2_ERR_NOMEM",
    -7: "B2_ERR_DST_TOO_SMALL", -8: "B2_ERR_CODEC", -9: "B2_ERR_FILTER", -10: "B2_ERR_IO",
    -11: "B2_ERR_THREAD", -12: "B2_ERR_NOT_FOUND", -13: "B2_ERR_RANGE", -14: "B2_ERR_EXISTS",
    -15: "B2_ERR_FORMAT", -16: "B2_ERR_DOES_NOT_FIT", -17: "B2_ERR_READ_ONLY",
    -18: "B2_ERR_BAD_CODEC", -19: "B2_ERR_LIMIT", -20: "B2_ERR_CHECKSUM",
    -21: "B2_ERR_CALLBACK",
}


class Blosc2Error(ValueError):
    """A libb2 call failed. code: the negative B2_ERR_* code; name: its name
    (e.g. "B2_ERR_TRUNCATED"); message: the library's detailed message."""

    def __init__(self, code, message, what=""):
        self.code = code
        self.name = ERROR_NAMES.get(code, "B2_ERR_%d" % code)
        self.message = message
        self.what = what
        shown = message
        for word in what.split():  # a file name both say: once
            if len(word) > 2 and word + ": " in shown:
                shown = shown.replace(word + ": ", "", 1)
        text = "%s: %s [%s %d]" % (what, shown, self.name, code) if what else \
            "%s [%s %d]" % (message, self.name, code)
        super().__init__(text)


class LibraryNotFoundError(OSError):
    """libb2blosc.so could not be found or loaded; the message names the paths tried."""


# ---- struct layouts (checked against the headers) ----

class BlockGeometry(ctypes.Structure):          # b2_block_geometry (b2_chunk.h)
    _fields_ = [("ndim", ctypes.c_int), ("blockshape", ctypes.c_int32 * MAX_DIM)]


class CParams(ctypes.Structure):                # b2_cparams (b2_chunk.h)
    _fields_ = [("codec", ctypes.c_int), ("clevel", ctypes.c_int), ("typesize", ctypes.c_int32),
                ("blocksize", ctypes.c_int32), ("splitmode", ctypes.c_int),
                ("filters", ctypes.c_uint8 * MAX_FILTERS),
                ("filters_meta", ctypes.c_uint8 * MAX_FILTERS),
                ("nthreads", ctypes.c_int), ("use_dict", ctypes.c_int),
                ("codec_meta", ctypes.c_uint8), ("geometry", BlockGeometry),
                ("registry", ctypes.c_void_p)]


class ChunkInfo(ctypes.Structure):              # b2_chunk_info (b2_chunk.h)
    _fields_ = [("version", ctypes.c_int), ("versionlz", ctypes.c_int), ("flags", ctypes.c_int),
                ("typesize", ctypes.c_int), ("nbytes", ctypes.c_int32),
                ("blocksize", ctypes.c_int32), ("cbytes", ctypes.c_int32),
                ("header_len", ctypes.c_int), ("filters", ctypes.c_uint8 * MAX_FILTERS),
                ("filters_meta", ctypes.c_uint8 * MAX_FILTERS), ("compcode", ctypes.c_int),
                ("compcode_meta", ctypes.c_int), ("codec_format", ctypes.c_int),
                ("blosc2_flags", ctypes.c_int), ("blosc2_flags2", ctypes.c_int),
                ("special", ctypes.c_int), ("memcpyed", ctypes.c_int), ("split", ctypes.c_int),
                ("vlblocks", ctypes.c_int), ("has_dict", ctypes.c_int), ("lazy", ctypes.c_int),
                ("nblocks", ctypes.c_int32), ("leftover", ctypes.c_int32),
                ("eff_blocksize", ctypes.c_int32)]


class NDMeta(ctypes.Structure):                 # b2_nd_meta (b2_nd.h)
    _fields_ = [("version", ctypes.c_int), ("ndim", ctypes.c_int),
                ("shape", ctypes.c_int64 * MAX_DIM), ("chunkshape", ctypes.c_int32 * MAX_DIM),
                ("blockshape", ctypes.c_int32 * MAX_DIM), ("dtype_format", ctypes.c_int),
                ("dtype", ctypes.c_void_p), ("dtype_len", ctypes.c_int32)]


class OpenOptions(ctypes.Structure):            # b2_open_options (b2_frame.h)
    """What b2_schunk_open_with is told; Lib checks at load that its size is the
    one b2_open_options_init writes (a libb2 with another layout is refused)."""
    _fields_ = [("size", ctypes.c_size_t), ("flags", ctypes.c_int), ("path", ctypes.c_char_p),
                ("buffer", ctypes.c_void_p), ("buffer_len", ctypes.c_size_t),
                ("copy_buffer", ctypes.c_int), ("io", ctypes.c_void_p),
                ("io_user", ctypes.c_void_p), ("offset", ctypes.c_int64),
                ("memory_limit", ctypes.c_int64), ("nthreads", ctypes.c_int),
                ("registry", ctypes.c_void_p), ("mmap", ctypes.c_int), ("sparse", ctypes.c_int),
                ("cparams", ctypes.POINTER(CParams)), ("checksums", ctypes.c_int),
                ("verify", ctypes.c_int)]


class UserMeta(ctypes.Structure):               # b2_nd_user_meta (b2_nd.h)
    _fields_ = [("name", ctypes.c_char_p), ("content", ctypes.c_void_p), ("len", ctypes.c_int32)]


class NDParams(ctypes.Structure):               # b2_nd_params (b2_nd.h)
    _fields_ = [("ndim", ctypes.c_int), ("shape", ctypes.c_int64 * MAX_DIM),
                ("chunkshape", ctypes.c_int32 * MAX_DIM), ("blockshape", ctypes.c_int32 * MAX_DIM),
                ("typesize", ctypes.c_int32), ("dtype", ctypes.c_char_p),
                ("cparams", ctypes.POINTER(CParams)), ("nmetalayers", ctypes.c_int),
                ("metalayers", ctypes.POINTER(UserMeta))]


class Storage(ctypes.Structure):                # b2_nd_storage (b2_nd.h)
    _fields_ = [("kind", ctypes.c_int), ("path", ctypes.c_char_p)]


_vp, _i64, _i32, _int, _sz = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_int, ctypes.c_size_t
_cp = ctypes.c_char_p
_pu8 = ctypes.POINTER(ctypes.c_uint8)
_ppu8 = ctypes.POINTER(_pu8)
_pi64, _pi32 = ctypes.POINTER(_i64), ctypes.POINTER(_i32)

SIGNATURES = {
    # b2_common.h
    "b2_last_error_message": (_cp, []),
    "b2_last_error_code": (_int, []),
    "b2_strerror": (_cp, [_int]),
    "b2_version": (_cp, []),
    # b2_chunk.h
    "b2_cparams_init": (None, [ctypes.POINTER(CParams)]),
    "b2_cparams_check": (_int, [ctypes.POINTER(CParams)]),
    "b2_codec_name": (_cp, [_int]),
    "b2_codec_from_name": (_int, [_cp]),
    "b2_filter_name": (_cp, [_int]),
    "b2_filter_from_name": (_int, [_cp]),
    # one chunk at a time (b2blosc.codecs); src/dst as addresses, so that any
    # buffer (bytes, NumPy, a read-only memoryview) is passed without a copy
    "b2_chunk_get_info": (_int, [_vp, _sz, ctypes.POINTER(ChunkInfo)]),
    "b2_cctx_new": (_vp, [ctypes.POINTER(CParams)]),
    "b2_cctx_free": (None, [_vp]),
    "b2_cctx_last_error": (_cp, [_vp]),
    "b2_chunk_compress_bound": (_sz, [_sz]),
    "b2_chunk_compress": (_int, [_vp, _vp, _sz, _vp, _sz]),
    "b2_dctx_new": (_vp, [_int]),
    "b2_dctx_free": (None, [_vp]),
    "b2_dctx_last_error": (_cp, [_vp]),
    "b2_chunk_decompress": (_int, [_vp, _vp, _sz, _vp, _sz]),
    # b2_frame.h
    "b2_open_options_init": (None, [_vp]),   # a b2_open_options, or a larger buffer
    "b2_schunk_open_with": (_int, [ctypes.POINTER(OpenOptions), ctypes.POINTER(_vp)]),
    "b2_schunk_append_chunk": (_i64, [_vp, _cp, _i32]),
    "b2_schunk_meta_add": (_int, [_vp, _cp, _cp, _i32]),
    "b2_schunk_free": (None, [_vp]),
    "b2_schunk_last_error": (_cp, [_vp]),
    "b2_schunk_storage": (_int, [_vp]),
    "b2_schunk_nchunks": (_i64, [_vp]),
    "b2_schunk_nbytes": (_i64, [_vp]),
    "b2_schunk_cbytes": (_i64, [_vp]),
    "b2_schunk_typesize": (_i32, [_vp]),
    "b2_schunk_chunksize": (_i32, [_vp]),
    "b2_schunk_cparams": (ctypes.POINTER(CParams), [_vp]),
    "b2_schunk_set_nthreads": (_int, [_vp, _int]),
    "b2_schunk_chunk_nbytes": (_int, [_vp, _i64]),
    "b2_schunk_get_chunk": (_int, [_vp, _i64, _ppu8, _pi32]),
    "b2_schunk_decompress_chunk": (_int, [_vp, _i64, _vp, _sz]),
    "b2_schunk_get_items": (_i64, [_vp, _i64, _i64, _vp, _sz]),
    "b2_schunk_set_items": (_i64, [_vp, _i64, _i64, _vp, _sz]),
    "b2_schunk_refresh": (_int, [_vp]),
    "b2_schunk_meta_count": (_int, [_vp]),
    "b2_schunk_meta_name": (_cp, [_vp, _int]),
    "b2_schunk_meta_get": (_int, [_vp, _cp, _ppu8, _pi32]),
    "b2_schunk_vlmeta_count": (_int, [_vp]),
    "b2_schunk_vlmeta_name": (_cp, [_vp, _int]),
    "b2_schunk_vlmeta_get": (_int, [_vp, _cp, _ppu8, _pi32]),
    "b2_schunk_vlmeta_add": (_int, [_vp, _cp, _cp, _i32]),
    "b2_schunk_to_buffer": (_int, [_vp, _ppu8, ctypes.POINTER(_sz)]),
    "b2_inspect_path": (_int, [_cp]),             # b2_frame_experimental.h
    # b2_nd.h
    "b2_nd_meta_decode": (_int, [_cp, _sz, ctypes.POINTER(NDMeta)]),
    "b2_nd_meta_clear": (None, [ctypes.POINTER(NDMeta)]),
    "b2_nd_meta_encode": (_int, [ctypes.POINTER(NDMeta), _ppu8, _pi32]),
    "b2_nd_dtype_itemsize": (_i32, [_cp]),
    "b2_nd_from_cbuffer": (_int, [ctypes.POINTER(NDParams), ctypes.POINTER(Storage), _vp, _sz,
                                  ctypes.POINTER(_vp)]),
    "b2_nd_open": (_int, [_cp, _int, ctypes.POINTER(_vp)]),
    "b2_nd_from_schunk": (_int, [_vp, ctypes.POINTER(_vp)]),
    "b2_nd_to_frame_buffer": (_int, [_vp, _ppu8, ctypes.POINTER(_sz)]),
    "b2_nd_free": (None, [_vp]),
    "b2_nd_refresh": (_int, [_vp]),
    "b2_nd_last_error": (_cp, [_vp]),
    "b2_nd_ndim": (_int, [_vp]),
    "b2_nd_shape": (_pi64, [_vp]),
    "b2_nd_chunkshape": (_pi32, [_vp]),
    "b2_nd_blockshape": (_pi32, [_vp]),
    "b2_nd_typesize": (_i32, [_vp]),
    "b2_nd_dtype": (_cp, [_vp]),
    "b2_nd_nitems": (_i64, [_vp]),
    "b2_nd_schunk": (_vp, [_vp]),
    "b2_nd_set_nthreads": (_int, [_vp, _int]),
    "b2_nd_blocks_decoded": (_i64, [_vp]),
    "b2_nd_to_cbuffer": (_int, [_vp, _vp, _sz]),
    "b2_nd_get_slice_cbuffer": (_int, [_vp, _pi64, _pi64, _vp, _sz]),
    "b2_nd_get_orthogonal_selection": (_int, [_vp, ctypes.POINTER(_pi64), _pi64, _vp, _sz]),
}


def _package_lib():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libb2blosc.so")


_INSTALLED_LIB = "@B2_LIB_FULL_PATH@"  # filled in by cmake --install


def library_path():
    """(path, where) of the library get() loads: $B2_LIBB2 when set, else the package's
    copy, else the C library `cmake --install` put beside this package."""
    env = os.environ.get("B2_LIBB2")
    if env:
        return env, "$B2_LIBB2"
    own = _package_lib()
    if not os.path.isfile(own) and not _INSTALLED_LIB.startswith("@"):
        return _INSTALLED_LIB, "installed"
    return own, "package"


def _sanitizer_problem(path):
    """A reason not to dlopen path: an instrumented (ASan) build without its runtime
    preloaded makes the loader abort the process, which no exception can catch."""
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        return None
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"libasan.so" in data or b"libclang_rt.asan" in data:
        return ("it is a sanitizer (ASan) build, which can only be loaded with the sanitizer "
                "runtime preloaded (LD_PRELOAD)")
    return None


class Lib:
    """The loaded library: dll with every signature declared, plus helpers."""

    def __init__(self, path):
        self.path = path
        self.dll = dll = ctypes.CDLL(path)
        missing = []
        for name, (res, args) in SIGNATURES.items():
            try:
                fn = getattr(dll, name)
            except AttributeError:
                missing.append(name)
                continue
            fn.restype, fn.argtypes = res, args
        if missing:
            raise LibraryNotFoundError("%s is not a usable libb2 (missing symbols: %s)"
                                       % (path, ", ".join(missing)))
        # the process's free(): the one the library's malloc pairs with (the
        # sanitizer's when it is preloaded)
        self._free = ctypes.CDLL(None).free
        self._free.argtypes, self._free.restype = [ctypes.c_void_p], None
        self.version = dll.b2_version().decode()
        # b2_open_options as this library lays it out: init writes its own sizeof
        # into .size (the first field); into a generous buffer, so that a larger
        # struct cannot overrun ours
        probe = ctypes.create_string_buffer(4096)
        dll.b2_open_options_init(probe)
        size = ctypes.c_size_t.from_buffer(probe).value
        if size != ctypes.sizeof(OpenOptions):
            raise LibraryNotFoundError(
                "%s is not a usable libb2: its b2_open_options is %d bytes, this binding's "
                "(b2blosc/_libb2.py, OpenOptions) %d: the struct changed"
                % (path, size, ctypes.sizeof(OpenOptions)))

    def open_options(self, path=None, buffer=None, flags=OPEN_READONLY, copy_buffer=False,
                     offset=0, memory_limit=0, nthreads=0, mmap=False, sparse=False,
                     cparams=None, checksums=0, verify=False):
        """(b2_open_options, keep): the library's defaults (b2_open_options_init)
        with the given fields set. path: str, bytes or os.PathLike; buffer: a frame
        in memory (bytes-like; an empty one still names the memory source);
        cparams: a CParams (B2_OPEN_CREATE). keep holds what the struct points
        to: keep it as long as the struct (and a borrowed buffer as long as the
        handle)."""
        o = OpenOptions()
        self.dll.b2_open_options_init(ctypes.byref(o))
        keep = []
        o.flags = flags
        if path is not None:
            o.path = os.fsencode(path)
            keep.append(o.path)
        if buffer is not None:
            if isinstance(buffer, bytes):
                ref = ctypes.c_char_p(buffer)   # never NULL, not even for b""
                n = len(buffer)
            else:
                view = memoryview(buffer).cast("B")
                n = view.nbytes
                if view.readonly:
                    data = view.tobytes()
                    ref = ctypes.c_char_p(data)
                    keep.append(data)
                else:
                    ref = (ctypes.c_char * max(1, n)).from_buffer(view) if n else \
                        ctypes.c_char_p(b"")
                    keep.append(view)
            keep.append(ref)
            o.buffer = ctypes.cast(ref, ctypes.c_void_p)
            o.buffer_len = n
            o.copy_buffer = int(bool(copy_buffer))
        o.offset, o.memory_limit, o.nthreads = offset, memory_limit, nthreads
        o.mmap, o.sparse = int(bool(mmap)), int(bool(sparse))
        if cparams is not None:
            o.cparams = ctypes.pointer(cparams)
            keep.append(cparams)
        o.checksums, o.verify = checksums, int(bool(verify))
        return o, keep

    def open_schunk(self, **options):
        """b2_schunk_open_with with open_options(**options): (rc, handle), handle a
        c_void_p (NULL when rc < 0). The one way this package gets a frame handle:
        flags=OPEN_CREATE (cparams=..., path=... and sparse=True for a file or a
        sparse-frame directory, none for memory), or path= (offset=) or buffer=
        (copy_buffer=) with OPEN_READONLY / OPEN_WRITE. The caller frees the handle
        (b2_schunk_free); a borrowed buffer (copy_buffer False) must outlive it:
        the handle object holds a reference to it (handle._keep)."""
        o, keep = self.open_options(**options)
        s = ctypes.c_void_p()
        rc = self.dll.b2_schunk_open_with(ctypes.byref(o), ctypes.byref(s))
        if rc >= 0 and _borrowed(options):
            s._keep = keep
        return rc, s

    def error(self, rc, what, handle_msg=None):
        """Blosc2Error for code rc: the calling thread's detailed message when it
        matches rc, else the handle's message, else b2_strerror."""
        msg = ""
        if self.dll.b2_last_error_code() == rc:
            msg = (self.dll.b2_last_error_message() or b"").decode("utf-8", "replace")
        if not msg and handle_msg:
            msg = handle_msg.decode("utf-8", "replace")
        if not msg:
            msg = (self.dll.b2_strerror(int(rc)) or b"").decode("utf-8", "replace")
        return Blosc2Error(int(rc), msg, what)

    def check(self, rc, what):
        if rc < 0:
            raise self.error(rc, what)
        return rc

    def take(self, ptr, n):
        """bytes of a malloc'ed buffer the library returned, freed afterwards."""
        try:
            return ctypes.string_at(ptr, n) if n else b""
        finally:
            if ptr:
                self._free(ptr)

    def free(self, ptr):
        if ptr:
            self._free(ptr)


def _borrowed(options):
    """Whether open options name a buffer the handle reads in place."""
    return options.get("buffer") is not None and not options.get("copy_buffer")


_lib = None
_lock = threading.Lock()


def get():
    """The loaded library (loaded on first call)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            path, where = library_path()
            tried = "%s (%s)" % (path, where)
            if not os.path.isfile(path):
                extra = "" if where == "$B2_LIBB2" else \
                    "; set B2_LIBB2 to the path of a built libb2blosc.so, or install the package"
                raise LibraryNotFoundError("libb2blosc.so not found: tried %s: no such file%s"
                                           % (tried, extra))
            why = _sanitizer_problem(path)
            if why:
                raise LibraryNotFoundError("cannot load %s: %s" % (tried, why))
            try:
                _lib = Lib(path)
            except LibraryNotFoundError:
                raise
            except OSError as e:
                raise LibraryNotFoundError("cannot load %s: %s" % (tried, e)) from e
    return _lib

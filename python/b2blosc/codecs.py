# SPDX-License-Identifier: BSD-3-Clause
"""Blosc2 codecs for numcodecs and zarr, on libb2's chunk API.

    b2blosc.codecs.Blosc2(...)      a numcodecs codec, id "b2blosc.blosc2"
    b2blosc.codecs.Blosc2Zarr(...)  a zarr v3 bytes-to-bytes codec, name "b2blosc.blosc2"

Each encoded buffer is one plain Blosc2 chunk (a 32-byte header and its blocks,
not a frame), which c-blosc2's blosc2_decompress, python-blosc2's
blosc2.decompress2 and imagecodecs' blosc2_decode read, and which both classes
read whoever wrote it (blosc2.compress2, imagecodecs.blosc2_encode, Blosc1
chunks of numcodecs.Blosc too).

Both take the same keywords, which are also their JSON configuration:

    cname      "blosclz", "lz4" (default), "lz4hc", "zlib" or "zstd"
    clevel     0 (stored uncompressed) .. 9, default 5
    filters    one filter, put in the last of the six slots as c-blosc2,
               hdf5plugin and imagecodecs put their shuffle: "nofilter" (or
               "none", "noshuffle"), "shuffle" (default), "bitshuffle", "delta",
               or its id 0..3; or a pipeline, a list of up to six filters
               applied in order, each a name or id or a [name, meta] pair:
               ["shuffle", "bytedelta"], [["trunc_prec", 12], "shuffle"].
               The configuration carries the names (ids only for filters
               libb2 has no name for).
    typesize   item size in bytes for the shuffles, or null (default): the
               input array's itemsize (numcodecs) or the zarr array's dtype
               (zarr; the stored metadata then carries the number)
    blocksize  bytes per block, 0 (default) for c-blosc2's automatic rule
    splitmode  "always", "never", "auto" or "forward_compat" (default, the
               format's; also "forward", imagecodecs' name), or 1..4
    nthreads   threads libb2 uses inside one call, default 1 (never changes the
               bytes written)

The zarr array metadata (zarr.json) then holds, e.g.:

    {"name": "b2blosc.blosc2",
     "configuration": {"cname": "zstd", "clevel": 1, "filters": "shuffle",
                       "typesize": 4, "blocksize": 0,
                       "splitmode": "forward_compat", "nthreads": 1}}

and numcodecs' get_config() the same keys plus "id": "b2blosc.blosc2".

Importing this module loads neither numcodecs nor zarr: the two classes are
made on first access (module __getattr__), each importing its own library.
doc/python-codecs.md maps these keys to imagecodecs' and numcodecs.Blosc's."""
import ctypes
import numbers
import os
import threading

from . import _bufpool, _libb2, _names

__all__ = ["Blosc2", "Blosc2Zarr", "CODEC_ID", "normalize_config", "encode", "encode_bytes",
           "decode"]

CODEC_ID = "b2blosc.blosc2"       # numcodecs' id and zarr v3's codec name alike
MAX_BUFFERSIZE = 2 ** 31 - 1 - 32  # B2_MAX_BUFFERSIZE: the largest input of one chunk
MAX_TYPESIZE = 536866816           # b2_cparams.typesize's largest value
_SPECIAL_UNINIT = 4               # B2_SPECIAL_UNINIT: decoding writes nothing
_KEYS = ("cname", "clevel", "filters", "typesize", "blocksize", "splitmode", "nthreads")
DEFAULTS = {"cname": "lz4", "clevel": 5, "filters": "shuffle", "typesize": None,
            "blocksize": 0, "splitmode": "forward_compat", "nthreads": 1}

# canonical names of filter ids, for the configuration
_ID_NAMES = {0: "nofilter", 1: "shuffle", 2: "bitshuffle", 3: "delta", 4: "trunc_prec"}
_ID_NAMES.update({v: k for k, v in _names.PIPELINE_NAMES.items()})
_SPLIT_CANON = {1: "always", 2: "never", 3: "auto", 4: "forward_compat"}


def __getattr__(name):
    # the classes need numcodecs / zarr: made on first use only
    if name == "Blosc2":
        from ._numcodecs_codec import Blosc2 as cls
    elif name == "Blosc2Zarr":
        from ._zarr_codec import Blosc2Zarr as cls
    else:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    globals()[name] = cls
    return cls


def _is_int(v):
    # numbers.Integral takes NumPy's integers and leaves out NumPy's bool
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _filter_step(step):
    """A pipeline step in canonical form: a name, an id (no name known), or a
    [name, meta] pair (JSON lists and tuples alike)."""
    meta = None
    if isinstance(step, (list, tuple)):
        if len(step) != 2:
            raise ValueError("a filter with a parameter is [name, meta], got %r" % (step,))
        step, meta = step
        if not _is_int(meta) or not -128 <= int(meta) <= 255:
            raise ValueError("filter meta must be an int in -128..255, got %r" % (meta,))
        meta = int(meta)
    if isinstance(step, bytes):
        step = step.decode("ascii", "replace")
    if isinstance(step, str):
        fid = _names.filter_by_name(step, {**_names.FILTER_NAMES, **_names.PIPELINE_NAMES})
        name = _ID_NAMES[fid] if fid is not None else step.lower()
    elif _is_int(step):
        name = _ID_NAMES.get(int(step), int(step))
    else:
        raise ValueError("a filter must be a name (%s) or an id 0..255, got %r"
                         % (", ".join(list(_names.FILTER_NAMES) + list(_names.PIPELINE_NAMES)),
                            step))
    return name if meta is None else (name, meta)


def _canon_filters(filters):
    """filters in canonical form: one name (the single value) or a tuple of steps."""
    if isinstance(filters, (str, bytes)) or _is_int(filters):
        fid = (_names.filter_by_name(filters) if isinstance(filters, (str, bytes))
               else int(filters))
        if fid is None or fid not in range(4):
            if fid == 4:
                raise ValueError("filters='trunc_prec' needs a precision (bits kept): pass "
                                 "filters=[['trunc_prec', bits]] (optionally then 'shuffle')")
            raise _names.filters_error(filters, "; or a list of up to 6 filters")
        return _ID_NAMES[fid]
    if isinstance(filters, (list, tuple)):
        if len(filters) > 6:
            raise ValueError("at most 6 filters in a pipeline, got %d" % len(filters))
        return tuple(_filter_step(s) for s in filters)
    raise _names.filters_error(filters, "; or a list of up to 6 filters")


def _filter_slots(lib, filters):
    """(filters[6], filters_meta[6]) of canonical filters, checked by libb2's
    names and ids (array._resolve_filters, save()'s rules)."""
    from .array import _resolve_filters
    if isinstance(filters, str):
        return _resolve_filters(lib, filters)
    return _resolve_filters(lib, [tuple(s) if isinstance(s, tuple) else s for s in filters])


def _int_setting(name, value, lo, hi, what):
    if not _is_int(value) or not lo <= int(value) <= hi:
        raise ValueError("%s must be %s, got %r" % (name, what, value))
    return int(value)


def normalize_config(cname=DEFAULTS["cname"], clevel=DEFAULTS["clevel"],
                     filters=DEFAULTS["filters"], typesize=DEFAULTS["typesize"],
                     blocksize=DEFAULTS["blocksize"], splitmode=DEFAULTS["splitmode"],
                     nthreads=DEFAULTS["nthreads"]):
    """The settings checked and in canonical form (a dict of the seven keys;
    filters a name or a tuple of steps). ValueError naming the valid values
    (UnknownCodecError, also a KeyError, for cname)."""
    if isinstance(cname, bytes):
        cname = cname.decode("ascii", "replace")
    if not isinstance(cname, str) or cname.lower() not in _names.CODEC_NAMES:
        raise _names.unknown_cname(cname)
    cfg = {"cname": cname.lower(),
           "clevel": _int_setting("clevel", clevel, 0, 9, "an int in 0..9"),
           "filters": _canon_filters(filters)}
    cfg["typesize"] = None if typesize is None else _int_setting(
        "typesize", typesize, 1, MAX_TYPESIZE, "null (from the data) or an int in 1..%d"
        % MAX_TYPESIZE)
    cfg["blocksize"] = _int_setting("blocksize", blocksize, 0, 2 ** 31 - 1,
                                    "0 (automatic) or a positive number of bytes below 2**31")
    if isinstance(splitmode, str) and splitmode.lower() in _names.SPLITMODE_NAMES:
        cfg["splitmode"] = _SPLIT_CANON[_names.SPLITMODE_NAMES[splitmode.lower()]]
    elif _is_int(splitmode) and int(splitmode) in _SPLIT_CANON:
        cfg["splitmode"] = _SPLIT_CANON[int(splitmode)]
    else:
        raise _names.splitmode_error(splitmode)
    cfg["nthreads"] = _int_setting("nthreads", nthreads, 1, 1024, "an int in 1..1024")
    _engine(cfg)  # libb2 checks the filters and the parameters now, not at first use
    return cfg


def config_kwargs(config, who):
    """normalize_config(**config) for a configuration read back (JSON), with an
    error naming the valid keys for an unknown one."""
    bad = sorted(set(config) - set(_KEYS))
    if bad:
        raise ValueError("%s: unknown configuration key(s) %s; valid keys: %s"
                         % (who, ", ".join(map(repr, bad)), ", ".join(_KEYS)))
    return normalize_config(**config)


def json_config(cfg):
    """The canonical settings as JSON values (tuples become lists)."""
    out = dict(cfg)
    if isinstance(out["filters"], tuple):
        out["filters"] = [list(s) if isinstance(s, tuple) else s for s in out["filters"]]
    return out


class _Engine:
    """libb2 contexts for one configuration: compression contexts per typesize
    and decompression contexts, kept in pools so that concurrent calls (zarr's
    threads) each take their own and no call pays for a new context. The pools
    belong to the process that made them: after a fork they are left alone
    (a context's worker threads do not survive a fork)."""

    def __init__(self, cfg):
        self.lib = lib = _libb2.get()
        cp = _libb2.CParams()
        lib.dll.b2_cparams_init(ctypes.byref(cp))
        cp.codec = lib.check(lib.dll.b2_codec_from_name(cfg["cname"].encode()), "codec")
        cp.clevel, cp.blocksize = cfg["clevel"], cfg["blocksize"]
        cp.splitmode = _names.SPLITMODE_NAMES[cfg["splitmode"]]
        cp.nthreads = cfg["nthreads"]
        fl, flm = _filter_slots(lib, cfg["filters"])
        for i in range(_libb2.MAX_FILTERS):
            cp.filters[i], cp.filters_meta[i] = fl[i], flm[i]
        cp.typesize = 8
        lib.check(lib.dll.b2_cparams_check(ctypes.byref(cp)), "Blosc2 parameters")
        self.cparams = cp
        self.nthreads = cfg["nthreads"]
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.cctx = {}   # typesize -> [free contexts]
        self.dctx = []

    def _take(self, typesize):
        d = self.lib.dll
        with self.lock:
            pool = self.dctx if typesize is None else self.cctx.setdefault(typesize, [])
            if pool:
                return pool.pop()
        if typesize is None:
            ctx = d.b2_dctx_new(self.nthreads)
            if not ctx:
                raise MemoryError("b2_dctx_new: out of memory")
            return ctx
        cp = _libb2.CParams()
        ctypes.pointer(cp)[0] = self.cparams
        cp.typesize = typesize
        ctx = d.b2_cctx_new(ctypes.byref(cp))
        if not ctx:
            raise _libb2.Blosc2Error(-1, (d.b2_last_error_message() or b"").decode(
                "utf-8", "replace"), "b2_cctx_new")
        return ctx

    def _give(self, typesize, ctx):
        with self.lock:
            pool = self.dctx if typesize is None else self.cctx.setdefault(typesize, [])
            if len(pool) < 64:
                pool.append(ctx)
                return
        self._free(typesize, ctx)

    def _free(self, typesize, ctx):
        if typesize is None:
            self.lib.dll.b2_dctx_free(ctx)
        else:
            self.lib.dll.b2_cctx_free(ctx)

    def __del__(self):
        if getattr(self, "pid", None) != os.getpid():
            return
        try:
            for ts, pool in list(getattr(self, "cctx", {}).items()):
                for ctx in pool:
                    self._free(ts, ctx)
            for ctx in getattr(self, "dctx", []):
                self._free(None, ctx)
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def compress(self, src, nbytes, typesize, dst, cap):
        """One chunk of nbytes at address src into dst (capacity cap); its size."""
        if nbytes > MAX_BUFFERSIZE:
            raise ValueError("a Blosc2 chunk holds at most %d bytes, got %d"
                             % (MAX_BUFFERSIZE, nbytes))
        ctx = self._take(typesize)
        try:
            n = self.lib.dll.b2_chunk_compress(ctx, src, nbytes, dst, cap)
            if n < 0:
                raise self.lib.error(n, "b2_chunk_compress", self.lib.dll.b2_cctx_last_error(ctx))
        finally:
            self._give(typesize, ctx)
        return n

    def decompress(self, src, size, dst, cap):
        ctx = self._take(None)
        try:
            n = self.lib.dll.b2_chunk_decompress(ctx, src, size, dst, cap)
            if n < 0:
                raise self.lib.error(n, "b2_chunk_decompress",
                                     self.lib.dll.b2_dctx_last_error(ctx))
        finally:
            self._give(None, ctx)
        return n


_engines = {}
_engines_lock = threading.Lock()


def _engine(cfg):
    """The engine of a configuration (canonical), made once per process."""
    key = tuple(cfg[k] for k in _KEYS if k != "typesize")
    eng = _engines.get(key)
    if eng is None or eng.pid != os.getpid():
        eng = _Engine(cfg)
        with _engines_lock:
            if len(_engines) >= 64:  # a bound on configurations kept alive
                _engines.pop(next(iter(_engines)))
            _engines[key] = eng
    return eng


def _u8(np, buf, writable=False):
    """buf (bytes, bytearray, memoryview, NumPy array...) as a flat C-contiguous
    uint8 array sharing its memory; ValueError when it has none to share."""
    if isinstance(buf, np.ndarray):
        arr = buf
    else:
        try:
            mv = memoryview(buf)
        except TypeError:
            raise TypeError("expected a bytes-like object or an array, got %s"
                            % type(buf).__name__) from None
        if not mv.c_contiguous:
            raise ValueError("the buffer is not contiguous")
        arr = np.frombuffer(mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv, np.uint8)
    if arr.dtype.hasobject:
        raise ValueError("cannot use an array of dtype %s as bytes" % arr.dtype)
    if not arr.flags.c_contiguous:
        if writable:
            raise ValueError("out must be C-contiguous")
        arr = np.ascontiguousarray(arr)
    if writable and not arr.flags.writeable:
        raise ValueError("out is read-only")
    return arr.reshape(-1).view(np.uint8)


def _encode_block(cfg, data, typesize):
    """(block, n): data's chunk in the first n bytes of a pooled block of the
    worst-case size. typesize: cfg's, else this one (the caller's item size),
    else data's itemsize when it is an array."""
    import numpy as np
    ts = cfg["typesize"] or typesize or (data.dtype.itemsize if isinstance(data, np.ndarray)
                                         else 1)
    ts = max(1, min(int(ts), MAX_TYPESIZE))
    src = _u8(np, data)
    cap = src.nbytes + 32
    dst = _bufpool.pool().take(cap)
    try:
        n = _engine(cfg).compress(src.ctypes.data, src.nbytes, ts, dst.ctypes.data, cap)
    except BaseException:
        _bufpool.pool().give(dst)
        raise
    return dst, n


def encode(cfg, data, typesize=None):
    """One Blosc2 chunk of data's bytes with the settings cfg (canonical), as a
    NumPy uint8 array (typesize as _encode_block). A chunk that fills most of
    the worst-case buffer is returned in it; a smaller one is copied out, so
    that a stored chunk does not keep the whole buffer alive (a 1 MiB buffer
    per 8 KiB chunk otherwise) and the buffer serves the next call warm."""
    dst, n = _encode_block(cfg, data, typesize)
    if n > dst.nbytes * 3 // 4:
        return dst[:n]
    out = dst[:n].copy()
    _bufpool.pool().give(dst)
    return out


def encode_bytes(cfg, data, typesize=None):
    """encode() as a bytes object."""
    dst, n = _encode_block(cfg, data, typesize)
    out = dst[:n].tobytes()
    _bufpool.pool().give(dst)
    return out


def chunk_nbytes(src):
    """The uncompressed size a chunk (flat uint8 array) declares, and whether it
    is an uninit special chunk; ValueError when it is no Blosc chunk."""
    lib = _libb2.get()
    if src.nbytes < 16:
        raise ValueError("not a Blosc2 chunk: %d bytes, a chunk has at least a 16-byte header"
                         % src.nbytes)
    info = _libb2.ChunkInfo()
    lib.check(lib.dll.b2_chunk_get_info(src.ctypes.data, src.nbytes, ctypes.byref(info)),
              "not a Blosc2 chunk")
    if info.cbytes > src.nbytes:
        raise ValueError("truncated Blosc2 chunk: its header says %d bytes, %d given"
                         % (info.cbytes, src.nbytes))
    return info.nbytes, info.special == _SPECIAL_UNINIT


def decode(cfg, data, out=None):
    """The bytes of the chunk data as a NumPy uint8 array, or written into out
    (any writable C-contiguous buffer of at least that many bytes; returned)."""
    import numpy as np
    src = _u8(np, data)
    nbytes, uninit = chunk_nbytes(src)
    if out is None:
        dst = np.zeros(nbytes, np.uint8) if uninit else _bufpool.pool().lease(nbytes)
    else:
        dst = _u8(np, out, writable=True)
        if dst.nbytes < nbytes:
            raise ValueError("out has %d bytes, the chunk holds %d" % (dst.nbytes, nbytes))
    _engine(cfg).decompress(src.ctypes.data, src.nbytes, dst.ctypes.data, dst.nbytes)
    return dst if out is None else out

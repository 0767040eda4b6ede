# SPDX-License-Identifier: BSD-3-Clause
"""`.b2nd` and `.b2frame` files as NumPy arrays, through libb2 (ctypes, _libb2.py).

    import b2blosc
    a = b2blosc.open("temps.b2nd")     # B2ndArray: shape, dtype, chunks, blocks, meta, vlmeta
    box = a[10:20, ::2, -1]            # decodes only the blocks this box touches
    whole = numpy.asarray(a)
    b2blosc.save(numpy.arange(1e6).reshape(1000, 1000), "x.b2nd", cname="zstd", clevel=5,
                 filters=b2blosc.array.SHUFFLE)

open(path) looks at the content, not the name: a contiguous frame file or a
sparse-frame directory whose super-chunk has a "b2nd" (or legacy "caterva")
metalayer opens as a B2ndArray; any other frame as a FrameArray, the 1-D array of
the frame's items:
  * the item size is the frame's typesize; items of 1, 2, 4 or 8 bytes read as
    little-endian unsigned integers (uint8, '<u2', '<u4', '<u8'), other sizes as
    opaque '|V<typesize>' items (view them with .view(dtype) as needed);
  * when the frame's nbytes is not a multiple of its typesize the items are bytes (uint8).

Indexing takes NumPy basic indices (ints, slices with any step, Ellipsis,
numpy.newaxis); it reads the bounding box of the selection with one C call
(b2_nd_get_slice_cbuffer / b2_schunk_get_items), then applies steps in NumPy.
Results are new arrays, never views of the file; an index of ints only gives a
NumPy scalar, as NumPy does.

A B2ndArray also takes index lists: a[[1, 5, 9], 2:7] (lists or 1-d integer arrays,
any order, repeats allowed, negative from the end; 1-d boolean masks as their
True positions) is the orthogonal selection, NumPy's a[np.ix_(...)] with slices
and ints taken as lists of their indices (an int's dimension is then dropped).
With one list this is what NumPy gives; with several, NumPy would pair the lists
point by point, which this does not. One C call
(b2_nd_get_orthogonal_selection) decodes only the blocks holding selected items.
numpy.newaxis cannot be combined with lists. FrameArray refuses lists with
IndexError.

B2ndArray.dtype is NumPy's reading of the dtype string stored in the b2nd
metalayer ('<f8', '>i4', "[('x', '<f4'), ('y', '<i2')]", ...); when the string
does not parse or its itemsize differs from the frame's typesize (c-blosc2's
own examples store '|u1' for 4-byte items) the items are '|V<typesize>'; the
stored string stays in .dtype_label.

save() writes the array (C order, a contiguous copy made when needed) and
returns it opened read-only (close it, or use `with`). Fixed metalayers and
vlmetalayers read as bytes; vlmeta.unpack(name) decodes python-blosc2's msgpack.

open(path, "r+") opens a frame without b2nd metalayer writable: `f[i] = v` and
`f[start:stop] = values` (step 1; values broadcast to the range) write items
across chunks with one C call (b2_schunk_set_items), which rewrites only the
chunks touched and commits once. refresh() on either kind takes what another
writer committed since the file was opened (b2_schunk_refresh / b2_nd_refresh:
new shape, items, metalayers) and returns whether anything changed; without it
an open array keeps showing the state it opened.

Errors: a libb2 failure (truncated, corrupt or non-Blosc2 file, ...) raises
Blosc2Error, a ValueError carrying .code (the negative B2_ERR_* code), .name and
.message (the library's detailed message); a missing path raises
FileNotFoundError; a library that cannot be found or loaded raises
LibraryNotFoundError (an OSError). NumPy and libb2 are loaded on first use.

What open() refuses, with a Blosc2Error whose message (and .kind) names it:
python-blosc2's containers built of frames, whose frames would otherwise read
as index bytes or zeros: its stores (EmbedStore .b2e; DictStore, TreeStore and
CTable as a .b2d directory or a .b2z zip, and the embed.b2e/_meta.b2f frames
inside them), BatchArray, ObjectArray and ListArray (variable-length blocks),
saved lazy expressions and UDFs (the b2o or LazyArray metalayer), Proxy and
RemoteArray caches. python-blosc2 (blosc2.open) reads those. An HDF5 file is
refused pointing at h5py and b2blosc.h5; a NumPy .npy, a netCDF classic file, a
gzip/zstd/xz/bzip2-compressed file, a Zarr store and a lone Blosc2 chunk are
refused naming what they are and what reads them."""
import ast
import ctypes
import operator
import os

from ._libb2 import Blosc2Error, LibraryNotFoundError  # noqa: F401  (re-exported)
from . import _libb2
from . import _names  # the setting names, shared with Blosc2()

__all__ = ["open", "save", "B2ndArray", "FrameArray", "Blosc2Error", "LibraryNotFoundError", "msgpack_unpack",
           "UnknownCodecError", "NOFILTER", "SHUFFLE", "BITSHUFFLE", "DELTA", "TRUNC_PREC"]

# hdf5plugin's single filter values (Blosc2.NOFILTER ... TRUNC_PREC)
NOFILTER, SHUFFLE, BITSHUFFLE, DELTA, TRUNC_PREC = 0, 1, 2, 3, 4
CODEC_NAMES = _names.CODEC_NAMES
UnknownCodecError = _names.UnknownCodecError


def _list_names():
    """The names a list of filters takes, for the errors that must list them."""
    return ", ".join(list(_names.FILTER_NAMES) + list(_names.PIPELINE_NAMES))


def _list_hint():
    return "; or a list of up to 6 filter names (%s) or ids" % _list_names()


_builtin_open = open


def _np():
    import numpy
    return numpy


def _lib():
    return _libb2.get()


# ---- metalayer mappings ----

class _MetaMapping:
    """Read-only mapping name -> bytes over a super-chunk's metalayers (fixed
    ones: meta) or variable-length ones (vlmeta). Values are read on access."""

    def __init__(self, owner, vl):
        self._owner, self._vl = owner, vl

    def keys(self):
        s = self._owner._schunk_handle()
        d = _lib().dll
        count = (d.b2_schunk_vlmeta_count if self._vl else d.b2_schunk_meta_count)(s)
        name = d.b2_schunk_vlmeta_name if self._vl else d.b2_schunk_meta_name
        out = []
        for i in range(max(0, count)):
            n = name(s, i)
            if n is not None:
                out.append(n.decode("utf-8", "replace"))
        return out

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def __contains__(self, name):
        return name in self.keys()

    def __getitem__(self, name):
        if not isinstance(name, str) or name not in self.keys():
            raise KeyError(name)
        lib = _lib()
        s = self._owner._schunk_handle()
        fn = lib.dll.b2_schunk_vlmeta_get if self._vl else lib.dll.b2_schunk_meta_get
        buf, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_int32()
        lib.check(fn(s, name.encode("utf-8"), ctypes.byref(buf), ctypes.byref(n)),
                  "%s %r" % ("vlmetalayer" if self._vl else "metalayer", name))
        return lib.take(buf, n.value)

    def unpack(self, name):
        """The value of name decoded as msgpack (python-blosc2 stores its
        vlmetalayers so): None, bool, int, float, str, bytes, list, dict; an
        extension type gives (code, bytes). ValueError if it is not one msgpack value."""
        return msgpack_unpack(self[name])

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def values(self):
        return [self[k] for k in self.keys()]

    def __repr__(self):
        return "{%s}" % ", ".join("%r: <%d bytes>" % (k, len(v)) for k, v in self.items())


def msgpack_unpack(data):
    """Decode one msgpack value (the whole of data) with Debian's python3-msgpack.
    Extension types give (code, bytes); any malformed input raises ValueError."""
    try:
        import msgpack
    except ImportError:
        raise ImportError("vlmeta.unpack needs the msgpack package (Debian: python3-msgpack)") from None
    try:
        return msgpack.unpackb(bytes(data), raw=False, strict_map_key=False,
                               ext_hook=lambda code, body: (code, body))
    except (ValueError, TypeError) as e:  # TypeError: a list or map used as a map key
        raise ValueError("msgpack: %s" % (e or type(e).__name__)) from None


# ---- indexing ----

def _has_list(key):
    """Whether an index holds a list or an array (an orthogonal selection)."""
    np = _np()
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, list) or (isinstance(k, np.ndarray) and k.ndim >= 1) for k in keys)


def _selection_lists(key, shape):
    """An index with lists -> (one int64 index array per dimension, the
    dimensions given as ints, which the result drops)."""
    np = _np()
    key = key if isinstance(key, tuple) else (key,)
    if any(k is None for k in key):
        raise IndexError("numpy.newaxis (None) cannot be combined with index lists")
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_real = len(key) - n_ell
    if n_real > len(shape):
        raise IndexError("too many indices for array: array is %d-dimensional, but %d were indexed"
                         % (len(shape), n_real))
    fill = [slice(None)] * (len(shape) - n_real)
    expanded = []
    for k in key:
        expanded.extend(fill if k is Ellipsis else [k])
    if n_ell == 0:
        expanded.extend(fill)
    lists, drop = [], []
    for dim, (k, n) in enumerate(zip(expanded, shape)):
        if isinstance(k, slice):
            idx = np.arange(*k.indices(n), dtype=np.int64)
        elif isinstance(k, (list, np.ndarray)):
            a = np.asarray(k)
            if a.dtype.kind == "b":
                if a.shape != (n,):
                    raise IndexError("boolean index of shape %s for axis %d with size %d" % (a.shape, dim, n))
                idx = np.nonzero(a)[0].astype(np.int64)
            elif a.size == 0 and a.ndim == 1:
                idx = np.empty(0, dtype=np.int64)
            elif a.ndim == 1 and a.dtype.kind in "iu":
                idx = a.astype(np.int64)
            else:
                raise IndexError("index lists must be 1-d lists of integers or booleans; got %s of %s"
                                 % (a.shape, a.dtype))
            bad = (idx < -n) | (idx >= n)
            if bad.any():
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (idx[bad][0], dim, n))
        else:
            if isinstance(k, bool):
                raise IndexError("a boolean scalar is not a valid index")
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`) and index lists are "
                                 "valid indices; got %r" % type(k).__name__) from None
            if i < -n or i >= n:
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, dim, n))
            idx = np.array([i], dtype=np.int64)
            drop.append(dim)
        lists.append(np.ascontiguousarray(idx))
    return lists, tuple(drop)


def _parse_key(key, shape):
    """Basic NumPy index -> (box start, box stop, index into the box array,
    whether the result is a scalar: ints only, as NumPy gives for a[1, 2])."""
    if not isinstance(key, tuple):
        key = (key,)
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > len(shape):
        raise IndexError("too many indices for array: array is %d-dimensional, but %d were indexed"
                         % (len(shape), n_real))
    expanded = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - n_real))
        else:
            expanded.append(k)
    if n_ell == 0:
        expanded.extend([slice(None)] * (len(shape) - n_real))
    start, stop, post = [], [], []
    dim = 0
    for k in expanded:
        if k is None:
            post.append(None)
            continue
        n = shape[dim]
        if isinstance(k, slice):
            b, e, st = k.indices(n)
            cnt = len(range(b, e, st))
            if cnt == 0:
                start.append(0)
                stop.append(0)
                post.append(slice(0, 0))
            else:
                last = b + (cnt - 1) * st
                lo, hi = min(b, last), max(b, last) + 1
                start.append(lo)
                stop.append(hi)
                post.append(slice(b - lo, None, st) if st < 0 else slice(0, hi - lo, st))
        else:
            if isinstance(k, bool) or (hasattr(k, "dtype") and getattr(k.dtype, "kind", "") == "b"):
                raise IndexError("boolean indices are not supported (basic slicing only)")
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`) and numpy.newaxis "
                                 "(`None`) are valid indices; got %r" % type(k).__name__) from None
            if i < -n or i >= n:
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, dim, n))
            if i < 0:
                i += n
            start.append(i)
            stop.append(i + 1)
            post.append(0)
        dim += 1
    scalar = n_ell == 0 and all(p is not None and not isinstance(p, slice) for p in post)
    return start, stop, tuple(post), scalar


class _ArrayBase:
    """What B2ndArray and FrameArray share: indexing, conversion, closing."""

    _handle = None

    def _check_open(self):
        if not self._handle:
            raise ValueError("I/O operation on a closed array (%s)" % self.path)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def cbytes(self):
        """Stored (compressed) bytes."""
        return int(_lib().dll.b2_schunk_cbytes(self._schunk_handle()))

    @property
    def cparams(self):
        """The compression parameters the frame records, as a dict."""
        return _cparams_dict(_lib().dll.b2_schunk_cparams(self._schunk_handle()))

    @property
    def nbytes(self):
        """Uncompressed size of the items: size * itemsize (NumPy's meaning)."""
        return self.size * self.dtype.itemsize

    @property
    def meta(self):
        """Fixed metalayers: read-only mapping name -> bytes."""
        return _MetaMapping(self, False)

    @property
    def vlmeta(self):
        """Variable-length metalayers: read-only mapping name -> bytes, as stored
        (decompressed); vlmeta.unpack(name) decodes python-blosc2's msgpack values."""
        return _MetaMapping(self, True)

    metalayers = meta
    vlmetalayers = vlmeta

    @property
    def nchunks(self):
        """Number of chunks of the super-chunk."""
        return int(_lib().dll.b2_schunk_nchunks(self._schunk_handle()))

    def get_chunk(self, i):
        """Stored bytes of chunk i as one complete Blosc2 chunk (a b2nd array's
        chunks are in C order over the chunk grid, each padded to the chunk
        shape). For an HDF5 chunk of filter 32026 use chunk_frame(i): the
        reference filter reads b2nd frames there."""
        lib = _lib()
        s = self._schunk_handle()
        n = self.nchunks
        i = operator.index(i)
        if not -n <= i < n:
            raise IndexError("chunk %d out of range (%d chunks)" % (i, n))
        buf, cb = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_int32()
        rc = lib.dll.b2_schunk_get_chunk(s, i % n, ctypes.byref(buf), ctypes.byref(cb))
        if rc < 0:
            raise lib.error(rc, "reading chunk %d of %s" % (i, self.path), lib.dll.b2_schunk_last_error(s))
        return lib.take(buf, cb.value)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, key):
        np = _np()
        start, stop, post, scalar = _parse_key(key, self.shape)
        box = self._read_box(start, stop)
        if scalar:
            res = box[post]
            return res[()] if isinstance(res, np.ndarray) else res
        return box[post + (Ellipsis,)]   # an array, 0-d too (a[..., 0] of a 1-d array)

    def __array__(self, dtype=None, copy=None):
        a = self._read_box([0] * self.ndim, list(self.shape))
        if dtype is not None and a.dtype != dtype:
            a = a.astype(dtype)
        return a

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def refresh(self):
        """Take what a writer committed to the file since it was opened (or last
        refreshed): shape, items, metalayers. Returns True if anything changed."""
        self._check_open()
        lib = _lib()
        rc = self._refresh_call(lib.dll)
        if rc < 0:
            raise lib.error(rc, "refreshing %s" % self.path, self._last_error(lib.dll))
        if rc > 0:
            self.__init__(self.path, self._handle)
        return rc > 0

    def close(self):
        """Free the handle (later reads raise ValueError); closing twice is fine."""
        h, self._handle = self._handle, None
        if h:
            self._free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        if not self._handle:
            return "<%s %s (closed)>" % (type(self).__name__, self.path)
        return self._repr()


def _parse_dtype(label, typesize, fmt):
    """NumPy dtype for a b2nd dtype label; '|V<typesize>' when it cannot be
    parsed or does not match the frame's typesize."""
    np = _np()
    fallback = np.dtype("V%d" % typesize) if typesize > 0 else np.dtype("V1")
    if fmt != 0 or not label:
        return fallback
    dt = None
    try:
        dt = np.dtype(label)
    except Exception:
        try:
            dt = np.dtype(ast.literal_eval(label))
        except Exception:
            dt = None
    if dt is None or dt.itemsize != typesize or dt.hasobject:
        return fallback
    return dt


class B2ndArray(_ArrayBase):
    """A b2nd N-d array opened read-only from a frame file or sparse-frame directory.

    shape, dtype, ndim, chunks, blocks, nbytes (uncompressed, size*itemsize),
    cbytes (compressed chunks section), dtype_label (the string stored in the
    metalayer), meta/metalayers and vlmeta/vlmetalayers (name -> bytes), cparams
    (codec, clevel, filters of the super-chunk), blocks_decoded (counter of
    blocks decoded so far: for checking partial reads)."""

    def __init__(self, path, handle):
        lib = _lib()
        self.path = path
        d = lib.dll
        nd = d.b2_nd_ndim(handle)
        sh, ch, bl = d.b2_nd_shape(handle), d.b2_nd_chunkshape(handle), d.b2_nd_blockshape(handle)
        self.shape = tuple(int(sh[i]) for i in range(nd))
        self.chunks = tuple(int(ch[i]) for i in range(nd))
        self.blocks = tuple(int(bl[i]) for i in range(nd))
        typesize = int(d.b2_nd_typesize(handle))
        label = d.b2_nd_dtype(handle)
        self.dtype_label = label.decode("utf-8", "replace") if label else ""
        fmt = 0
        s = d.b2_nd_schunk(handle)
        for name in (b"b2nd", b"caterva"):
            buf, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_int32()
            if d.b2_schunk_meta_get(s, name, ctypes.byref(buf), ctypes.byref(n)) >= 0:
                raw = lib.take(buf, n.value)
                m = _libb2.NDMeta()
                if d.b2_nd_meta_decode(raw, len(raw), ctypes.byref(m)) >= 0:
                    fmt = m.dtype_format
                    d.b2_nd_meta_clear(ctypes.byref(m))
                break
        self.dtype = _parse_dtype(self.dtype_label, typesize, fmt)
        self._handle = handle   # last: a failed __init__ leaves the handle to open()

    def _schunk_handle(self):
        self._check_open()
        return _lib().dll.b2_nd_schunk(self._handle)

    def _free(self, h):
        _lib().dll.b2_nd_free(h)

    def _refresh_call(self, d):
        return d.b2_nd_refresh(self._handle)

    def _last_error(self, d):
        return d.b2_nd_last_error(self._handle)

    @property
    def blocks_decoded(self):
        self._check_open()
        return int(_lib().dll.b2_nd_blocks_decoded(self._handle))

    def set_nthreads(self, n):
        """Threads used by later reads."""
        self._check_open()
        _lib().check(_lib().dll.b2_nd_set_nthreads(self._handle, int(n)), "set_nthreads")

    def chunk_frame(self, i):
        """Chunk i (C order over the chunk grid) as a complete one-chunk b2nd
        frame of the chunk's shape, its stored bytes copied without recompressing:
        what python-blosc2 and hdf5plugin store as one HDF5 chunk of filter 32026
        (h5py: dataset with chunks=self.chunks, ds.id.write_direct_chunk)."""
        lib = _lib()
        d = lib.dll
        chunk = self.get_chunk(i)
        s = self._schunk_handle()
        name = b"b2nd" if "b2nd" in self.meta else b"caterva"
        raw = self.meta[name.decode()]
        m = _libb2.NDMeta()
        lib.check(d.b2_nd_meta_decode(raw, len(raw), ctypes.byref(m)), "decoding the b2nd metalayer")
        try:
            for k in range(m.ndim):
                m.shape[k] = m.chunkshape[k]
            buf, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_int32()
            lib.check(d.b2_nd_meta_encode(ctypes.byref(m), ctypes.byref(buf), ctypes.byref(n)),
                      "encoding the b2nd metalayer")
            meta = lib.take(buf, n.value)
        finally:
            d.b2_nd_meta_clear(ctypes.byref(m))
        cp = _libb2.CParams()
        ctypes.memmove(ctypes.byref(cp), d.b2_schunk_cparams(s), ctypes.sizeof(cp))
        cp.registry = None
        rc, one = lib.open_schunk(flags=_libb2.OPEN_CREATE, cparams=cp)
        if rc < 0:
            raise lib.error(rc, "making a one-chunk frame")
        try:
            lib.check(d.b2_schunk_meta_add(one, b"b2nd", meta, len(meta)), "adding the b2nd metalayer")
            lib.check(d.b2_schunk_append_chunk(one, chunk, len(chunk)), "appending chunk %d" % i)
            buf, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_size_t()
            lib.check(d.b2_schunk_to_buffer(one, ctypes.byref(buf), ctypes.byref(n)), "serializing the frame")
            return lib.take(buf, n.value)
        finally:
            d.b2_schunk_free(one)

    def _read_box(self, start, stop):
        np = _np()
        self._check_open()
        shape = tuple(b - a for a, b in zip(start, stop))
        out = np.empty(shape, dtype=self.dtype)
        if out.size == 0:
            return out
        lib = _lib()
        nd = max(1, len(start))
        s = (ctypes.c_int64 * nd)(*start)
        e = (ctypes.c_int64 * nd)(*stop)
        if list(start) == [0] * len(start) and tuple(stop) == self.shape:
            rc = lib.dll.b2_nd_to_cbuffer(self._handle, out.ctypes.data, out.nbytes)
            what = "reading %s" % self.path
        else:
            rc = lib.dll.b2_nd_get_slice_cbuffer(self._handle, s, e, out.ctypes.data, out.nbytes)
            what = "reading box %s..%s of %s" % (list(start), list(stop), self.path)
        if rc < 0:
            raise lib.error(rc, what, lib.dll.b2_nd_last_error(self._handle))
        return out

    def __getitem__(self, key):
        if not _has_list(key):
            return super().__getitem__(key)
        np = _np()
        self._check_open()
        lists, drop = _selection_lists(key, self.shape)
        out = np.empty(tuple(len(x) for x in lists), dtype=self.dtype)
        if out.size:
            lib = _lib()
            nd = len(lists)
            p64 = ctypes.POINTER(ctypes.c_int64)
            sel = (p64 * nd)(*[x.ctypes.data_as(p64) for x in lists])
            n = (ctypes.c_int64 * nd)(*[len(x) for x in lists])
            rc = lib.dll.b2_nd_get_orthogonal_selection(self._handle, sel, n, out.ctypes.data, out.nbytes)
            if rc < 0:
                raise lib.error(rc, "reading a selection of %s" % self.path, lib.dll.b2_nd_last_error(self._handle))
        return out.reshape(tuple(s for d, s in enumerate(out.shape) if d not in drop))

    def _repr(self):
        return "<B2ndArray %s shape=%s dtype=%s chunks=%s blocks=%s cbytes=%d>" % (
            self.path, self.shape, self.dtype.str if self.dtype.fields is None else self.dtype,
            self.chunks, self.blocks, self.cbytes)


class FrameArray(_ArrayBase):
    """The items of a super-chunk without b2nd metalayer, as a 1-D array
    (see the module docstring for the dtype chosen). chunks is (items per chunk,)
    when all chunks have one size, else None; cbytes, meta, vlmeta, cparams, nchunks."""

    def __init__(self, path, handle):
        np = _np()
        lib = _lib()
        self.path = path
        d = lib.dll
        nbytes = int(d.b2_schunk_nbytes(handle))
        ts = int(d.b2_schunk_typesize(handle))
        if ts <= 0 or nbytes % ts:
            ts = 1
        self._by_items = ts == int(d.b2_schunk_typesize(handle))
        self.dtype = np.dtype({1: "u1", 2: "<u2", 4: "<u4", 8: "<u8"}.get(ts, "V%d" % ts))
        self.shape = (nbytes // ts,)
        cs = int(d.b2_schunk_chunksize(handle))
        self.chunks = (cs // ts,) if cs > 0 and cs % ts == 0 else None
        self.blocks = None
        self._handle = handle   # last: a failed __init__ leaves the handle to open()

    def _schunk_handle(self):
        self._check_open()
        return self._handle

    def _free(self, h):
        _lib().dll.b2_schunk_free(h)

    def _refresh_call(self, d):
        return d.b2_schunk_refresh(self._handle)

    def _last_error(self, d):
        return d.b2_schunk_last_error(self._handle)

    def __setitem__(self, key, value):
        """f[i] = v or f[start:stop] = values (step 1): b2_schunk_set_items.
        Needs open(path, "r+")."""
        np = _np()
        self._check_open()
        n_all = self.shape[0]
        if isinstance(key, slice):
            start, stop, step = key.indices(n_all)
            if step != 1:
                raise IndexError("FrameArray writes take slices of step 1, not %d" % step)
            stop = max(start, stop)
        else:
            try:
                i = operator.index(key)
            except TypeError:
                raise IndexError("FrameArray writes take an int or a slice of step 1, not %r"
                                 % (key,)) from None
            if not -n_all <= i < n_all:
                raise IndexError("index %d out of range for %d items" % (i, n_all))
            start = i % n_all
            stop = start + 1
        if not self._by_items:
            raise ValueError("%s: its nbytes are not a multiple of its typesize; items cannot "
                             "be written" % self.path)
        src = np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=self.dtype),
                                                   (stop - start,)))
        lib = _lib()
        rc = lib.dll.b2_schunk_set_items(self._handle, start, stop - start, src.ctypes.data,
                                         src.nbytes)
        if rc < 0:
            raise lib.error(rc, "writing items %d..%d of %s" % (start, stop, self.path),
                            lib.dll.b2_schunk_last_error(self._handle))

    def _read_box(self, start, stop):
        np = _np()
        self._check_open()
        lib = _lib()
        n = stop[0] - start[0]
        out = np.zeros(n, dtype=self.dtype)   # uninit chunks leave their items as zeros
        if n == 0:
            return out
        what = "reading items %d..%d of %s" % (start[0], stop[0], self.path)
        if self._by_items:
            rc = lib.dll.b2_schunk_get_items(self._handle, start[0], n, out.ctypes.data, out.nbytes)
            if rc < 0:
                raise lib.error(rc, what, lib.dll.b2_schunk_last_error(self._handle))
            return out
        # bytes whose total is not a multiple of the typesize: chunk by chunk
        raw = out.view(np.uint8)
        pos = 0
        for i in range(self.nchunks):
            cn = lib.dll.b2_schunk_chunk_nbytes(self._handle, i)
            if cn < 0:
                raise lib.error(cn, what, lib.dll.b2_schunk_last_error(self._handle))
            lo, hi = max(start[0], pos), min(stop[0], pos + cn)
            if lo < hi:
                buf = np.zeros(cn, dtype=np.uint8)
                rc = lib.dll.b2_schunk_decompress_chunk(self._handle, i, buf.ctypes.data, cn)
                if rc < 0:
                    raise lib.error(rc, what, lib.dll.b2_schunk_last_error(self._handle))
                raw[lo - start[0]:hi - start[0]] = buf[lo - pos:hi - pos]
            pos += cn
            if pos >= stop[0]:
                break
        return out

    def _repr(self):
        return "<FrameArray %s shape=%s dtype=%s nchunks=%d cbytes=%d>" % (
            self.path, self.shape, self.dtype.str, self.nchunks, self.cbytes)


def _cparams_dict(p):
    if not p:
        return None
    c = p.contents
    lib = _lib()
    name = lib.dll.b2_codec_name(c.codec)
    return {"cname": name.decode() if name else c.codec, "codec": c.codec, "clevel": c.clevel,
            "typesize": c.typesize, "blocksize": c.blocksize,
            "filters": list(c.filters), "filters_meta": list(c.filters_meta)}


# ---- python-blosc2 objects b2blosc does not read ----
#
# python-blosc2 (4.x) builds containers out of frames: stores, tables, arrays of
# variable-length blocks and saved expressions. Their frames are valid, so
# without a look at their markers they would open as a FrameArray of index
# bytes or a b2nd carrier of zeros. Each is named and refused instead
# (doc: python-blosc2's schunk.open / process_opened_object dispatch on these).

# fixed metalayer -> what the frame is
_PY_META_KINDS = (
    ("b2embed", "a python-blosc2 EmbedStore (.b2e)"),
    ("b2dict", "the index frame (embed.b2e) of a python-blosc2 DictStore"),
    ("b2tree", "the index frame (embed.b2e) of a python-blosc2 TreeStore"),
    ("b2remote_store", "a python-blosc2 RemoteStore (b2remote_store metalayer)"),
    ("batcharray", "a python-blosc2 BatchArray (batcharray metalayer, variable-length blocks)"),
    ("vlarray", "a python-blosc2 ObjectArray (vlarray metalayer, variable-length blocks)"),
    ("listarray", "a python-blosc2 ListArray (listarray metalayer, variable-length blocks)"),
    ("LazyArray", "a saved lazy expression (LazyArray metalayer)"),
    ("proxy-source", "a python-blosc2 Proxy cache (proxy-source metalayer)"),
)
# the "kind" inside a b2o metalayer -> what the frame is
_B2O_KINDS = {
    "lazyexpr": "a saved lazy expression (b2o metalayer, a python-blosc2 LazyExpr)",
    "lazyudf": "a saved lazy UDF (b2o metalayer, a python-blosc2 LazyUDF)",
    "c2array": "a saved python-blosc2 C2Array reference (b2o metalayer)",
    "remote_array": "a python-blosc2 RemoteArray cache (b2o metalayer)",
}
_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")
# other files people pass to open() by mistake: (leading bytes, kind, what reads it);
# a Blosc2 frame starts with 0x9e, so none of these can be one
_OTHER_SIGNATURES = (
    (b"\x93NUMPY", "a NumPy .npy file", "read it with numpy.load"),
    (b"CDF\x01", "a netCDF classic file", "read it with netCDF4 or xarray"),
    (b"CDF\x02", "a netCDF 64-bit offset file", "read it with netCDF4 or xarray"),
    (b"CDF\x05", "a netCDF 64-bit data (CDF-5) file", "read it with netCDF4 or xarray"),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it first (gzip -d)"),
    (b"\x28\xb5\x2f\xfd", "a Zstandard-compressed file", "decompress it first (zstd -d)"),
    (b"\xfd7zXZ\x00", "an xz-compressed file", "decompress it first (xz -d)"),
    (tuple(b"BZh%d" % i for i in range(1, 10)), "a bzip2-compressed file",
     "decompress it first (bzip2 -d)"),
)
_ZARR_MARKERS = (".zarray", ".zgroup", "zarr.json")
# kinds refused with a pointer at what reads them: kind -> what to do
_OTHER_READERS = {kind: todo for _sig, kind, todo in _OTHER_SIGNATURES}
_OTHER_READERS["a Zarr store"] = "read it with zarr"
_OTHER_READERS["a single Blosc2 chunk"] = (
    "decompress it with python-blosc2 (blosc2.decompress2); `b2 info` describes it")


def _mp_str_after(buf, key):
    """The msgpack string following the msgpack string key in buf (a small map
    such as b2o's {"kind": ..., "version": 1}), or None. No msgpack needed."""
    k = key.encode()
    i = buf.find(bytes([0xa0 | len(k)]) + k)
    if i < 0:
        return None
    i += 1 + len(k)
    if i < len(buf) and 0xa0 <= buf[i] <= 0xbf:
        n, i = buf[i] & 0x1f, i + 1
    elif i + 1 < len(buf) and buf[i] == 0xd9:
        n, i = buf[i + 1], i + 2
    else:
        return None
    return buf[i:i + n].decode("utf-8", "replace")


def _schunk_blob(d, s, name, vl):
    """A metalayer's (vl: vlmetalayer's) bytes, or None."""
    fn = d.b2_schunk_vlmeta_get if vl else d.b2_schunk_meta_get
    buf, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_int32()
    if fn(s, name, ctypes.byref(buf), ctypes.byref(n)) < 0:
        return None
    return _lib().take(buf, n.value)


def _python_kind(d, s):
    """What python-blosc2 object the open super-chunk s is, or None for a plain
    frame or b2nd array."""
    names = set()
    for i in range(max(0, d.b2_schunk_meta_count(s))):
        n = d.b2_schunk_meta_name(s, i)
        if n is not None:
            names.add(n.decode("utf-8", "replace"))
    for meta, kind in _PY_META_KINDS:
        if meta in names:
            return kind
    if "b2o" in names:
        k = _mp_str_after(_schunk_blob(d, s, b"b2o", False) or b"", "kind")
        return _B2O_KINDS.get(k, "a saved python-blosc2 object (b2o metalayer, kind %r)" % k)
    # a CTable's manifest (_meta.b2f): no metalayer, vlmeta kind "ctable"
    if _schunk_blob(d, s, b"kind", True) == b"\xa6ctable":
        return "the manifest (_meta.b2f) of a python-blosc2 CTable"
    return None


def _frame_kind(path, offset=0):
    """_python_kind of the frame at offset in path; None when it does not open."""
    lib = _lib()
    d = lib.dll
    rc, s = lib.open_schunk(path=path, offset=offset, flags=_libb2.OPEN_READONLY)
    if rc < 0:
        return None
    try:
        return _python_kind(d, s)
    finally:
        d.b2_schunk_free(s)


def _store_kind(index_kind, is_ctable, form):
    """A store named from its embed.b2e's kind; form says .b2d or .b2z."""
    if is_ctable:
        name = "CTable"
    elif index_kind and "TreeStore" in index_kind:
        name = "TreeStore"
    elif index_kind and "DictStore" in index_kind:
        name = "DictStore"
    else:
        name = "DictStore or TreeStore"
    return "a python-blosc2 %s (%s)" % (name, form)


def _zip_kind(path):
    """A .b2z store is a zip of uncompressed frames with embed.b2e among them."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {i.filename: i for i in zf.infolist()}
    except (zipfile.BadZipFile, OSError) as e:
        return "a zip file that does not read as one (%s)" % e
    if "embed.b2e" not in infos:
        return "a zip file without embed.b2e (not a Blosc2 frame, nor a python-blosc2 store)"

    def member_kind(name):
        info = infos.get(name)
        if info is None or info.compress_type != zipfile.ZIP_STORED:
            return None
        with _builtin_open(path, "rb") as f:   # where the member's bytes start
            f.seek(info.header_offset)
            head = f.read(30)
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            return None
        start = info.header_offset + 30 + int.from_bytes(head[26:28], "little") + \
            int.from_bytes(head[28:30], "little")
        return _frame_kind(path, start)
    ctable = member_kind("_meta.b2f")
    return _store_kind(member_kind("embed.b2e"), bool(ctable and "CTable" in ctable),
                       ".b2z, a zip of frames")


def _container_kind(path):
    """What path is when it is no Blosc2 frame we read: an HDF5 file, a
    python-blosc2 store (zip or directory); None otherwise (then it is opened,
    and its frame looked at by _python_kind)."""
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, "chunks.b2frame")):
            return None   # a sparse frame
        if any(os.path.exists(os.path.join(path, m)) for m in _ZARR_MARKERS):
            return "a Zarr store"
        if not os.path.isfile(os.path.join(path, "embed.b2e")):
            return None
        meta = os.path.join(path, "_meta.b2f")
        ctable = _frame_kind(meta) if os.path.isfile(meta) else None
        return _store_kind(_frame_kind(os.path.join(path, "embed.b2e")),
                           bool(ctable and "CTable" in ctable), ".b2d, a directory of frames")
    with _builtin_open(path, "rb") as f:
        head = f.read(8)
        if head[:4] in _ZIP_SIGNATURES:
            return _zip_kind(path)
        for sig, kind, _reader in _OTHER_SIGNATURES:
            if head.startswith(sig):
                return kind
        # HDF5's superblock is at 0, 512, 1024, 2048, ... (the HDF5 spec; b2_inspect_path)
        off = 0
        while True:
            if head == _HDF5_SIGNATURE:
                return "an HDF5 file"
            off = 512 if off == 0 else off * 2
            f.seek(off)
            head = f.read(8)
            if len(head) < 8:
                return None


_KIND_CHUNK = 1  # B2_KIND_CHUNK (b2_frame.h)


def _refuse(path, kind):
    """The error for a python-blosc2 object, an HDF5 file or a zip: names it and
    says what reads it."""
    if kind == "an HDF5 file":
        text = ("an HDF5 file, not a Blosc2 file: read its datasets with h5py (importing "
                "b2blosc registers the Blosc2 filter with it) or b2blosc.h5.read")
        code = -15  # B2_ERR_FORMAT
    elif kind.startswith("a zip file"):
        text, code = kind + "; b2blosc.open reads Blosc2 frames and b2nd arrays", -15
    elif kind in _OTHER_READERS:
        text = ("%s, not a Blosc2 file: b2blosc.open reads Blosc2 frames and b2nd arrays; "
                "%s" % (kind, _OTHER_READERS[kind]))
        code = -15  # B2_ERR_FORMAT
    else:
        text = ("%s; b2blosc.open reads Blosc2 frames and b2nd arrays only: open it with "
                "python-blosc2 (blosc2.open)" % kind)
        if ".b2d" in kind:
            text += " (the .b2nd files inside are arrays b2blosc.open reads)"
        code = -5   # B2_ERR_UNSUPPORTED
    e = Blosc2Error(code, text, "opening %s" % path)
    e.kind = kind
    return e


# ---- open ----

def open(path, mode="r"):  # noqa: A001  (b2blosc.open, like numpy.load / h5py.File)
    """Open a .b2nd array or a Blosc2 frame (contiguous file or sparse-frame
    directory) read-only. Returns a B2ndArray when the frame holds a b2nd (or
    caterva) metalayer, else a FrameArray (1-D array of the frame's items).
    Mode "r" (read-only) or "r+": a FrameArray whose items can be written
    (b2nd arrays open read-only only)."""
    if mode not in ("r", "r+"):
        raise ValueError("mode must be 'r' or 'r+' (frames without b2nd metalayer; use b2blosc.save "
                         "to write arrays), got %r" % (mode,))
    flags = _libb2.OPEN_WRITE if mode == "r+" else _libb2.OPEN_READONLY
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not os.path.exists(path):
        raise FileNotFoundError(2, "No such file or directory", path)
    kind = _container_kind(path)
    if kind is not None:
        raise _refuse(path, kind)
    lib = _lib()
    d = lib.dll
    rc, s = lib.open_schunk(path=path, flags=flags)
    if rc < 0:
        err = lib.error(rc, "opening %s" % path)
        # a lone chunk (blosc2.compress2's output) fails as a frame: name it
        if os.path.isfile(path) and d.b2_inspect_path(os.fsencode(path)) == _KIND_CHUNK:
            raise _refuse(path, "a single Blosc2 chunk") from None
        raise err
    try:
        kind = _python_kind(d, s)
        if kind is not None:
            raise _refuse(path, kind)
        names = set()
        for i in range(max(0, d.b2_schunk_meta_count(s))):
            n = d.b2_schunk_meta_name(s, i)
            if n is not None:
                names.add(n)
        if b"b2nd" in names or b"caterva" in names:
            if mode != "r":
                raise ValueError("%s holds a b2nd array: b2blosc.open reads those only (mode 'r')"
                                 % path)
            a = ctypes.c_void_p()
            rc = d.b2_nd_from_schunk(s, ctypes.byref(a))
            if rc < 0:
                raise lib.error(rc, "opening %s as a b2nd array" % path, d.b2_schunk_last_error(s))
            s = None   # the array owns it now
            try:
                return B2ndArray(path, a.value)
            except BaseException:
                d.b2_nd_free(a)
                raise
        arr = FrameArray(path, s.value)
        s = None
        return arr
    finally:
        if s is not None and s.value:
            d.b2_schunk_free(s)


# ---- save ----

def _resolve_codec(lib, cname):
    # Blosc2()'s exception and message, so a bad cname reads the same in both
    if not isinstance(cname, str):
        raise _names.unknown_cname(cname)
    cid = lib.dll.b2_codec_from_name(cname.encode())
    if cid < 0:
        raise _names.unknown_cname(cname)
    return cid


def _single_filter(filters):
    """hdf5plugin's single filters value (0..4) from a constant or its name, as
    Blosc2() takes it; None when filters is a list (or a name of a filter that
    has no constant, such as "bytedelta", which stays a one-filter list)."""
    if isinstance(filters, (str, bytes)):
        return _names.filter_by_name(filters)
    if isinstance(filters, bool):
        raise _names.filters_error(filters, _list_hint())
    if isinstance(filters, int):
        if filters not in range(5):
            raise _names.filters_error(filters, _list_hint())
        return filters
    return None


def _resolve_filters(lib, filters):
    """(filters[6], filters_meta[6]) from hdf5plugin's single value or a list of
    up to 6 names / ids / (name, meta) pairs, applied in order (slots 0..n-1)."""
    if filters is None:
        filters = SHUFFLE
    single = _single_filter(filters)
    if single is not None:
        filters = single
        if filters == TRUNC_PREC:
            raise ValueError("TRUNC_PREC needs a precision (bits kept): pass "
                             "filters=[('trunc_prec', bits)] (optionally followed by 'shuffle')")
        f = [0] * 6
        f[5] = filters
        return f, [0] * 6
    if isinstance(filters, (str, bytes)):
        filters = [filters]
    try:
        items = list(filters)
    except TypeError:
        raise _names.filters_error(filters, _list_hint()) from None
    if len(items) > 6:
        raise ValueError("at most 6 filters, got %d" % len(items))
    f, m = [0] * 6, [0] * 6
    for i, it in enumerate(items):
        meta = 0
        if isinstance(it, tuple):
            if len(it) != 2:
                raise ValueError("a filter with a parameter is (name, meta), got %r" % (it,))
            it, meta = it
            if isinstance(meta, bool) or not isinstance(meta, int) or not -128 <= meta <= 255:
                raise ValueError("filter meta must be an int in -128..255, got %r" % (meta,))
        if isinstance(it, bytes):
            it = it.decode()
        if isinstance(it, str):
            fid = _names.filter_by_name(it)
            if fid is None:  # libb2 also knows user filters' names
                fid = lib.dll.b2_filter_from_name(it.lower().encode())
                if fid < 0:
                    raise ValueError("unknown filter %r; valid names: %s" % (it, _list_names()))
        elif isinstance(it, int) and not isinstance(it, bool) and 0 <= it <= 255:
            fid = it
            if fid and lib.dll.b2_filter_name(fid) is None:
                ids = sorted(_names.PIPELINE_NAMES.values())
                raise ValueError("unknown filter id %d; valid ids: 0..4, %s"
                                 % (fid, ", ".join(str(v) for v in ids)))
        else:
            raise ValueError("filter must be a name (%s) or an id 0..255, got %r" % (_list_names(), it))
        if fid == TRUNC_PREC and meta == 0:
            raise ValueError("trunc_prec needs a precision: pass ('trunc_prec', bits)")
        f[i], m[i] = fid, meta & 0xFF
    return f, m


def _shape_arg(name, value, ndim):
    if value is None:
        return [0] * ndim
    try:
        vals = [operator.index(v) for v in value]
    except TypeError:
        raise ValueError("%s must be a sequence of %d positive ints, got %r" % (name, ndim, value)) from None
    if len(vals) != ndim:
        raise ValueError("%s has %d entries, the array has %d dimensions" % (name, len(vals), ndim))
    if any(v <= 0 or v > 2**31 - 1 for v in vals):
        raise ValueError("%s entries must be positive int32 values, got %r" % (name, tuple(vals)))
    return vals


def _dtype_label(dt):
    """The string stored as the b2nd dtype: NumPy's typestr for plain dtypes
    ('<f8', '>i4', '|S7'), the descr list for structured ones (as c-blosc2's
    Python writer stores them), NumPy's full repr when descr does not rebuild it."""
    np = _np()
    if dt.fields is None and dt.subdtype is None:
        return dt.str
    try:
        if np.dtype(dt.descr) == dt:
            return str(dt.descr)
    except Exception:
        pass
    return str(dt)


def save(array, path, chunks=None, blocks=None, cname="lz4", clevel=5, filters=SHUFFLE,
         nthreads=1, contiguous=True, meta=None, vlmeta=None, codec_meta=0):
    """Write array (anything numpy.asarray accepts; a C-contiguous copy is made
    when needed) as a b2nd array at path and return it opened read-only (a
    B2ndArray; close it, or use it as a context manager).

    chunks, blocks: chunk and block shapes (None: libb2's default rule, the
      reference's: chunk ~4 MiB, block ~256 KiB filled from the last dimension).
    cname: "blosclz", "lz4", "lz4hc", "zlib" or "zstd" (otherwise
      UnknownCodecError, a KeyError and ValueError, as Blosc2() raises).
    clevel: 0..9 (ValueError otherwise).
    filters: hdf5plugin's single value NOFILTER, SHUFFLE, BITSHUFFLE, DELTA or
      its name as Blosc2() takes it ("shuffle", ..., any case; it goes in the
      last slot, as hdf5plugin does), or a list of up to 6 filter
      names/ids applied in order; ("trunc_prec", bits) / (name, meta) give a
      filter's parameter. TRUNC_PREC alone has no precision and is refused.
    contiguous: True writes one frame file, atomically: it is written under a
      temporary name next to path ("<path>.<pid>-<hex>.b2tmp"), synced and
      renamed over path, so an existing file stays untouched until the rename
      and a crash leaves the old file or the new one (a crash may leave the
      temporary behind). False: a sparse frame, a directory that must not exist
      yet.
    meta: {name: bytes} fixed metalayers stored after "b2nd" (at most 15);
    vlmeta: {name: bytes} variable-length metalayers."""
    np = _np()
    lib = _lib()
    d = lib.dll
    if isinstance(clevel, bool) or not isinstance(clevel, (int, np.integer)) or not 0 <= clevel <= 9:
        raise ValueError("clevel must be an int in 0..9, got %r" % (clevel,))
    cid = _resolve_codec(lib, cname)
    fl, flm = _resolve_filters(lib, filters)
    if isinstance(nthreads, bool) or not isinstance(nthreads, int) or nthreads < 1:
        raise ValueError("nthreads must be a positive int, got %r" % (nthreads,))
    arr = np.asarray(array)
    dt = arr.dtype
    if dt.hasobject:
        raise ValueError("cannot save dtype %s: object items have no fixed byte layout" % dt)
    if dt.itemsize == 0:
        raise ValueError("cannot save dtype %s: items of 0 bytes" % dt)
    if arr.ndim > _libb2.MAX_DIM:
        raise ValueError("at most %d dimensions, the array has %d" % (_libb2.MAX_DIM, arr.ndim))
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C")   # (ascontiguousarray would make a 0-d array 1-d)
    cs = _shape_arg("chunks", chunks, arr.ndim)
    bs = _shape_arg("blocks", blocks, arr.ndim)
    if chunks is not None and blocks is not None and any(b > c for b, c in zip(bs, cs)):
        raise ValueError("blocks %r must fit in chunks %r" % (tuple(bs), tuple(cs)))
    if chunks is None and blocks is not None:
        cs = [0] * arr.ndim
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not contiguous and os.path.exists(path):
        raise FileExistsError(17, "a sparse frame needs a new directory; path exists", path)
    if contiguous and os.path.isdir(path):
        raise IsADirectoryError(21, "cannot write a frame file over a directory", path)
    if not isinstance(codec_meta, int) or not 0 <= codec_meta <= 255:
        raise ValueError("codec_meta must be an int in 0..255, got %r" % (codec_meta,))

    cp = _libb2.CParams()
    d.b2_cparams_init(ctypes.byref(cp))
    cp.codec, cp.clevel, cp.nthreads, cp.codec_meta = cid, int(clevel), nthreads, codec_meta
    cp.typesize = dt.itemsize
    for i in range(6):
        cp.filters[i], cp.filters_meta[i] = fl[i], flm[i]
    p = _libb2.NDParams()
    p.ndim = arr.ndim
    for i in range(arr.ndim):
        p.shape[i], p.chunkshape[i], p.blockshape[i] = arr.shape[i], cs[i], bs[i]
    p.typesize = dt.itemsize
    label = _dtype_label(dt).encode()
    p.dtype = label
    p.cparams = ctypes.pointer(cp)
    keep = []
    meta = dict(meta or {})
    if len(meta) > 15:
        raise ValueError("at most 15 user metalayers, got %d" % len(meta))
    metas = (_libb2.UserMeta * max(1, len(meta)))()
    for i, (name, content) in enumerate(meta.items()):
        name_b, content_b = _meta_item(name, content, "meta")
        buf = ctypes.create_string_buffer(content_b, max(1, len(content_b)))
        keep.append((name_b, buf))
        metas[i] = _libb2.UserMeta(name_b, ctypes.cast(buf, ctypes.c_void_p), len(content_b))
    p.nmetalayers, p.metalayers = len(meta), metas
    vl = [_meta_item(k, v, "vlmeta") for k, v in dict(vlmeta or {}).items()]

    if not contiguous:   # a new directory: nothing old to keep intact
        _write_array(lib, p, arr, vl, _libb2.STORAGE_SPARSE, path, path)
        return open(path)
    # libb2's file create (b2_schunk_open_with, B2_OPEN_CREATE with a path)
    # truncates the target and then writes in place, so a crash would lose the
    # old file. The frame is written whole under a temporary name in the same
    # directory, synced, and renamed over path: the commit point.
    tmp = _temp_path(path)
    try:
        _write_array(lib, p, arr, vl, _libb2.STORAGE_FILE, tmp, path)
        _commit_temp(tmp, path)
    except BaseException:
        _remove_quietly(tmp)
        raise
    return open(path)


def _write_array(lib, p, arr, vl, kind, where, path):
    """Write arr (b2nd params p, vlmetalayers vl) to where; errors name path."""
    d = lib.dll
    st = _libb2.Storage(kind, os.fsencode(where))
    a = ctypes.c_void_p()
    rc = d.b2_nd_from_cbuffer(ctypes.byref(p), ctypes.byref(st),
                              arr.ctypes.data if arr.size else None, arr.nbytes, ctypes.byref(a))
    if rc < 0:
        raise lib.error(rc, "saving %s" % path)
    try:
        s = d.b2_nd_schunk(a)
        for name_b, content_b in vl:
            rc = d.b2_schunk_vlmeta_add(s, name_b, content_b, len(content_b))
            if rc < 0:
                raise lib.error(rc, "adding vlmetalayer %r to %s" % (name_b.decode(), path),
                                d.b2_schunk_last_error(s))
    finally:
        d.b2_nd_free(a)


def _temp_path(path):
    # Next to path, so that the rename stays in one file system (atomic); unique
    # per call, so that concurrent saves to one path never share a temporary.
    return "%s.%d-%s.b2tmp" % (path, os.getpid(), os.urandom(4).hex())


def _fsync(path, flags=os.O_RDONLY):
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _commit_temp(tmp, path):
    """Make tmp durable, rename it over path, then make the rename durable."""
    _fsync(tmp)
    os.replace(tmp, path)
    _fsync(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | os.O_DIRECTORY)


def _remove_quietly(path):
    # A failed or interrupted save leaves no temporary behind when it can help it;
    # the error being raised is the one that matters.
    try:
        os.unlink(path)
    except OSError:
        pass


def _meta_item(name, content, what):
    if not isinstance(name, str) or not name or len(name.encode()) > 31:
        raise ValueError("%s names are non-empty str of at most 31 bytes, got %r" % (what, name))
    if isinstance(content, str):
        content = content.encode()
    if not isinstance(content, (bytes, bytearray, memoryview)):
        raise ValueError("%s %r: content must be bytes, got %s" % (what, name, type(content).__name__))
    content = bytes(content)
    if len(content) > 2**31 - 1:
        raise ValueError("%s %r: content too large" % (what, name))
    return name.encode(), content

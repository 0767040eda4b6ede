# SPDX-License-Identifier: BSD-3-Clause
"""Fast slicing of Blosc2 (filter 32026) HDF5 datasets from h5py, with libb2.

Reading a small box from a dataset with large chunks makes HDF5 read and
decompress whole chunks. Each chunk written by the Blosc2 filter is a frame
whose blocks can be decoded one by one: this module asks libb2's HDF5 plugin
(libH5Zb2.so, the package's own copy, through ctypes; no compiled extension)
to read a box by decoding only the blocks it touches, straight from the file.
The plugin uses the HDF5 library h5py already loaded, never a second one.

    import h5py, b2blosc.h5 as b2h5
    with h5py.File("data.h5") as f:
        part = b2h5.read_slice(f["x"], (slice(1000, 1010), slice(500, 510)))
        with b2h5.fast_slicing():   # f["x"][...] takes the same path inside
            part = f["x"][1000:1010, 500:510]
        b2h5.enable()               # ... or from now on, until disable()

Keys the fast path takes: integers, slices with step 1 (or None) and one
Ellipsis. Anything else (steps, fancy indexing, fields) goes through h5py's
own reading, and so do datasets and chunks the direct path cannot read exactly
as HDF5 would (see b2_h5_read_box in b2_h5filter.h): results are always
h5py's. Set B2_H5_SLICE=0 in the environment to turn the fast path off.

Whole datasets and large boxes on threads, and parallel writes:

    a = b2h5.read(f["x"], threads=2)               # or read(ds, key, threads=N)
    a, rep = b2h5.read(f["x"], np.s_[0:4096], threads=2, report=True)
    rep = b2h5.write(f["y"], np.s_[...], a, threads=2)  # a dict, like read's report

read() and the enable()/fast_slicing() hook use libb2's b2_h5_reader, which goes
parallel by itself for reads of 256 KiB or more over 2+ chunks (threads: the
threads argument, else enable(threads=...), else $B2_H5_NTHREADS). write() uses
b2_h5_write_box: chunks the box covers whole are compressed on worker threads
into the bytes the filter stores and written with H5Dwrite_chunk; chunks only
partly in the box, other filters, type conversion etc. go through H5Dwrite
inside the C function, and the report's "reason" says why.

h5py's lock. h5py serialises HDF5 calls with its lock `phil`. read() and write()
hold phil for each C call, the whole call: inside it only the calling thread
calls HDF5 (chunk look-ups, H5Dread/H5Dwrite of fallback chunks,
H5Dwrite_chunk); the C workers only pread + decode (or compress) and need
neither phil nor the GIL (ctypes releases the GIL), so they run at full speed.
The cost: another Python thread's h5py call waits while a C call runs. To bound
that wait, and so that Ctrl-C works (a ctypes call cannot be interrupted),
large reads and writes are split along the first axis into slabs aligned to
chunk boundaries (slab_bytes, default 64 MiB, rounded up to whole chunk rows so
each slab stays parallel); phil is released between slabs, where Python also
raises KeyboardInterrupt. An interrupted read leaves nothing to clean up; an
interrupted write leaves the slabs before it written. Splitting the C call
itself (look-ups under phil, decoding outside) would need a new C API; the
reader's look-ups are interleaved with decoding inside one call.

The plugin is the one b2blosc uses (b2blosc.PLUGIN_FILE: $B2_H5_PLUGIN, the
package's plugins/ folder, the folders of $HDF5_PLUGIN_PATH, then where
cmake --install put it); a missing or unloadable one raises b2blosc.PluginError.
"""
import contextlib
import ctypes
import os
import weakref

from . import _loader
from ._loader import FILTER_ID, PluginError, ReadReport, PATHS  # noqa: F401

__all__ = ["read", "write", "read_slice", "read_box", "enable", "disable", "enabled", "fast_slicing",
           "is_blosc2", "filter_kwargs", "CODECS", "FILTERS", "ReadReport", "WriteReport",
           "PluginError", "MAX_THREADS", "SLAB_BYTES"]

CODECS = {"blosclz": 0, "lz4": 1, "lz4hc": 2, "zlib": 4, "zstd": 5}
FILTERS = {"none": 0, "shuffle": 1, "bitshuffle": 2, "delta": 3}
_lib = None

# libb2's error codes (b2_common.h), for messages
_ERRORS = {-1: "INVALID_PARAM: an argument is out of range", -2: "TRUNCATED: stored data ends early",
           -3: "INVALID_HEADER: inconsistent header", -4: "CORRUPT: stored data does not decode",
           -5: "UNSUPPORTED: a format feature this build cannot handle", -6: "NOMEM: out of memory",
           -7: "DST_TOO_SMALL", -8: "CODEC: a codec library failed",
           -9: "FILTER: a filter cannot run with these parameters",
           -10: "IO: reading the file failed (HDF5's read of a chunk, e.g. a corrupt one)",
           -11: "THREAD", -12: "NOT_FOUND", -13: "RANGE: outside the dataset",
           -15: "FORMAT: not a Blosc2 frame", -16: "DOES_NOT_FIT", -18: "BAD_CODEC: unknown codec",
           -19: "LIMIT: the frame declares more memory than allowed (B2_H5_MEMORY_LIMIT)",
           -20: "CHECKSUM: stored bytes do not match their recorded checksum (a damaged chunk)"}


def _error(rc, what):
    """OSError for code rc of a b2_h5_* call: what failed, the code and the
    plugin's own message (which names a failing chunk by its HDF5 chunk
    coordinates), when the plugin has one."""
    detail = ""
    last = getattr(_lib, "b2_h5_last_error_message", None) if _lib is not None else None
    if last is not None:
        last.argtypes, last.restype = [], ctypes.c_char_p
        detail = (last() or b"").decode("utf-8", "replace")
    if detail:  # the code's name only: the detail says the rest
        return OSError("%s failed: %s [B2_ERR_%s %d]"
                       % (what, detail, _ERRORS.get(rc, "?").split(":")[0], rc))
    return OSError("%s failed: B2_ERR_%s (%d)" % (what, _ERRORS.get(rc, "?"), rc))


MAX_THREADS = 256           # b2_h5_reader_set_nthreads accepts 1..256
SLAB_BYTES = 64 << 20       # default slab size of read() and write() (see the docstring)
WRITE_PATHS = {1: "direct", 2: "h5dwrite", 3: "mixed"}


class WriteOptions(ctypes.Structure):
    """b2_h5_write_options (b2_h5filter.h)."""
    _fields_ = [("nthreads", ctypes.c_int), ("set_params", ctypes.c_int),
                ("filters", ctypes.c_uint8 * 6), ("filters_meta", ctypes.c_uint8 * 6),
                ("use_dict", ctypes.c_int), ("blockshape", ctypes.c_int32 * 32),
                ("checksums", ctypes.c_int)]


class WriteReport(ctypes.Structure):
    """What b2_h5_write_box did (b2_h5_write_report in b2_h5filter.h)."""
    _fields_ = [("path_id", ctypes.c_int), ("reason_raw", ctypes.c_char * 128),
                ("chunks_direct", ctypes.c_int64), ("chunks_raw", ctypes.c_int64),
                ("chunks_h5dwrite", ctypes.c_int64), ("bytes_stored", ctypes.c_int64),
                ("nthreads", ctypes.c_int)]

    @property
    def path(self):
        return WRITE_PATHS.get(self.path_id, "none")

    @property
    def reason(self):
        return self.reason_raw.decode(errors="replace")

    def as_dict(self):
        return {"path": self.path, "reason": self.reason, "chunks_direct": self.chunks_direct,
                "chunks_raw": self.chunks_raw, "chunks_h5dwrite": self.chunks_h5dwrite,
                "bytes_stored": self.bytes_stored, "nthreads": self.nthreads}


def _library():
    """The plugin with b2_h5_read_box, loaded once (PluginError if it cannot be)."""
    global _lib
    if _lib is None:
        lib = _loader.load()
        c = ctypes
        try:
            lib.b2_h5_reader_set_nthreads.argtypes = [c.c_void_p, c.c_int]
            lib.b2_h5_reader_set_nthreads.restype = c.c_int
            lib.b2_h5_reader_nthreads.argtypes = [c.c_void_p]
            lib.b2_h5_reader_nthreads.restype = c.c_int
            lib.b2_h5_write_box.argtypes = [c.c_int64, c.c_int64, c.POINTER(c.c_uint64),
                                            c.POINTER(c.c_uint64), c.c_void_p, c.c_size_t,
                                            c.POINTER(WriteOptions), c.POINTER(WriteReport)]
            lib.b2_h5_write_box.restype = c.c_int
        except AttributeError as e:
            raise PluginError(22, "%s is an older libb2 plugin (missing %s)"
                              % (_loader.plugin_file(), e), _loader.plugin_file()) from None
        _lib = lib
    return _lib


def is_blosc2(dataset):
    """Whether filter 32026 is in the dataset's pipeline."""
    plist = dataset.id.get_create_plist()
    return any(plist.get_filter(i)[0] == FILTER_ID for i in range(plist.get_nfilters()))


def _box(shape, key):
    """(start, count, result shape) for a key of ints, step-1 slices and one
    Ellipsis; None when the key needs h5py's general indexing."""
    if not isinstance(key, tuple):
        key = (key,)
    if sum(k is Ellipsis for k in key) > 1:
        return None
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (len(shape) - len(key) + 1) + key[i + 1:]
    if len(key) > len(shape):
        return None
    key = key + (slice(None),) * (len(shape) - len(key))
    start, count, out = [], [], []
    for k, n in zip(key, shape):
        if isinstance(k, slice):
            a, b, step = k.indices(n)
            if step != 1:
                return None
            start.append(a)
            count.append(max(b - a, 0))
            out.append(count[-1])
        elif isinstance(k, (int,)) or (hasattr(k, "__index__") and not isinstance(k, bool)):
            i = k.__index__()
            if i < -n or i >= n:
                raise IndexError("index %d is out of range for a dimension of size %d" % (i, n))
            start.append(i % n)
            count.append(1)
        else:
            return None
    return start, count, tuple(out)


# One b2_h5_reader per open h5py dataset identifier (the dataset's checks done
# once), freed when the identifier goes away. Keyed by id(): identifiers of the
# same dataset opened twice compare equal but hold different HDF5 ids.
_readers = {}


def _free_reader(key):
    ptr = _readers.pop(key, None)
    _reader_default.pop(key, None)
    if ptr:
        _lib.b2_h5_reader_free(ptr)


def _reader(dsid):
    key = id(dsid)
    ptr = _readers.get(key)
    if ptr is None:
        lib = _library()
        p = ctypes.c_void_p()
        rc = lib.b2_h5_reader_open(dsid.id, ctypes.byref(p))
        if rc != 0:
            raise _error(rc, "b2_h5_reader_open")
        ptr = _readers[key] = p.value
        _reader_default[key] = lib.b2_h5_reader_nthreads(ptr)
        weakref.finalize(dsid, _free_reader, key)
    return ptr


_reader_default = {}  # id(dataset identifier) -> the reader's thread count when opened


def _phil():
    """h5py's lock around HDF5 calls (a serial HDF5 is not thread-safe; ctypes
    releases the GIL)."""
    try:
        from h5py._objects import phil
        return phil
    except ImportError:
        import contextlib
        return contextlib.nullcontext()


def _check_threads(threads):
    """None or an int 1..MAX_THREADS (TypeError / ValueError naming the problem)."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not hasattr(threads, "__index__"):
        raise TypeError("threads must be an int 1..%d or None, not %r" % (MAX_THREADS, threads))
    n = threads.__index__()
    if not 1 <= n <= MAX_THREADS:
        raise ValueError("threads must be 1..%d, not %d" % (MAX_THREADS, n))
    return n


def _slabs(start, count, chunks, itemsize, slab_bytes):
    """Split [start[0], start[0] + count[0]) into (lo, hi) ranges relative to the
    box, each ending on a chunk boundary of the first axis (or the box's end) and
    holding at least slab_bytes (whole chunk rows: each slab stays parallel)."""
    n0 = count[0]
    if n0 == 0:
        return []
    row = itemsize
    for c in count[1:]:
        row *= c
    c0 = chunks[0] if chunks else 1
    rows = c0 * max(1, -(-max(int(slab_bytes), 1) // max(row * c0, 1)))
    out, lo = [], 0
    while lo < n0:
        # next boundary of the absolute chunk grid at least `rows` rows on
        hi = ((start[0] + lo + rows) // c0) * c0 - start[0]
        if hi <= lo:
            hi = lo + rows
        hi = min(hi, n0)
        out.append((lo, hi))
        lo = hi
    return out


def _sum_reports(reps, cls, paths):
    """One report adding up those of the slabs (path: direct, fallback or mixed)."""
    tot = cls()
    ids = {r.path_id for r in reps if r.path_id}
    tot.path_id = ids.pop() if len(ids) == 1 else (3 if ids else 0)
    for r in reps:
        if r.reason_raw and not tot.reason_raw:
            tot.reason_raw = r.reason_raw
    for name, typ in cls._fields_:
        if typ is ctypes.c_int64:
            setattr(tot, name, sum(getattr(r, name) for r in reps))
    return tot


def _check_out(out, count, dtype):
    """out for read(): a writable C-contiguous array of the box's dtype and shape
    (count, or the result's shape: same elements in the same order)."""
    np = _np()
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a numpy array, not %s" % type(out).__name__)
    if out.dtype != dtype:
        raise TypeError("out has dtype %s, not the dataset's %s" % (out.dtype, dtype))
    n = 1
    for c in count:
        n *= c
    if out.size != n or not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be a writable C-contiguous array of the box's shape %s "
                         "(it has shape %s)" % (tuple(count), out.shape))
    return out.reshape(tuple(count))


def read_box(dataset, start, count, threads=None, slab_bytes=None, out=None):
    """Read the box [start, start + count) of dataset; returns (array, ReadReport).
    threads: the reader's threads for this read (None: enable()'s, else
    $B2_H5_NTHREADS); reads larger than slab_bytes go slab by slab (module
    docstring); out: an array to read into (see read())."""
    threads = _check_threads(threads)
    if threads is None:
        threads = _hook_threads
    if out is None:
        out = _np().empty(tuple(count), dtype=dataset.dtype)
    else:
        out = _check_out(out, count, dataset.dtype)
    rank = len(count)
    reps = []
    lib = _library()
    dsid = dataset.id
    slabs = _slabs(start, count, dataset.chunks, out.itemsize,
                   SLAB_BYTES if slab_bytes is None else slab_bytes) if out.size else []
    for lo, hi in slabs or [(0, count[0])]:  # an empty box: one call, as before
        part = out[lo:hi]
        st = (ctypes.c_uint64 * rank)(start[0] + lo, *start[1:])
        ct = (ctypes.c_uint64 * rank)(hi - lo, *count[1:])
        rep = ReadReport()
        with _phil():   # between slabs: other threads' h5py calls, and Ctrl-C
            rd = _reader(dsid)
            n = threads if threads is not None else _reader_default[id(dsid)]
            if lib.b2_h5_reader_nthreads(rd) != n:
                lib.b2_h5_reader_set_nthreads(rd, n)
            rc = _lib_read(rd, st, ct, part, rep)
        if rc != 0:
            raise _error(rc, "reading the box at %s of shape %s from %s"
                         % (tuple(start), tuple(count), dataset.name))
        reps.append(rep)
    return out, _sum_reports(reps, ReadReport, PATHS)


def _lib_read(reader, st, ct, out, rep):
    return _lib.b2_h5_reader_read(reader, 0, st, ct, out.ctypes.data if out.size else None,
                                  out.nbytes, ctypes.byref(rep))


def _plain_dtype(dt):
    return dt.fields is None and dt.subdtype is None and dt.kind not in "OU"


def read(dataset, key=Ellipsis, threads=None, report=False, slab_bytes=None, out=None):
    """dataset[key] through libb2's parallel reader (threads: 1..256, None for
    enable()'s or $B2_H5_NTHREADS). Keys that are not boxes (steps, fancy
    indexing), and datasets the reader does not take, give h5py's read; the bytes
    are always h5py's. With report=True returns (array, dict): the path
    ("direct", "h5dread", "mixed", or "h5py"), the first fallback reason, chunk
    counts, and "slabs" (C calls made). slab_bytes: see the module docstring.
    out: a C-contiguous array of the box's dtype and size to read into (as
    h5py's read_direct), returned (reshaped to the box when it was flat)."""
    threads = _check_threads(threads)
    box = None
    dt = dataset.dtype
    if dataset.shape and _plain_dtype(dt):
        box = _box(dataset.shape, key)
    if box is None and out is not None:
        raise ValueError("out= needs a key that is a box (ints, step-1 slices, one Ellipsis)")
    if box is None:
        res = _h5py_getitem(dataset, key)
        return (res, {"path": "h5py", "reason": "not a box, or not a plain numeric dtype",
                      "slabs": 0}) if report else res
    start, count, shape = box
    arr, rep = read_box(dataset, start, count, threads, slab_bytes, out)
    arr = arr.reshape(shape)
    if out is not None and out.shape == arr.shape:
        arr = out
    if shape == ():
        arr = arr[()]
    if not report:
        return arr
    d = rep.as_dict()
    d["slabs"] = len(_slabs(start, count, dataset.chunks, dt.itemsize,
                            SLAB_BYTES if slab_bytes is None else slab_bytes))
    return arr, d


def write(dataset, key, array, threads=None, slab_bytes=None):
    """dataset[key] = array through libb2's parallel writer b2_h5_write_box
    (threads: 1..256, None for $B2_H5_NTHREADS). key must be a box (ints,
    step-1 slices, one Ellipsis); array must have the box's shape (or the shape
    with the integer-indexed axes kept as 1) and the dataset's dtype (a dtype
    that casts safely is converted; others raise TypeError). Returns the write
    report as a dict: path ("direct", "h5dwrite" or "mixed"), the first reason
    for H5Dwrite (e.g. a chunk only partly in the box), chunk counts, bytes
    stored, threads, slabs."""
    threads = _check_threads(threads)
    np = _np()
    dt = dataset.dtype
    if not dataset.shape:
        raise ValueError("write() needs a dataset with at least one dimension (%s is scalar)"
                         % dataset.name)
    if not _plain_dtype(dt):
        raise TypeError("write() takes numeric datasets; %s has dtype %s" % (dataset.name, dt))
    box = _box(dataset.shape, key)
    if box is None:
        raise ValueError("key %r is not a box (ints, step-1 slices, one Ellipsis)" % (key,))
    start, count, shape = box
    a = np.asarray(array)
    if a.dtype != dt:
        if not np.can_cast(a.dtype, dt, "safe"):
            raise TypeError("array dtype %s does not cast safely to the dataset's dtype %s "
                            "(convert it with .astype)" % (a.dtype, dt))
        a = a.astype(dt)
    if a.shape != tuple(shape) and a.shape != tuple(count):
        raise ValueError("array shape %s does not match the box's shape %s"
                         % (a.shape, tuple(shape)))
    a = np.ascontiguousarray(a).reshape(tuple(count))
    rank = len(count)
    lib = _library()
    opts = WriteOptions()
    opts.nthreads = threads or 0
    reps = []
    slabs = _slabs(start, count, dataset.chunks, a.itemsize,
                   SLAB_BYTES if slab_bytes is None else slab_bytes) if a.size else []
    for lo, hi in slabs or [(0, count[0])]:
        part = a[lo:hi]
        st = (ctypes.c_uint64 * rank)(start[0] + lo, *start[1:])
        ct = (ctypes.c_uint64 * rank)(hi - lo, *count[1:])
        rep = WriteReport()
        with _phil():
            rc = lib.b2_h5_write_box(dataset.id.id, 0, st, ct, part.ctypes.data, part.nbytes,
                                     ctypes.byref(opts), ctypes.byref(rep))
        if rc != 0:
            raise _error(rc, "writing the box at %s of shape %s to %s"
                         % (tuple(start), tuple(count), dataset.name))
        reps.append(rep)
    tot = _sum_reports(reps, WriteReport, WRITE_PATHS)
    tot.nthreads = max((r.nthreads for r in reps), default=0)
    d = tot.as_dict()
    d["slabs"] = len(slabs)
    return d


_numpy = None


def _np():
    global _numpy
    if _numpy is None:
        import numpy
        _numpy = numpy
    return _numpy


def read_slice(dataset, key, report=False):
    """dataset[key], decoding only the blocks the box needs when the dataset uses
    Blosc2 and key is a box (ints, step-1 slices, Ellipsis); otherwise h5py's own
    read. With report=True returns (array, dict saying which path was taken)."""
    box = None
    dt = dataset.dtype
    if dataset.shape and _plain_dtype(dt):
        box = _box(dataset.shape, key)
    if box is None or os.environ.get("B2_H5_SLICE", "1") == "0":
        res = _h5py_getitem(dataset, key)
        return (res, {"path": "h5py", "reason": "not a box or turned off"}) if report else res
    start, count, shape = box
    arr, rep = read_box(dataset, start, count)
    arr = arr.reshape(shape)
    if shape == ():
        arr = arr[()]
    return (arr, rep.as_dict()) if report else arr


_original_getitem = None


def _h5py_getitem(dataset, key):
    import h5py
    return (_original_getitem or h5py.Dataset.__getitem__)(dataset, key)


def _patched_getitem(self, args, new_dtype=None):
    if new_dtype is None and _is_blosc2_or_false(self):
        return read_slice(self, args)
    return _original_getitem(self, args, new_dtype) if new_dtype is not None \
        else _original_getitem(self, args)


_blosc2_ids = {}  # id(dataset identifier) -> is_blosc2, for the patched __getitem__


def _is_blosc2_or_false(dataset):
    dsid = dataset.id
    key = id(dsid)
    known = _blosc2_ids.get(key)
    if known is None:
        try:
            known = is_blosc2(dataset)
        except Exception:
            return False
        _blosc2_ids[key] = known
        weakref.finalize(dsid, _blosc2_ids.pop, key, None)
    return known


_hook_threads = None  # enable(threads=...): the readers' threads for read_slice / read


def enable(threads=None):
    """Make h5py's Dataset.__getitem__ use read_slice for Blosc2 datasets (what
    b2h5py does); other datasets are untouched. threads (1..256): the parallel
    reader's threads for large boxes (None: $B2_H5_NTHREADS, else 1)."""
    global _original_getitem, _hook_threads
    import h5py
    _hook_threads = _check_threads(threads)
    if _original_getitem is None:
        _original_getitem = h5py.Dataset.__getitem__
        h5py.Dataset.__getitem__ = _patched_getitem


def disable():
    """Undo enable()."""
    global _original_getitem, _hook_threads
    import h5py
    _hook_threads = None
    if _original_getitem is not None:
        h5py.Dataset.__getitem__ = _original_getitem
        _original_getitem = None


def enabled():
    """Whether enable() is in effect."""
    return _original_getitem is not None


def filter_kwargs(codec="lz4", clevel=5, filter="shuffle", blocksize=0):
    """Deprecated (FutureWarning; goes in the release after next): use
    b2blosc.Blosc2(cname=..., clevel=..., filters=..., blocksize=...), whose
    cname is this codec and filters this filter, as compression= or **kwargs.

    Keyword arguments for h5py's create_dataset selecting the Blosc2 filter:
    codec by name or id, clevel 0..9, filter "none", "shuffle", "bitshuffle" or
    "delta" (or its id), blocksize in bytes (0: automatic)."""
    bs = ", blocksize=%r" % (blocksize,) if blocksize else ""
    # Blosc2 takes codec names only: an id is named in the suggestion
    cname = {v: k for k, v in CODECS.items()}.get(codec, codec) if not isinstance(codec, str) \
        else codec
    _deprecated("b2blosc.h5.filter_kwargs(codec=%r, clevel=%r, filter=%r%s)"
                % (codec, clevel, filter, bs),
                "b2blosc.Blosc2(cname=%r, clevel=%r, filters=%r%s) (codec= is its cname=, "
                "filter= its filters=)" % (cname, clevel, filter, bs))
    c = CODECS[codec] if isinstance(codec, str) else int(codec)
    f = FILTERS[filter] if isinstance(filter, str) else int(filter)
    if not 0 <= int(clevel) <= 9:
        raise ValueError("clevel %r is not 0..9" % (clevel,))
    return {"compression": FILTER_ID,
            "compression_opts": (0, int(blocksize), 0, 0, int(clevel), f, c)}


def _deprecated(old, new, stacklevel=3):
    """Warn that old is deprecated, naming new. A FutureWarning, not a
    DeprecationWarning: Python shows the latter only for code run as __main__,
    so a call from the user's own modules would go unseen until the name is
    removed; these names are meant for end users' scripts and notebooks."""
    import warnings
    warnings.warn("%s is deprecated and goes in the release after next; use %s"
                  % (old, new), FutureWarning, stacklevel=stacklevel)


@contextlib.contextmanager
def fast_slicing(threads=None):
    """Within the block, h5py's Dataset.__getitem__ reads Blosc2 datasets by
    blocks, large boxes on threads (enable(threads)); afterwards it is as it was
    before (nested use is fine)."""
    global _hook_threads
    was, old = enabled(), _hook_threads
    enable(threads if threads is not None else old)
    try:
        yield
    finally:
        if not was:
            disable()
        else:
            _hook_threads = old

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

__all__ = ["read_slice", "read_box", "enable", "disable", "enabled", "fast_slicing",
           "is_blosc2", "filter_kwargs", "CODECS", "FILTERS", "ReadReport", "PluginError"]

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
           -19: "LIMIT: the frame declares more memory than allowed (B2_H5_MEMORY_LIMIT)"}


def _error(rc, what):
    return OSError("%s failed: B2_ERR_%s (%d)" % (what, _ERRORS.get(rc, "?"), rc))


def _library():
    """The plugin with b2_h5_read_box, loaded once (PluginError if it cannot be)."""
    global _lib
    if _lib is None:
        _lib = _loader.load()
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
        weakref.finalize(dsid, _free_reader, key)
    return ptr


def _phil():
    """h5py's lock around HDF5 calls (a serial HDF5 is not thread-safe; ctypes
    releases the GIL)."""
    try:
        from h5py._objects import phil
        return phil
    except ImportError:
        import contextlib
        return contextlib.nullcontext()


def read_box(dataset, start, count):
    """Read the box [start, start + count) of dataset; returns (array, ReadReport)."""
    out = _np().empty(tuple(count), dtype=dataset.dtype)
    rank = len(count)
    rep = ReadReport()
    st = (ctypes.c_uint64 * rank)(*start)
    ct = (ctypes.c_uint64 * rank)(*count)
    with _phil():
        rc = _lib_read(_reader(dataset.id), st, ct, out, rep)
    if rc != 0:
        raise _error(rc, "reading the box at %s of shape %s from %s"
                     % (tuple(start), tuple(count), dataset.name))
    return out, rep


def _lib_read(reader, st, ct, out, rep):
    return _lib.b2_h5_reader_read(reader, 0, st, ct, out.ctypes.data if out.size else None,
                                  out.nbytes, ctypes.byref(rep))


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
    if dataset.shape and dt.fields is None and dt.subdtype is None and dt.kind not in "OU":
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


def enable():
    """Make h5py's Dataset.__getitem__ use read_slice for Blosc2 datasets (what
    b2h5py does); other datasets are untouched."""
    global _original_getitem
    import h5py
    if _original_getitem is None:
        _original_getitem = h5py.Dataset.__getitem__
        h5py.Dataset.__getitem__ = _patched_getitem


def disable():
    """Undo enable()."""
    global _original_getitem
    import h5py
    if _original_getitem is not None:
        h5py.Dataset.__getitem__ = _original_getitem
        _original_getitem = None


def enabled():
    """Whether enable() is in effect."""
    return _original_getitem is not None


def filter_kwargs(codec="lz4", clevel=5, filter="shuffle", blocksize=0):
    """Keyword arguments for h5py's create_dataset selecting the Blosc2 filter,
    like hdf5plugin.Blosc2: codec by name or id, clevel 0..9, filter "none",
    "shuffle", "bitshuffle" or "delta" (or its id), blocksize in bytes (0: automatic)."""
    c = CODECS[codec] if isinstance(codec, str) else int(codec)
    f = FILTERS[filter] if isinstance(filter, str) else int(filter)
    if not 0 <= int(clevel) <= 9:
        raise ValueError("clevel %r is not 0..9" % (clevel,))
    return {"compression": FILTER_ID,
            "compression_opts": (0, int(blocksize), 0, 0, int(clevel), f, c)}


@contextlib.contextmanager
def fast_slicing():
    """Within the block, h5py's Dataset.__getitem__ reads Blosc2 datasets by
    blocks (enable()); afterwards it is as it was before (nested use is fine)."""
    was = enabled()
    enable()
    try:
        yield
    finally:
        if not was:
            disable()

# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.Blosc2: h5py's compression arguments for filter 32026, with the
keywords, defaults, constants, errors and repr of hdf5plugin 5.x/6.x's Blosc2,
plus blocksize and the keyword-only pipeline, blockshape, use_dict and checksums.

cd_values (compression_opts) made: (0, blocksize, 0, 0, clevel, filters, codec),
as hdf5plugin's (which always has blocksize 0), then, when pipeline, blockshape,
use_dict or checksums is given, the filter's extra values (doc/hdf5.md, "More parameters"): marker,
version, count, three words with the six filter slots, a flags word and the
block shape. The filter fills in slots 0, 2, 3 and 7.. when the dataset is
created (set_local), moving the extra values after the chunk dimensions; they
need a chunk rank of 1..16. On a 1-D dataset they bring HDF5-Blosc2 2.0's
one-dimensional layout (cd_values[7] = 1, the chunk length, 1-D b2nd chunks),
which readers older than HDF5-Blosc2 2.0 (hdf5plugin 7.1 included) refuse;
without them 1-D datasets keep the classic values every reader takes
(doc/format/hdf5-filter.md §2a)."""
from collections.abc import Mapping

from ._names import (CODEC_NAMES, FILTER_NAMES, PIPELINE_NAMES, UnknownCodecError,  # noqa: F401
                     filter_by_name, filters_error, unknown_cname)

FILTER_ID = 32026

try:  # instances work as compression= and as **kwargs in create_dataset
    try:
        from h5py.filters import FilterRefBase as _Base
    except ImportError:  # h5py >= 3.8 (pip's 3.15, 3.16) has no h5py.filters module
        from h5py._hl.filters import FilterRefBase as _Base
except ImportError:  # no h5py: the same Mapping behaviour, written out
    class _Base(Mapping):
        filter_id = None
        filter_options = ()

        @property
        def _kwargs(self):
            return {"compression": self.filter_id, "compression_opts": self.filter_options}

        def __hash__(self):
            return hash((self.filter_id, self.filter_options))

        def __eq__(self, other):
            return (isinstance(other, _Base) and self.filter_id == other.filter_id
                    and self.filter_options == other.filter_options)

        def __len__(self):
            return len(self._kwargs)

        def __iter__(self):
            return iter(self._kwargs)

        def __getitem__(self, item):
            return self._kwargs[item]


def _all_cd_values(plist_id):
    """Every cd_value of filter 32026 in a creation property list of h5py's,
    through h5py's own libhdf5, or None when it is not found. The library is
    reached through h5py's h5z module (RTLD_NOLOAD): a symbol looked up on its
    handle comes from the libhdf5 it links, whatever other copies (PyTables',
    netCDF4's) the process loaded first."""
    import ctypes
    import os
    try:
        import h5py.h5z
        lib = ctypes.CDLL(h5py.h5z.__file__, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        fn = lib.H5Pget_filter_by_id2
    except (ImportError, OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.POINTER(ctypes.c_uint),
                   ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_uint), ctypes.c_size_t,
                   ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint)]
    vals = (ctypes.c_uint * 64)()
    n = ctypes.c_size_t(64)
    flags = ctypes.c_uint()
    if fn(plist_id, FILTER_ID, ctypes.byref(flags), ctypes.byref(n), vals, 0, None, None) < 0:
        return None
    return tuple(vals[:min(n.value, 64)])


def filters_value(filters):
    """hdf5plugin's single filters value (0..4) from a constant or its name;
    ValueError listing the valid values otherwise."""
    fid = filter_by_name(filters)
    if fid is not None:
        return fid
    # a membership test, as hdf5plugin's, so numpy ints keep working
    if filters not in range(5):
        raise filters_error(filters)
    return int(filters)


class Blosc2(_Base):
    """h5py's create_dataset compression arguments for the Blosc2 filter (32026).

        f.create_dataset("x", data=a, chunks=(100, 100),
                         compression=b2blosc.Blosc2(cname="zstd", clevel=5,
                                                    filters=b2blosc.Blosc2.BITSHUFFLE))
        f.create_dataset("y", data=a, chunks=(100, 100), **b2blosc.Blosc2())

    cname: "blosclz" (default), "lz4", "lz4hc", "zlib" or "zstd".
    clevel: 0 (no compression) .. 9, default 5.
    filters: NOFILTER, SHUFFLE (default), BITSHUFFLE, DELTA or TRUNC_PREC, or
      their names, any case: "nofilter" (or "noshuffle", "none"), "shuffle",
      "bitshuffle", "delta", "trunc_prec"; get_config() gives the constant.
      TRUNC_PREC cannot carry a precision in cd_values: the filter then refuses
      every chunk and, as h5py adds the filter as optional, HDF5 stores the chunks
      uncompressed (exact), as with the reference filter.
    blocksize: (not in hdf5plugin) the Blosc2 block size in bytes, 0 (default)
      for automatic.

    Keyword-only, not in hdf5plugin, for chunks of rank 1..16 (the filter
    refuses them for other ranks when the dataset is created; on rank 1 they
    store the one-dimensional layout, which hdf5plugin 7.1 cannot read):
    pipeline: up to 6 filters applied in order, each an id or an (id, meta)
      pair: the constants above and BYTEDELTA, INT_TRUNC (meta: signed bits
      kept), NDCELL and NDMEAN (meta: cell side), or their names as save()
      takes them; e.g. [SHUFFLE, BYTEDELTA] or ["shuffle", "bytedelta"].
      They fill the last slots of the six. Default: filters alone.
    blockshape: the block shape (one positive size per chunk dimension, each at
      most the chunk's); default automatic.
    use_dict: zstd, lz4 and lz4hc dictionaries (default False).
    checksums: each stored frame carries its chunk's xxh64 checksum (vlmetalayer
      "b2.checksums", which c-blosc2 ignores); libb2's plugin then checks it on
      every read and fails on damaged chunks (default False).
    Frames say how they were made, so any reader decodes them; the reference
    plugin needs c-blosc2's plugins for BYTEDELTA, INT_TRUNC, NDCELL and NDMEAN.

    Invalid clevel, filters, blocksize, pipeline or blockshape raise ValueError
    naming the valid values; an unknown cname UnknownCodecError (a KeyError, as
    hdf5plugin raises, and a ValueError), as b2blosc.save() does."""

    NOFILTER = 0
    SHUFFLE = 1
    BITSHUFFLE = 2
    DELTA = 3
    TRUNC_PREC = 4
    # pipeline only (c-blosc2's plugin filters)
    NDCELL = 32
    NDMEAN = 33
    BYTEDELTA = 35
    INT_TRUNC = 36

    EXT_MARKER = 0x42324E44  # "B2ND": the filter's extra values follow
    EXT_VERSION = 1

    filter_id = FILTER_ID
    filter_name = "blosc2"

    _CODECS = dict(zip(CODEC_NAMES, (0, 1, 2, 4, 5)))

    def __init__(self, cname="blosclz", clevel=5, filters=SHUFFLE, blocksize=0, *,
                 pipeline=None, blockshape=None, use_dict=False, checksums=False):
        try:
            codec = self._CODECS[cname]
        except (KeyError, TypeError):
            raise unknown_cname(cname) from None
        clevel = int(clevel)
        if not 0 <= clevel <= 9:
            raise ValueError("clevel must be in the range [0, 9], got %d" % clevel)
        filters = filters_value(filters)
        blocksize = int(blocksize)
        if not 0 <= blocksize < 2 ** 31:
            raise ValueError("blocksize must be 0 (automatic) or a positive number of bytes "
                             "below 2**31, not %d" % blocksize)
        extra, slot5, ext_config = self._extra_values(filters, pipeline, blockshape, use_dict,
                                                      checksums)
        self.filter_options = (0, blocksize, 0, 0, clevel, slot5, codec) + extra
        # what hdf5plugin reports; blocksize and the rest only when set, so that
        # the default object's get_config() and repr are hdf5plugin's
        self._config = {"cname": cname, "clevel": clevel, "filters": filters}
        if blocksize:
            self._config["blocksize"] = blocksize
        if pipeline is not None:  # slot 5 as made from the pipeline
            self._config["filters"] = slot5
        self._config.update(ext_config)

    @classmethod
    def _extra_values(cls, filters, pipeline, blockshape, use_dict, checksums=False):
        """(extra cd_values, cd_values[5], config entries) for the keyword-only
        arguments; ((), filters, {}) when none is given."""
        if pipeline is None and blockshape is None and not use_dict and not checksums:
            return (), int(filters), {}
        config = {}
        steps = [int(filters)] if pipeline is None else list(pipeline)
        if len(steps) > 6:
            raise ValueError("pipeline has %d filters; at most 6" % len(steps))
        slots = [0] * (6 - len(steps))
        norm = []
        for st in steps:
            fid, meta = (st, 0) if not isinstance(st, (tuple, list)) else tuple(st)
            fid, meta = cls._pipeline_id(fid), int(meta)
            if not (0 <= fid <= 255 and 0 <= meta <= 255):
                raise ValueError("pipeline filter %r: id and meta must be 0..255" % (st,))
            slots.append(fid | meta << 8)
            norm.append((fid, meta) if meta else fid)
        if pipeline is not None:
            config["pipeline"] = norm
        words = [slots[0] | slots[1] << 16, slots[2] | slots[3] << 16, slots[4] | slots[5] << 16,
                 (1 if use_dict else 0) | (2 if checksums else 0)]
        if use_dict:
            config["use_dict"] = True
        if checksums:
            config["checksums"] = True
        if blockshape is not None:
            bs = [int(b) for b in blockshape]
            if not 1 <= len(bs) <= 16 or any(not 1 <= b < 2 ** 31 for b in bs):
                raise ValueError("blockshape must have 1..16 sizes of 1..2**31-1, not %r"
                                 % (blockshape,))
            words += bs
            config["blockshape"] = tuple(bs)
        # slot 5 for readers of the first seven values alone: the pipeline's last
        # core filter (the reference plugin shuffles by it when it writes)
        core = [f for f in (s & 0xFF for s in slots) if 1 <= f <= 4]
        slot5 = core[-1] if pipeline is not None and core else (0 if pipeline is not None
                                                                else int(filters))
        return (cls.EXT_MARKER, cls.EXT_VERSION, len(words)) + tuple(words), slot5, config

    @staticmethod
    def _pipeline_id(step):
        """A pipeline filter's id from an int or a name (save()'s names), so that
        pipeline takes the spellings save(filters=[...]) takes."""
        if isinstance(step, (str, bytes)):
            fid = filter_by_name(step, {**FILTER_NAMES, **PIPELINE_NAMES})
            if fid is None:
                raise ValueError("unknown pipeline filter %r; valid names: %s"
                                 % (step, ", ".join(sorted({**FILTER_NAMES, **PIPELINE_NAMES}))))
            return fid
        return int(step)

    def get_config(self):
        """The arguments as a new dict (cname, clevel, filters[, blocksize,
        pipeline, use_dict, checksums, blockshape])."""
        return dict(self._config)

    def __repr__(self):
        args = ", ".join("%s=%r" % kv for kv in self.get_config().items())
        return "%s(%s)" % (type(self).__name__, args)

    @property
    def cname(self):
        """Codec name."""
        return self._cname_of(self.filter_options[6])

    @property
    def clevel(self):
        """Compression level, 0..9."""
        return self.filter_options[4]

    @property
    def filters(self):
        """Pre-compression filter: NOFILTER, SHUFFLE, BITSHUFFLE, DELTA or TRUNC_PREC."""
        return self.filter_options[5]

    @property
    def blocksize(self):
        """Block size in bytes, 0 for automatic."""
        return self.filter_options[1]

    @classmethod
    def _cname_of(cls, codec):
        for name, c in cls._CODECS.items():
            if c == codec:
                return name
        raise ValueError("Unsupported compression id: %s" % (codec,))

    @classmethod
    def from_filter_options(cls, cd_values):
        """The Blosc2 arguments that cd_values (as stored in a file, or as made)
        stand for: slots 4, 5, 6 (clevel, filters, codec) as hdf5plugin reads them,
        with its defaults for missing slots, and slot 1 (blocksize). ValueError for
        values Blosc2() cannot express (e.g. the plugin codecs, ids 32..35)."""
        cd = tuple(int(v) for v in cd_values)
        kw = {}
        if len(cd) > 1:
            kw["blocksize"] = cd[1]
        if len(cd) > 4:
            kw["clevel"] = cd[4]
        if len(cd) > 5:
            kw["filters"] = cd[5]
        kw["cname"] = cls._cname_of(cd[6]) if len(cd) > 6 else "blosclz"
        # the extra values: right after the codec (as made) or after the chunk
        # dimensions (as stored)
        at = None
        if len(cd) > 7 and cd[7] == cls.EXT_MARKER:
            at = 7
        elif len(cd) > 8 and 1 <= cd[7] <= 16 and len(cd) > 8 + cd[7] and \
                cd[8 + cd[7]] == cls.EXT_MARKER:
            at = 8 + cd[7]
        if at is not None:
            ext = cd[at:]
            if len(ext) < 3 or ext[1] != cls.EXT_VERSION or ext[2] < 4 or len(ext) < 3 + ext[2]:
                raise ValueError("extra cd_values %r: not version %d with 4 or more values"
                                 % (ext, cls.EXT_VERSION))
            words = ext[3:3 + ext[2]]
            slots = []
            for w in words[:3]:
                slots += [w & 0xFFFF, w >> 16]
            while slots and slots[0] == 0:
                slots.pop(0)
            kw["pipeline"] = [(s & 0xFF, s >> 8) if s >> 8 else s & 0xFF for s in slots]
            kw["use_dict"] = bool(words[3] & 1)
            kw["checksums"] = bool(words[3] & 2)
            if len(words) > 4:
                kw["blockshape"] = tuple(words[4:])
        return cls(**kw)

    _from_filter_options = from_filter_options  # hdf5plugin's (private) name

    @classmethod
    def from_dataset(cls, dataset):
        """Blosc2 arguments of an h5py dataset's filter 32026 (its stored
        cd_values); ValueError when the dataset does not use it."""
        plist = dataset.id.get_create_plist()
        for i in range(plist.get_nfilters()):
            fid, _flags, values, _name = plist.get_filter(i)
            if fid == FILTER_ID:
                if len(values) > 16:  # h5py copies 16 values at most, the rest is junk
                    values = _all_cd_values(plist.id) or values[:16]
                return cls.from_filter_options(values)
        raise ValueError("dataset %s does not use the Blosc2 filter (%d)"
                         % (getattr(dataset, "name", dataset), FILTER_ID))

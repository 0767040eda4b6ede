# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.Blosc2: h5py's compression arguments for filter 32026, with the
keywords, defaults, constants, errors and repr of hdf5plugin 5.x/6.x's Blosc2,
plus one keyword, blocksize.

cd_values (compression_opts) made: (0, blocksize, 0, 0, clevel, filters, codec),
as hdf5plugin's (which always has blocksize 0); the filter fills in slots 0, 2, 3
and 7.. when the dataset is created (set_local)."""
from collections.abc import Mapping

FILTER_ID = 32026

try:  # instances work as compression= and as **kwargs in create_dataset
    from h5py.filters import FilterRefBase as _Base
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


class UnknownCodecError(KeyError):
    """An unknown cname (a KeyError, as hdf5plugin raises, with a message that
    names the valid names)."""

    def __str__(self):
        return self.args[0] if self.args else ""


class Blosc2(_Base):
    """h5py's create_dataset compression arguments for the Blosc2 filter (32026).

        f.create_dataset("x", data=a, chunks=(100, 100),
                         compression=b2blosc.Blosc2(cname="zstd", clevel=5,
                                                    filters=b2blosc.Blosc2.BITSHUFFLE))
        f.create_dataset("y", data=a, chunks=(100, 100), **b2blosc.Blosc2())

    cname: "blosclz" (default), "lz4", "lz4hc", "zlib" or "zstd".
    clevel: 0 (no compression) .. 9, default 5.
    filters: NOFILTER, SHUFFLE (default), BITSHUFFLE, DELTA or TRUNC_PREC.
      TRUNC_PREC cannot carry a precision in cd_values: the filter then refuses
      every chunk and, as h5py adds the filter as optional, HDF5 stores the chunks
      uncompressed (exact), as with the reference filter.
    blocksize: (not in hdf5plugin) the Blosc2 block size in bytes, 0 (default)
      for automatic.

    Invalid clevel, filters or blocksize raise ValueError; an unknown cname a
    KeyError (UnknownCodecError)."""

    NOFILTER = 0
    SHUFFLE = 1
    BITSHUFFLE = 2
    DELTA = 3
    TRUNC_PREC = 4

    filter_id = FILTER_ID
    filter_name = "blosc2"

    _CODECS = {"blosclz": 0, "lz4": 1, "lz4hc": 2, "zlib": 4, "zstd": 5}
    _FILTERS = (NOFILTER, SHUFFLE, BITSHUFFLE, DELTA, TRUNC_PREC)

    def __init__(self, cname="blosclz", clevel=5, filters=SHUFFLE, blocksize=0):
        try:
            codec = self._CODECS[cname]
        except (KeyError, TypeError):
            raise UnknownCodecError("unknown cname %r; valid names: %s"
                                    % (cname, ", ".join(self._CODECS))) from None
        clevel = int(clevel)
        if not 0 <= clevel <= 9:
            raise ValueError("clevel must be in the range [0, 9]")
        if filters not in self._FILTERS:
            raise ValueError("filters=%s is not supported" % (filters,))
        blocksize = int(blocksize)
        if not 0 <= blocksize < 2 ** 31:
            raise ValueError("blocksize must be 0 (automatic) or a positive number of bytes "
                             "below 2**31, not %d" % blocksize)
        self.filter_options = (0, blocksize, 0, 0, clevel, int(filters), codec)
        # what hdf5plugin reports; blocksize only when set, so that the default
        # object's get_config() and repr are hdf5plugin's
        self._config = {"cname": cname, "clevel": clevel, "filters": filters}
        if blocksize:
            self._config["blocksize"] = blocksize

    def get_config(self):
        """The arguments as a new dict (cname, clevel, filters[, blocksize])."""
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
                return cls.from_filter_options(values)
        raise ValueError("dataset %s does not use the Blosc2 filter (%d)"
                         % (getattr(dataset, "name", dataset), FILTER_ID))

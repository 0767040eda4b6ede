# SPDX-License-Identifier: BSD-3-Clause
"""The names of b2blosc's settings and the errors that list them, shared by
Blosc2() (_filters) and b2blosc.save (array): one spelling for both. Imports
nothing, so that importing b2blosc.array loads neither h5py nor numpy."""


class UnknownCodecError(KeyError, ValueError):
    """An unknown cname, from Blosc2() and from b2blosc.save() alike, with a
    message that names the bad value and the valid names. A KeyError because
    hdf5plugin's Blosc2 raises one (its dict lookup) and save() raised a bare
    one; also a ValueError because every other bad setting is one, so that a
    caller catching either keeps working."""

    def __str__(self):
        return self.args[0] if self.args else ""


CODEC_NAMES = ("blosclz", "lz4", "lz4hc", "zlib", "zstd")

# The filters keyword's names (case-insensitive), as save() spells them, for
# hdf5plugin's constants; "none" and "noshuffle" are libb2's and python-blosc2's
# names of 0, "nofilter" the constant's own.
FILTER_NAMES = {"nofilter": 0, "noshuffle": 0, "none": 0, "shuffle": 1, "bitshuffle": 2,
                "delta": 3, "trunc_prec": 4}
# pipeline-only filters (c-blosc2's plugin filters), named as libb2 names them
PIPELINE_NAMES = {"ndcell": 32, "ndmean": 33, "bytedelta": 35, "int_trunc": 36}

_FILTERS_VALID = ("NOFILTER (0, 'nofilter', 'noshuffle', 'none'), SHUFFLE (1, 'shuffle'), "
                  "BITSHUFFLE (2, 'bitshuffle'), DELTA (3, 'delta'), TRUNC_PREC (4, 'trunc_prec')")


def unknown_cname(cname):
    """The UnknownCodecError for cname, naming it and the valid names."""
    return UnknownCodecError("unknown cname %r; valid names: %s" % (cname, ", ".join(CODEC_NAMES)))


def filters_error(filters, extra=""):
    """The ValueError for a filters value that is none of the valid ones,
    listing them (extra: what else the caller takes)."""
    return ValueError("filters=%r is not supported; valid values: %s%s"
                      % (filters, _FILTERS_VALID, extra))


def filter_by_name(name, names=FILTER_NAMES):
    """The filter id of name (str or bytes, any case), or None when it is not one."""
    if isinstance(name, bytes):
        name = name.decode("ascii", "replace")
    if not isinstance(name, str):
        return None
    return names.get(name.lower())

# Blosc2 split modes (enum b2_splitmode), as b2blosc.codecs takes them; "forward"
# is imagecodecs' spelling of forward_compat, the format's default
SPLITMODE_NAMES = {"always": 1, "never": 2, "auto": 3, "forward_compat": 4, "forward": 4}


def splitmode_error(splitmode):
    """The ValueError for a splitmode that is none of the valid ones, listing them."""
    return ValueError("splitmode=%r is not supported; valid values: 'always' (1), 'never' (2), "
                      "'auto' (3), 'forward_compat' (4, also 'forward')" % (splitmode,))

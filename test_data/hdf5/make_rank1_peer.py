# SPDX-License-Identifier: BSD-3-Clause
"""Writes the rank-1 peer vectors h6_rank1_hdf5plugin.h5 and h7_rank1_b2nd.h5
(test_data/hdf5/README.md says with what). Run it with h5py and either
`hdf5plugin` imported (--hdf5plugin: hdf5plugin's own Blosc2 filter) or a
filter 32026 found through HDF5_PLUGIN_PATH (the default). The values are
value_of() below; tests recompute them from the same formula."""
import sys

import h5py
import numpy as np

# (dtype, codec, clevel, filter, length, chunk length): edge chunks everywhere
GRID = [("i1", "lz4", 5, 1, 2500, 1000), ("u2", "zstd", 9, 2, 2300, 700),
        ("i4", "blosclz", 0, 1, 2100, 512), ("f4", "zstd", 5, 1, 1900, 600),
        ("f8", "lz4", 9, 2, 1700, 500), ("i8", "blosclz", 5, 0, 1500, 400),
        ("f4", "blosclz", 9, 2, 1300, 333), ("u4", "lz4", 0, 0, 1100, 256),
        ("i2", "zstd", 1, 1, 1000, 4096)]
CODES = {"blosclz": 0, "lz4": 1, "zstd": 5}
FILTERS = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}


def value_of(dtype, n):
    i = np.arange(n, dtype=np.int64)
    if np.dtype(dtype).kind == "f":
        return (((i * 13) % 1000) * 0.125 - 50.0).astype(dtype)  # exact in binary
    return (((i // 3) * 13) % 120 + i % 5).astype(dtype)       # 0..123 fits every type


def name_of(dt, codec, clevel, flt):
    return "r1_%s_%s_%d_%s" % (dt, codec, clevel, FILTERS[flt])


def main(out, use_hdf5plugin):
    if use_hdf5plugin:
        import hdf5plugin
    # v110 structures: smaller indexes, and readable by HDF5 1.10
    with h5py.File(out, "w", libver=("v110", "v110")) as f:
        for dt, codec, clevel, flt, n, chunk in GRID:
            opts = (0, 0, 0, 0, clevel, flt, CODES[codec])
            if use_hdf5plugin:
                kw = hdf5plugin.Blosc2(cname=codec, clevel=clevel, filters=flt)
                assert tuple(kw["compression_opts"]) == opts
            else:
                kw = {"compression": 32026, "compression_opts": opts, "allow_unknown_filter": True}
            # a chunk longer than the data needs an extendable dataset
            f.create_dataset(name_of(dt, codec, clevel, flt), data=value_of(dt, n),
                             chunks=(chunk,), maxshape=(None,) if chunk > n else (n,), **kw)
        # no user values at all: the layouts differ most here
        f.create_dataset("r1_f4_no_values", data=value_of("f4", 1200), chunks=(500,),
                         compression=32026, allow_unknown_filter=True)


if __name__ == "__main__":
    main(sys.argv[1], "--hdf5plugin" in sys.argv[2:])

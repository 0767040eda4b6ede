# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.Blosc2 against hdf5plugin 5.x/6.x's Blosc2 (python/b2blosc/_filters.py).

  * A table of what hdf5plugin's Blosc2 makes for each argument set, written by
    hand from its source (src/hdf5plugin/_filters.py): filter_options (cd_values),
    get_config(), repr, properties, and the error type for bad arguments; plus
    our extra keyword blocksize (cd_values[1]).
  * from_filter_options (hdf5plugin's _from_filter_options, made public) on short
    and stored cd_values; from_dataset on datasets written through the filter;
    the Mapping behaviour (**Blosc2(), compression=Blosc2()).
The same cd_values through the reference plugin, and register() beside it, are
ref_pypkg_blosc2.py's (registered where the reference plugin is)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
b2test.use_source_package()
import b2blosc  # noqa: E402
from b2blosc import Blosc2  # noqa: E402

check = b2test.Checks()
B = Blosc2

# ---- 1. what hdf5plugin's Blosc2 makes (by hand, from its source) ----
# (kwargs, filter_options, get_config(), repr)
TABLE = [
    ({}, (0, 0, 0, 0, 5, 1, 0),
     {"cname": "blosclz", "clevel": 5, "filters": 1}, "Blosc2(cname='blosclz', clevel=5, filters=1)"),
    ({"cname": "lz4"}, (0, 0, 0, 0, 5, 1, 1),
     {"cname": "lz4", "clevel": 5, "filters": 1}, "Blosc2(cname='lz4', clevel=5, filters=1)"),
    ({"cname": "lz4hc", "clevel": 0, "filters": B.NOFILTER}, (0, 0, 0, 0, 0, 0, 2),
     {"cname": "lz4hc", "clevel": 0, "filters": 0}, "Blosc2(cname='lz4hc', clevel=0, filters=0)"),
    ({"cname": "zlib", "clevel": 1, "filters": B.DELTA}, (0, 0, 0, 0, 1, 3, 4),
     {"cname": "zlib", "clevel": 1, "filters": 3}, "Blosc2(cname='zlib', clevel=1, filters=3)"),
    ({"cname": "zstd", "clevel": 9, "filters": B.BITSHUFFLE}, (0, 0, 0, 0, 9, 2, 5),
     {"cname": "zstd", "clevel": 9, "filters": 2}, "Blosc2(cname='zstd', clevel=9, filters=2)"),
    ({"cname": "zstd", "clevel": 3, "filters": B.TRUNC_PREC}, (0, 0, 0, 0, 3, 4, 5),
     {"cname": "zstd", "clevel": 3, "filters": 4}, "Blosc2(cname='zstd', clevel=3, filters=4)"),
    # clevel goes through int(): a string or a float is taken as hdf5plugin takes it
    ({"cname": "blosclz", "clevel": "7"}, (0, 0, 0, 0, 7, 1, 0),
     {"cname": "blosclz", "clevel": 7, "filters": 1}, "Blosc2(cname='blosclz', clevel=7, filters=1)"),
    ({"clevel": 2.0, "filters": 0}, (0, 0, 0, 0, 2, 0, 0),
     {"cname": "blosclz", "clevel": 2, "filters": 0}, "Blosc2(cname='blosclz', clevel=2, filters=0)"),
    # positional order: cname, clevel, filters
    (("lz4", 4, 2), (0, 0, 0, 0, 4, 2, 1),
     {"cname": "lz4", "clevel": 4, "filters": 2}, "Blosc2(cname='lz4', clevel=4, filters=2)"),
    # ours only: blocksize in bytes, cd_values[1]; in get_config()/repr when set
    ({"cname": "lz4", "blocksize": 65536}, (0, 65536, 0, 0, 5, 1, 1),
     {"cname": "lz4", "clevel": 5, "filters": 1, "blocksize": 65536},
     "Blosc2(cname='lz4', clevel=5, filters=1, blocksize=65536)"),
]
check((B.NOFILTER, B.SHUFFLE, B.BITSHUFFLE, B.DELTA, B.TRUNC_PREC) == (0, 1, 2, 3, 4),
      "constants NOFILTER..TRUNC_PREC are 0..4")
check(B.filter_id == 32026 and B.filter_name == "blosc2" and b2blosc.FILTER_ID == 32026,
      "filter_id 32026, filter_name 'blosc2'")
for args, opts, cfg, rep in TABLE:
    b = B(*args) if isinstance(args, tuple) else B(**args)
    check(b.filter_options == opts, "%r: filter_options %r, want %r" % (args, b.filter_options, opts))
    check(b.get_config() == cfg and list(b.get_config()) == list(cfg),
          "%r: get_config %r, want %r" % (args, b.get_config(), cfg))
    check(repr(b) == rep, "%r: repr %r, want %r" % (args, repr(b), rep))
    check((b.cname, b.clevel, b.filters, b.blocksize) == (cfg["cname"], cfg["clevel"], cfg["filters"],
                                                          cfg.get("blocksize", 0)),
          "%r: properties cname/clevel/filters/blocksize" % (args,))
    check(dict(b) == {"compression": 32026, "compression_opts": opts} and len(b) == 2,
          "%r: **Blosc2 gives compression/compression_opts" % (args,))
    check(isinstance(b, h5py.filters.FilterRefBase), "%r: an h5py FilterRefBase" % (args,))
    c = b.get_config()
    c["clevel"] = 99
    check(b.get_config()["clevel"] == cfg["clevel"], "get_config returns a copy")
    check(B(**b.get_config()) == b and hash(B(**b.get_config())) == hash(b),
          "%r: Blosc2(**get_config()) equals it" % (args,))

# errors: hdf5plugin raises KeyError for an unknown cname (dict lookup), ValueError
# for clevel outside 0..9 and for an unknown filters value
ERRORS = [({"cname": "snappy"}, KeyError), ({"cname": "LZ4"}, KeyError), ({"cname": "ndlz"}, KeyError),
          ({"clevel": 10}, ValueError), ({"clevel": -1}, ValueError), ({"clevel": "high"}, ValueError),
          ({"filters": 5}, ValueError), ({"filters": -1}, ValueError), ({"filters": "shufle"}, ValueError),
          ({"blocksize": -1}, ValueError), ({"blocksize": 2 ** 31}, ValueError)]
for kw, exc in ERRORS:
    try:
        B(**kw)
        check(False, "Blosc2(%r) raised nothing" % kw)
    except exc as e:
        msg = str(e)
        ok = True
        if exc is KeyError:  # ours names the valid names
            ok = all(n in msg for n in ("blosclz", "lz4", "lz4hc", "zlib", "zstd")) and repr(kw["cname"]) in msg
        check(ok, "Blosc2(%r): %s with message %r" % (kw, exc.__name__, msg))
    except Exception as e:  # noqa: BLE001
        check(False, "Blosc2(%r) raised %r, want %s" % (kw, e, exc.__name__))

# ---- 2. from_filter_options (hdf5plugin's defaults for short tuples) ----
FROM = [((), B()), ((0, 0, 0, 0), B()), ((0, 0, 0, 0, 7), B(clevel=7)),
        ((0, 0, 0, 0, 7, 2), B("blosclz", 7, 2)), ((0, 0, 0, 0, 7, 2, 5), B("zstd", 7, 2)),
        ((1, 0, 8, 200000, 5, 1, 5, 2, 50, 500), B("zstd", 5, 1)),       # as stored
        ((1, 32768, 4, 40000, 9, 3, 4, 2, 100, 100), B("zlib", 9, 3, blocksize=32768))]
for cd, want in FROM:
    got = B.from_filter_options(cd)
    check(got == want and got.get_config() == want.get_config(),
          "from_filter_options(%r) = %r, want %r" % (cd, got, want))
check(B._from_filter_options((0, 0, 0, 0, 1, 0, 1)) == B("lz4", 1, 0), "hdf5plugin's private name works")
for cd in [(0, 0, 0, 0, 5, 1, 3), (0, 0, 0, 0, 5, 1, 32), (0, 0, 0, 0, 12, 1, 1), (0, 0, 0, 0, 5, 9, 1)]:
    try:
        B.from_filter_options(cd)
        check(False, "from_filter_options(%r) raised nothing" % (cd,))
    except ValueError as e:
        check(True, "from_filter_options(%r): %s" % (cd, e))

# ---- 3. datasets: compression=Blosc2(...), **Blosc2(...), from_dataset ----
tmp = b2test.scratch_dir("pypkg_blosc2_")
rng = np.random.default_rng(24)
a = np.cumsum(rng.normal(size=(120, 90)), axis=1).astype(np.float32)
path = os.path.join(tmp, "ours.h5")
made = [B(), B("lz4", 9, B.BITSHUFFLE), B("zstd", 1, B.DELTA, blocksize=8192), B("zlib", 0, B.NOFILTER)]
with h5py.File(path, "w") as f:
    for i, b in enumerate(made):
        f.create_dataset("kw%d" % i, data=a, chunks=(60, 45), compression=b)
        f.create_dataset("star%d" % i, data=a, chunks=(60, 45), **b)
    f.create_dataset("gzip", data=a, chunks=(60, 45), compression="gzip")
with h5py.File(path, "r") as f:
    for i, b in enumerate(made):
        for name in ("kw%d" % i, "star%d" % i):
            ds = f[name]
            got = B.from_dataset(ds)
            check(got.get_config() == b.get_config(), "%s: from_dataset %r, wrote %r" % (name, got, b))
            check(np.array_equal(ds[...], a), "%s: data round trip" % name)
            check(b2blosc.h5.is_blosc2(ds), "%s: is_blosc2" % name)
    try:
        B.from_dataset(f["gzip"])
        check(False, "from_dataset on a gzip dataset raised nothing")
    except ValueError as e:
        check("32026" in str(e), "from_dataset on a gzip dataset: %s" % e)

print("test_pypkg_blosc2: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

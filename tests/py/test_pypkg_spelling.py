# SPDX-License-Identifier: BSD-3-Clause
"""One spelling for each setting (issue 38): b2blosc.Blosc2 and b2blosc.save take
the same filters names, raise the same exception for a bad cname, and every
error names the bad value and lists the valid ones.
  * names, any case, give the filter of hdf5plugin's constants (0/1/2/3 stay
    valid): Blosc2's cd_values and get_config(), save's stored filters;
  * Blosc2's pipeline takes save's list names;
  * errors for filters, cname and clevel name the value and the valid ones;
  * a bad cname raises UnknownCodecError (a KeyError and a ValueError) from both.
Runs from the source tree (python/ on sys.path, B2_H5_PLUGIN and B2_LIBB2 from the build)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import pyarray_common as pc  # noqa: E402

h5py, np, PDIR = hc.setup()
os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
# the library this build made, as the pyarray tests load it
if not b2test.INSTALLED:  # the installed package loads its own library
    os.environ.setdefault("B2_LIBB2", os.path.join(pc.build_dir(), "libb2", "libb2blosc.so"))
b2test.use_source_package()
import b2blosc  # noqa: E402

check = b2test.Checks()
B = b2blosc.Blosc2
tmp = b2test.scratch_dir("pypkg_spelling_")
x = np.arange(2000, dtype="<f4").reshape(40, 50)

# the spellings of each constant; 0..3 as in hdf5plugin (TRUNC_PREC has no
# precision, so save refuses it in either spelling, checked below)
SPELLINGS = {B.NOFILTER: ["nofilter", "NoFilter", "noshuffle", "none", b"NONE"],
             B.SHUFFLE: ["shuffle", "SHUFFLE", b"shuffle"],
             B.BITSHUFFLE: ["bitshuffle", "BitShuffle"],
             B.DELTA: ["delta", "DELTA"]}


def stored_filters(filters):
    """The six filter slots save() stored for filters."""
    path = os.path.join(tmp, "f.b2nd")
    with b2blosc.save(x, path, filters=filters) as a:
        return list(a.cparams["filters"])


for const, names in SPELLINGS.items():
    want_save = stored_filters(const)
    check(want_save[5] == const, "save(filters=%d) stores it in the last slot: %r" % (const, want_save))
    for name in names:
        b = B("zstd", 3, name)
        check(b == B("zstd", 3, const) and b.filters == const and b.get_config()["filters"] == const,
              "Blosc2(filters=%r) is Blosc2(filters=%d): %r" % (name, const, b))
        got = stored_filters(name)
        check(got == want_save, "save(filters=%r) stores %r, as filters=%d: %r" % (name, want_save, const, got))
check(B(filters="trunc_prec") == B(filters=B.TRUNC_PREC), "Blosc2 takes 'trunc_prec' as TRUNC_PREC")
check(stored_filters(["shuffle"]) == [1, 0, 0, 0, 0, 0], "a list still fills the slots in order")
check(stored_filters("bytedelta") == [35, 0, 0, 0, 0, 0], "a name without constant stays a one-filter list")
check(B(pipeline=["Shuffle", ("int_trunc", 10), "bytedelta"]).filter_options
      == B(pipeline=[B.SHUFFLE, (B.INT_TRUNC, 10), B.BYTEDELTA]).filter_options,
      "Blosc2's pipeline takes save's names")

VALID_FILTERS = ("NOFILTER", "SHUFFLE", "BITSHUFFLE", "DELTA", "TRUNC_PREC",
                 "'nofilter'", "'noshuffle'", "'none'", "'shuffle'", "'bitshuffle'")
VALID_CODECS = ("blosclz", "lz4", "lz4hc", "zlib", "zstd")


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the type is what is checked)
        return e
    return None


def check_error(what, fn, exc, contains):
    e = error_of(fn)
    text = str(e)
    missing = [c for c in contains if c not in text]
    check(isinstance(e, exc) and not missing,
          "%s: %s(%s), want %s%s" % (what, type(e).__name__, text, exc.__name__,
                                     " lacking %r" % missing if missing else ""))
    return e


path = os.path.join(tmp, "bad.b2nd")
for bad in ("shufle", 5, -1, 2.5):
    check_error("Blosc2(filters=%r)" % (bad,), lambda: B(filters=bad), ValueError,
                (repr(bad),) + VALID_FILTERS)
check_error("save(filters=7)", lambda: b2blosc.save(x, path, filters=7), ValueError,
            ("7",) + VALID_FILTERS)
# a name save() does not know, alone or in a list: the list's names (a superset)
for bad in ("shufle", ["shufle"]):
    check_error("save(filters=%r)" % (bad,), lambda: b2blosc.save(x, path, filters=bad), ValueError,
                ("'shufle'", "nofilter", "noshuffle", "none", "shuffle", "bitshuffle", "delta",
                 "trunc_prec", "bytedelta", "int_trunc"))
check_error("Blosc2(pipeline=['shufle'])", lambda: B(pipeline=["shufle"]), ValueError,
            ("'shufle'", "shuffle", "bytedelta"))
for bad in (10, -1):
    check_error("Blosc2(clevel=%d)" % bad, lambda: B(clevel=bad), ValueError, (str(bad), "[0, 9]"))
    check_error("save(clevel=%d)" % bad, lambda: b2blosc.save(x, path, clevel=bad), ValueError,
                (str(bad), "0..9"))
check_error("save(filters=TRUNC_PREC)", lambda: b2blosc.save(x, path, filters="trunc_prec"), ValueError,
            ("precision",))

# a bad cname: one exception type from both, which old callers still catch
for bad in ("snappy", "LZ5", 5, None):
    e1 = check_error("Blosc2(cname=%r)" % (bad,), lambda: B(cname=bad), b2blosc.UnknownCodecError,
                     (repr(bad),) + VALID_CODECS)
    e2 = check_error("save(cname=%r)" % (bad,), lambda: b2blosc.save(x, path, cname=bad),
                     b2blosc.UnknownCodecError, (repr(bad),) + VALID_CODECS)
    check(type(e1) is type(e2) and str(e1) == str(e2),
          "cname=%r: the same exception and message from Blosc2 and save" % (bad,))
check(issubclass(b2blosc.UnknownCodecError, KeyError) and issubclass(b2blosc.UnknownCodecError, ValueError),
      "UnknownCodecError is a KeyError (hdf5plugin's) and a ValueError (every other bad setting)")
check(b2blosc.array.UnknownCodecError is b2blosc.UnknownCodecError, "b2blosc.array exports the same class")
check(tuple(b2blosc.array.CODEC_NAMES) == VALID_CODECS, "array.py's codec names are _filters.py's")

print("test_pypkg_spelling: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

# SPDX-License-Identifier: BSD-3-Clause
"""hdf5plugin 7.1's own Blosc2 tests, run with our filter 32026 in place of its
own (issue 37, section 2, item 3).

How ours takes 32026's place, in one process:
  1. `import hdf5plugin` registers its filters, its Blosc2 among them.
  2. `b2blosc.register(force=True)` replaces 32026 in h5py's HDF5 with ours.
  3. `hdf5plugin._utils.register_filter` (the one function through which
     hdf5plugin.register(), with or without force, unregisters and loads a
     filter) is wrapped: for the name "blosc2" it registers nothing, counts
     the call and returns True (what the tests expect); every other name goes to
     hdf5plugin's own function. Nothing else of hdf5plugin is changed.
That 32026 is ours is shown by behaviour, before and after the run: our filter
honours B2_H5_MEMORY_LIMIT (read at each call), hdf5plugin's ignores it, so
reading a 1 MiB Blosc2 chunk with the limit at 4 KiB must fail, and succeed
without it.

The tests run: every test method of hdf5plugin.test whose name holds "Blosc2"
(TestHDF5PluginRW.testBlosc2: 5 codecs x 3 filters x clevels 0-9, checking the
cd_values our set_local writes; TestStrings.testStringsBlosc2;
TestFromFilterOptions*, TestFilterProperties), and TestRegisterFilter's three
tests, which re-register every embedded filter (blosc2 through the stub) and
write/read with each. They must all pass, none may fail or error; skips are
printed with hdf5plugin's reason (testStringsBlosc2 needs HDF5 >= 2.1, which no
env has) and the run fails when fewer than the expected number ran."""
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

import h5py  # noqa: E402
import hdf5plugin  # noqa: E402  (registers its filters, 32026 included)
import b2blosc  # noqa: E402
from hdf5plugin import _utils as hp_utils  # noqa: E402

STUB_CALLS = []


def stub_register_filter(orig):
    def register_filter(name):
        if name == "blosc2":
            STUB_CALLS.append(name)   # ours stays registered
            return True
        return orig(name)
    return register_filter


def filter_is_ours(work, tag):
    """True when 32026 in h5py's HDF5 honours B2_H5_MEMORY_LIMIT (only ours does)."""
    path = os.path.join(work, "probe_%s.h5" % tag)
    data = np.arange(1 << 17, dtype="f8")          # one 1 MiB chunk
    with h5py.File(path, "w") as f:
        f.create_dataset("d", data=data, chunks=data.shape, compression=hdf5plugin.Blosc2())
    os.environ["B2_H5_MEMORY_LIMIT"] = "4k"
    try:
        with h5py.File(path, "r") as f:
            f["d"][...]
        limited = "read"
    except OSError as e:   # h5py's error for a failing filter
        limited = "refused (%s)" % str(e).splitlines()[0][:120]
    finally:
        del os.environ["B2_H5_MEMORY_LIMIT"]
    with h5py.File(path, "r") as f:
        ok = np.array_equal(f["d"][...], data)
    print("probe %s: with B2_H5_MEMORY_LIMIT=4k the chunk was %s; without it read back %s"
          % (tag, limited, "equal" if ok else "DIFFERENT"))
    return limited.startswith("refused") and ok


class CountingResult(unittest.TextTestResult):
    """Counts subtests too (testBlosc2 runs its 150 cases as subtests)."""
    subtests = 0

    def addSubTest(self, test, subtest, err):
        CountingResult.subtests += 1
        super().addSubTest(test, subtest, err)


def blosc2_tests():
    """hdf5plugin.test's Blosc2 test methods, and TestRegisterFilter's."""
    from hdf5plugin import test as hp_test
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    names = []
    for cname in dir(hp_test):
        cls = getattr(hp_test, cname)
        if not (isinstance(cls, type) and issubclass(cls, unittest.TestCase)):
            continue
        for m in loader.getTestCaseNames(cls):
            if "Blosc2" in m or cname == "TestRegisterFilter":
                suite.addTest(cls(m))
                names.append("%s.%s" % (cname, m))
    return suite, names


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else pc.work_dir("peers_hdf5plugin_suite_")
    os.makedirs(work, exist_ok=True)
    print("h5py %s, HDF5 %s, hdf5plugin %s, b2blosc %s"
          % (h5py.__version__, h5py.version.hdf5_version, hdf5plugin.version, b2blosc.__version__))
    t = pc.Tally("hdf5plugin's Blosc2 tests with our filter")
    t.check(not filter_is_ours(work, "hdf5plugin-only"), "probe tells the filters apart",
            "hdf5plugin's own 32026 honoured B2_H5_MEMORY_LIMIT: the probe proves nothing")
    t.check(b2blosc.register(force=True) is True, "b2blosc.register(force=True)")
    hp_utils.register_filter = stub_register_filter(hp_utils.register_filter)
    t.check(filter_is_ours(work, "before"), "32026 is ours before the tests")
    suite, names = blosc2_tests()
    print("running %d hdf5plugin test methods:\n  %s" % (len(names), "\n  ".join(names)))
    res = unittest.TextTestRunner(verbosity=2, stream=sys.stdout,
                                  resultclass=CountingResult).run(suite)
    ran = res.testsRun - len(res.skipped)
    for test, why in res.skipped:
        print("SKIPPED by hdf5plugin: %s: %s" % (test.id(), why))
    t.check(not res.failures and not res.errors, "hdf5plugin tests pass",
            "%d failures, %d errors" % (len(res.failures), len(res.errors)))
    want = int(os.environ.get("B2_SUITE_MIN_RAN", "7"))
    t.check(ran >= want, "hdf5plugin tests ran", "only %d of %d ran (want >= %d)"
            % (ran, res.testsRun, want))
    t.check(CountingResult.subtests >= 150, "hdf5plugin subtests ran",
            "%d subtests" % CountingResult.subtests)
    t.check(len(STUB_CALLS) >= 2, "hdf5plugin re-registrations of blosc2 stubbed",
            "%d calls" % len(STUB_CALLS))
    t.check(filter_is_ours(work, "after"), "32026 is ours after the tests")
    print("hdf5plugin test methods: %d run (%d passed), %d skipped, %d failed, %d errors; "
          "%d subtests; blosc2 re-registrations stubbed: %d"
          % (ran, ran - len(res.failures) - len(res.errors), len(res.skipped),
             len(res.failures), len(res.errors), CountingResult.subtests, len(STUB_CALLS)))
    return t.summary()


if __name__ == "__main__":
    sys.exit(main())

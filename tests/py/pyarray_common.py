# SPDX-License-Identifier: BSD-3-Clause
"""Shared setup of the b2blosc.array tests (tests/py/test_pyarray*.py).

load() imports python/b2blosc/array.py from the source tree with the library of
$B2_BUILD_DIR (B2_LIBB2) and returns the module. The package is stubbed (a
module with only __path__), so these tests check array.py and _libb2.py whatever
the package's __init__ does; the package's own test covers the installed whole.
A sanitizer build's library is only loadable with its runtime preloaded (ctest
does that): otherwise the test skips (exit 77)."""
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import libb2_ctypes  # noqa: E402

PKG_DIR = os.path.join(b2test.REPO, "python", "b2blosc")
if b2test.INSTALLED:  # the installed package's folder, found without importing it
    import importlib.util
    PKG_DIR = importlib.util.find_spec("b2blosc").submodule_search_locations[0]


def package_library():
    """The libb2blosc.so the tests load: the installed package's (b2test.INSTALLED),
    else $B2_LIBB2, else the build's."""
    if b2test.INSTALLED:
        return os.path.join(PKG_DIR, "lib", "libb2blosc.so")
    return os.environ.get("B2_LIBB2") or os.path.join(build_dir(), "libb2", "libb2blosc.so")


# PYTHONPATH for child processes that import b2blosc: the source tree's python/,
# nothing against an installed package
SOURCE_PYTHONPATH = "" if b2test.INSTALLED else os.path.join(b2test.REPO, "python")


def build_dir():
    bd = os.environ.get("B2_BUILD_DIR")
    dirs = [bd] if bd else [os.path.join(b2test.REPO, d) for d in sorted(os.listdir(b2test.REPO))
                            if d.startswith("build")]
    for d in dirs:
        if os.path.isfile(os.path.join(d, "libb2", "libb2blosc.so")):
            return d
    b2test.skip("libb2blosc.so not built (looked in: %s)" % ", ".join(dirs))


def stub_package():
    """Make `import b2blosc.array` load python/b2blosc/array.py without running
    any b2blosc/__init__.py."""
    if "b2blosc" not in sys.modules:
        pkg = types.ModuleType("b2blosc")
        pkg.__path__ = [PKG_DIR]
        sys.modules["b2blosc"] = pkg


def load():
    if b2test.INSTALLED:  # the installed package, with its own library
        import b2blosc.array as ba
        return ba
    d = build_dir()
    lib = os.path.join(d, "libb2", "libb2blosc.so")
    if libb2_ctypes.sanitized(d) and "asan" not in os.environ.get("LD_PRELOAD", ""):
        b2test.skip("sanitizer build: libb2blosc.so needs the sanitizer runtimes preloaded (run through ctest)")
    os.environ["B2_LIBB2"] = lib
    stub_package()
    try:
        import numpy  # noqa: F401
    except ImportError as e:
        b2test.skip("numpy not importable by %s: %s" % (sys.executable, e))
    import b2blosc.array as ba
    return ba


def manifest():
    d = os.environ.get("B2_TEST_DATA") or os.path.join(b2test.REPO, "test_data")
    return d, b2test.load_manifest(os.path.join(d, "manifest.json"))

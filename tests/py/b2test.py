# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers for the Python tests: locating the b2 program and the
reference vectors, running b2, checking results against the manifest, and
skipping (exit 77) with a clear reason."""
import hashlib
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77
# B2_TEST_INSTALLED=1: the tests run against an installed b2blosc (the wheel's
# test, tests/wheel), never the source tree's python/ nor the build's libraries.
INSTALLED = os.environ.get("B2_TEST_INSTALLED") == "1"


# The reference HDF5 plugin (../shared/bench/ref) links Debian's libhdf5: it runs
# only in a process whose h5py is Debian's, never under pip's h5py (the wheel's test).
REF_NEEDS_DEBIAN_H5PY = "the reference plugin links Debian's libhdf5, this h5py bundles its own"


def ref_usable(path):
    """Whether the reference plugin file (or folder holding it) can be used here;
    prints why not."""
    f = path if path.endswith(".so") else os.path.join(path, "libH5Zblosc2.so")
    if INSTALLED:
        print("reference plugin not used: " + REF_NEEDS_DEBIAN_H5PY)
        return False
    return os.path.isfile(f)


def use_source_package():
    """Make `import b2blosc` take the source tree's python/, unless the tests
    run against an installed package (INSTALLED)."""
    if not INSTALLED:
        sys.path.insert(0, os.path.join(REPO, "python"))


def skip(reason):
    """Exit with the ctest 'skipped' code after saying why."""
    print("SKIP: " + reason)
    sys.exit(SKIP)


def interop_dir(required=True):
    """Directory of the c-blosc2 reference vectors, or skip when absent."""
    d = os.environ.get("B2_INTEROP_DIR") or os.path.join(REPO, "test_data")
    if not os.path.isfile(os.path.join(d, "manifest.json")):
        if required:
            skip("reference vectors not found (B2_INTEROP_DIR=%s has no manifest.json)" % d)
        return None
    return os.path.abspath(d)


class Checks:
    """A test's check counter: check(cond, msg) counts, prints and keeps failures."""

    def __init__(self):
        self.count = 0
        self.failures = []

    def __call__(self, cond, msg):
        self.count += 1
        if not cond:
            self.failures.append(msg)
            print("FAIL: " + msg)
        return cond


def scratch_dir(prefix):
    """A new temporary directory, removed with everything in it when the test exits."""
    import atexit
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


def clean_env(drop=("LD_PRELOAD",), **extra):
    """os.environ without the variables in drop (by default the sanitizer runtime
    ctest preloads for Python, which cmake, cc and built programs must not get),
    plus extra."""
    env = dict(os.environ)
    for k in drop:
        env.pop(k, None)
    env.update(extra)
    return env


def mpirun_command(nproc, mpiexec=None):
    """Command line starting nproc MPI ranks (mpiexec, $B2_MPIEXEC, mpirun or mpiexec
    on PATH), or None when there is no launcher. Open MPI gets --oversubscribe (more
    ranks than cores) and, as root (CI containers), --allow-run-as-root."""
    import shutil
    exe = mpiexec or os.environ.get("B2_MPIEXEC") or shutil.which("mpirun") or shutil.which("mpiexec")
    if not exe or not os.access(exe, os.X_OK):
        return None
    ver = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True).stdout
    cmd = [exe, "-np", str(nproc)]
    if "Open MPI" in ver or "OpenRTE" in ver:
        cmd.append("--oversubscribe")
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    return cmd


def version_macros():
    """(version from the B2_VERSION_MAJOR/MINOR/PATCH macros, B2_VERSION_STRING) of
    b2_common.h, the version's one home (CMake's project() reads it too)."""
    import re
    with open(os.path.join(REPO, "libb2", "include", "b2blosc", "b2_common.h")) as f:
        hdr = f.read()
    nums = [re.search(r"#define B2_VERSION_%s (\d+)" % p, hdr).group(1)
            for p in ("MAJOR", "MINOR", "PATCH")]
    m = re.search(r'#define B2_VERSION_STRING "([^"]*)"', hdr)
    return ".".join(nums), m.group(1) if m else None


def zlib_own_bytes():
    """True when the library under test encodes zlib streams with libdeflate (the
    default; its bytes and sizes differ from the reference's), False when built with
    B2_ZLIB_ENCODER=zlib (zlib's own bytes, as c-blosc2 writes them). Read from the
    CMake cache of B2_BUILD_DIR; without one, the default."""
    cache = os.path.join(os.environ.get("B2_BUILD_DIR", ""), "CMakeCache.txt")
    try:
        with open(cache) as f:
            return "B2_ZLIB_ENCODER:STRING=zlib\n" not in f.read()
    except OSError:
        return True


def load_manifest(path):
    with open(path) as f:
        return json.load(f)


def _program(env, subdir, name, what):
    """Path of a built program: $env, else build/ or build-asan/ SUBDIR/NAME;
    fails the test (exit 1) naming what was tried when none is there."""
    b = os.environ.get(env)
    cands = [b] if b else [os.path.join(REPO, d, subdir, name) for d in ("build", "build-asan")]
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    print("FAIL: %s not found (set %s); tried: %s" % (what, env, ", ".join(str(c) for c in cands)))
    sys.exit(1)


def b2_bin():
    """Path of the b2 program: $B2_BIN, else the usual build directories."""
    return _program("B2_BIN", "tools", "b2", "b2 program")


def bench_bin():
    """Path of the b2bench program (bench/, -DB2_BUILD_BENCH=ON): $B2_BENCH_BIN,
    else the usual build directories."""
    return _program("B2_BENCH_BIN", "bench", "b2bench", "b2bench program")


def _run(program, args, data, timeout):
    return subprocess.run([program] + [str(a) for a in args], input=data,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


def run_b2(args, data=None, timeout=120):
    """Run b2 with args (list of str); returns CompletedProcess with bytes output."""
    return _run(b2_bin(), args, data, timeout)


def run_bench(args, data=None, timeout=120):
    """Run b2bench with args (list of str); returns CompletedProcess with bytes output."""
    return _run(bench_bin(), args, data, timeout)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def check_expected(out, exp):
    """Compare decoded bytes with a manifest 'expected' entry. Returns None when
    they match, else a short description of the difference."""
    if len(out) != exp["length"]:
        return "length %d, expected %d" % (len(out), exp["length"])
    if exp.get("sha256") is not None:
        if sha256(out) != exp["sha256"]:
            return "sha256 differs"
    elif "unspecified_ranges" in exp:
        z = bytearray(out)
        for off, n in exp["unspecified_ranges"]:
            z[off:off + n] = bytes(n)
        if sha256(bytes(z)) != exp["sha256_unspecified_as_zero"]:
            return "sha256 (unspecified ranges as zero) differs"
    return None


class Counter:
    """Pass/fail tally that prints failures and a summary line."""

    def __init__(self, name):
        self.name, self.passed, self.failures = name, 0, []

    def ok(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL: " + what)
        return cond

    def finish(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, len(self.failures)))
        for f in self.failures[:50]:
            print("  failed: " + f)
        if len(self.failures) > 50:
            print("  ... and %d more" % (len(self.failures) - 50))
        sys.exit(1 if self.failures else 0)

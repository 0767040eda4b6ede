# SPDX-License-Identifier: BSD-3-Clause
"""Bad input to the b2blosc package gets a clear Python exception, never a crash.
Runs from the source tree (python/ on sys.path, B2_H5_PLUGIN = the built plugin),
each case in its own process so that a crash shows as a signal:
  * unknown cname: KeyError naming the valid names; clevel outside 0..9 and an
    unknown filters value: ValueError; the same through the deprecated
    b2blosc.h5.filter_kwargs;
  * a dataset whose chunks are corrupt (bytes flipped, a frame cut short): h5py's
    read and b2blosc.h5.read_slice raise OSError, the intact chunks still read;
  * the plugin file missing, not an ELF file, or an ELF library that is not
    libb2's plugin: `import b2blosc` works with a RuntimeWarning that names the
    file, b2blosc.register() and b2blosc.h5.read_slice raise b2blosc.PluginError
    (an OSError) naming the file and the reason;
  * the h5py-free part: with h5py hidden, `import b2blosc` works and Blosc2 builds."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

PDIR = hc.plugin_dir()
PLUGIN = os.path.join(PDIR, hc.PLUGIN_NAME)
PYDIR = os.path.join(b2test.REPO, "python")
tmp = b2test.scratch_dir("pypkg_errors_")
empty = os.path.join(tmp, "empty_plugin_dir")
os.mkdir(empty)
check = b2test.Checks()


def run(code, plugin=PLUGIN, *args):
    env = b2test.clean_env(drop=("LD_PRELOAD", "B2_H5_PLUGIN"), HDF5_PLUGIN_PATH=empty,
                           PYTHONPATH=PYDIR, B2_H5_PLUGIN=plugin)
    if os.environ.get("LD_PRELOAD"):  # sanitizer builds: the plugin is instrumented
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    r = subprocess.run([sys.executable, "-c", code] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    return r.returncode, r.stdout


# ---- arguments ----
code = r'''
import b2blosc, b2blosc.h5 as b2h5
cases = [(dict(cname="snappy"), KeyError), (dict(cname=None), KeyError), (dict(clevel=10), ValueError),
         (dict(clevel=-1), ValueError), (dict(filters=7), ValueError)]
for kw, exc in cases:
    try:
        b2blosc.Blosc2(**kw); print("NO ERROR", kw)
    except exc as e:
        print("OK %s %s: %s" % (kw, type(e).__name__, e))
import warnings
for kw, exc in [(dict(codec="snappy"), KeyError), (dict(clevel=12), ValueError)]:
    try:  # the deprecated name: still the same errors, after its warning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            b2h5.filter_kwargs(**kw)
        print("NO ERROR", kw)
    except exc as e:
        print("OK filter_kwargs %s %s" % (kw, type(e).__name__))
'''
rc, out = run(code)
print(out, end="")
check(rc == 0 and "NO ERROR" not in out and out.count("OK ") == 7, "argument errors raise (rc %d)" % rc)
check("valid names: blosclz, lz4, lz4hc, zlib, zstd" in out and "'snappy'" in out,
      "the cname error names the bad name and the valid names")

# ---- corrupt chunks ----
code = r'''
import sys, numpy as np, h5py, b2blosc, b2blosc.h5 as b2h5
path = sys.argv[1]
a = np.arange(200 * 300, dtype=np.float32).reshape(200, 300)
with h5py.File(path, "w") as f:
    d = f.create_dataset("x", data=a, chunks=(100, 150), compression=b2blosc.Blosc2("lz4"))
    m, raw = d.id.read_direct_chunk((0, 0))
    bad = bytearray(raw)
    for i in range(100, len(bad), 7):
        bad[i] ^= 0x5A
    d.id.write_direct_chunk((0, 0), bytes(bad))                       # bytes flipped
    m, raw = d.id.read_direct_chunk((100, 0))
    d.id.write_direct_chunk((100, 0), raw[: len(raw) // 2])            # cut short
with h5py.File(path, "r") as f:
    d = f["x"]
    for key in [np.s_[0:5, 0:5], np.s_[150:160, 10:20], np.s_[...]]:
        for how, read in (("h5py", lambda k: d[k]), ("read_slice", lambda k: b2h5.read_slice(d, k))):
            try:
                read(key); print("NO ERROR", how, key)
            except OSError as e:
                print("OK %s %s: %s" % (how, key, e))
    ok = np.array_equal(d[0:100, 150:300], a[0:100, 150:300]) and \
        np.array_equal(b2h5.read_slice(d, np.s_[120:130, 200:210]), a[120:130, 200:210])
    print("INTACT", ok)
'''
rc, out = run(code, PLUGIN, os.path.join(tmp, "corrupt.h5"))
print(out, end="")
check(rc == 0, "corrupt chunks: the process ends normally (rc %d)" % rc)
check("NO ERROR" not in out and out.count("OK ") == 6, "every read of a corrupt chunk raises OSError")
check("INTACT True" in out, "intact chunks of the same dataset still read")
check("blosc2 filter" in out, "h5py's error carries the filter's reason")

# ---- the plugin file ----
notelf = os.path.join(tmp, "libH5Zb2.so")
with open(notelf, "w") as f:
    f.write("this is not a shared library\n" * 200)
libz = next((p for p in ("/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1",
                         "/usr/lib/libz.so.1") if os.path.isfile(p)), None)
code = r'''
import sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as w:
    import b2blosc
print("WARN", [str(x.message) for x in w if issubclass(x.category, RuntimeWarning)])
import h5py, numpy as np
print("AVAIL", h5py.h5z.filter_avail(32026))
for what, call in (("register", lambda: b2blosc.register()),
                   ("read_slice", lambda: __import__("b2blosc.h5").h5.read_slice(ds, (0, 0)))):
    with h5py.File(sys.argv[1], "w") as f:
        ds = f.create_dataset("plain", data=np.zeros((4, 4)), chunks=(2, 2))
        try:
            call(); print("NO ERROR", what)
        except b2blosc.PluginError as e:
            print("ERR %s %s|%s|%s|%s" % (what, isinstance(e, OSError), e.filename, e.errno, e))
'''
cases = [("missing", os.path.join(tmp, "nowhere", "libH5Zb2.so"), "no such file"),
         ("not ELF", notelf, "will not load"),
         ("not our plugin", libz, "is not libb2's HDF5 plugin")]
for label, path, reason in cases:
    if path is None:
        continue
    rc, out = run(code, path, os.path.join(tmp, "p.h5"))
    print(out, end="")
    check(rc == 0, "%s: the process ends normally (rc %d)" % (label, rc))
    check("WARN [" in out and path in out.split("WARN", 1)[1].split("\n")[0]
          and reason in out.split("WARN", 1)[1].split("\n")[0],
          "%s: import warns naming %s and '%s'" % (label, path, reason))
    check("AVAIL False" in out, "%s: filter 32026 is not registered" % label)
    for what in ("register", "read_slice"):
        line = next((ln for ln in out.splitlines() if ln.startswith("ERR " + what)), "")
        parts = line.split("|")
        check(len(parts) == 4 and parts[0].endswith("True") and parts[1] == os.path.abspath(path)
              and path in parts[3] and reason in parts[3],
              "%s: %s raises PluginError (an OSError) naming the file and '%s': %r" % (label, what, reason, line))

# ---- without h5py ----
code = r'''
import sys
class NoH5py:
    def find_spec(self, name, path=None, target=None):
        if name == "h5py" or name.startswith("h5py."):
            raise ImportError("h5py hidden by the test")
sys.meta_path.insert(0, NoH5py())
import b2blosc
b = b2blosc.Blosc2("zstd", 3, b2blosc.Blosc2.BITSHUFFLE)
print("NOH5PY", "h5py" in sys.modules, dict(b), repr(b), b2blosc.get_config()["registered"])
'''
rc, out = run(code)
print(out, end="")
check(rc == 0 and "NOH5PY False {'compression': 32026, 'compression_opts': (0, 0, 0, 0, 3, 2, 5)} "
      "Blosc2(cname='zstd', clevel=3, filters=2) None" in out, "without h5py: import works, Blosc2 builds")

print("test_pypkg_errors: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc registers filter 32026 with h5py's own HDF5, and says which.

A process may hold several libhdf5 copies (pip's PyTables, netCDF4 and h5py
each bring one). Here the second copy is Debian's MPI build of the same HDF5,
libhdf5_openmpi.so.103, loaded by ctypes before h5py. Each case runs in its own
process (python/ on sys.path, B2_H5_PLUGIN = the built plugin):
  * plain: get_config() names h5py's libhdf5 (the file h5py's h5z module links)
    and h5py's HDF5 version; a dataset written through h5py runs 32026
    (pipeline, filter_mask 0, chunks smaller than raw, values back);
  * the other libhdf5 loaded first: registration still picks h5py's (before
    b2_h5_register_with it took the first loaded library that had the
    symbols: the wrong one, and h5py then could not use the filter);
  * the plugin bound to the other libhdf5 first (as when that HDF5 loads it
    from HDF5_PLUGIN_PATH): b2blosc.register() raises PluginError naming the
    library it is bound to, never registers a filter that would call the wrong
    HDF5;
  * the C entry points alone: b2_h5_api_info is -1 before any binding,
    b2_h5_register_with refuses an anchor that is not loaded or links no
    HDF5 (-2), and a NULL anchor behaves as b2_h5_register().
The tests/peers/check_registration.py script checks the same with pip's
wheels (tables and netCDF4 first)."""
import ctypes.util
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

PLUGIN = os.path.join(hc.plugin_dir(), hc.PLUGIN_NAME)
PYDIR = os.path.join(b2test.REPO, "python")
OTHER = "libhdf5_openmpi.so.103"  # Debian's libhdf5-openmpi-103-1
tmp = b2test.scratch_dir("pypkg_register_")
empty = os.path.join(tmp, "empty_plugin_dir")
os.mkdir(empty)
check = b2test.Checks()

PRELUDE = r"""
import ctypes, ctypes.util, os, sys
def other_hdf5():
    return ctypes.CDLL(sys.argv[1])  # RTLD_LOCAL, as Python loads extension modules
def maps_file_of(addr):
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if lo <= addr < hi and len(parts) > 5:
                return os.path.realpath(parts[-1])
def h5py_hdf5():
    import h5py.h5z
    lib = ctypes.CDLL(h5py.h5z.__file__, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    return maps_file_of(ctypes.cast(lib.H5Zregister, ctypes.c_void_p).value)
def write_check(fn):
    import numpy as np, h5py, b2blosc
    a = np.arange(60 * 70, dtype="f8").reshape(60, 70)
    with h5py.File(fn, "w") as f:
        ds = f.create_dataset("d", data=a, chunks=(30, 35), compression=b2blosc.Blosc2())
        fid = ds.id.get_create_plist().get_filter(0)[0]
        infos = [ds.id.get_chunk_info(i) for i in range(ds.id.get_num_chunks())]
        print("FILTER", fid, "MASKS", [i.filter_mask for i in infos],
              "SMALLER", all(i.size < 30 * 35 * 8 for i in infos))
    with h5py.File(fn, "r") as f:
        print("VALUES", bool(np.array_equal(f["d"][...], a)))
"""


def run(code, *args):
    env = b2test.clean_env(drop=("LD_PRELOAD", "B2_H5_PLUGIN"), HDF5_PLUGIN_PATH=empty,
                           PYTHONPATH=PYDIR, B2_H5_PLUGIN=PLUGIN)
    if os.environ.get("LD_PRELOAD"):  # sanitizer builds: the plugin is instrumented
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    r = subprocess.run([sys.executable, "-c", PRELUDE + code] + list(args), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=120)
    return r.returncode, r.stdout


def fields(out):
    """{first word: rest of line} of the child's output."""
    return {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] if " " in ln else ""
            for ln in out.splitlines()}


def wrote_through_32026(f, case):
    check(f.get("FILTER", "").startswith("32026 MASKS [0, 0, 0, 0] SMALLER True"),
          "%s: pipeline 32026, filter_mask 0 and compressed chunks (got %r)"
          % (case, f.get("FILTER")))
    check(f.get("VALUES") == "True", "%s: values read back (got %r)" % (case, f.get("VALUES")))


# plain
rc, out = run(r"""
import h5py, b2blosc
cfg = b2blosc.get_config()
print("REG", cfg["registered"]); print("LIB", cfg["hdf5_library"]); print("H5PYLIB", h5py_hdf5())
print("VER", cfg["hdf5_version"]); print("H5PYVER", h5py.version.hdf5_version)
write_check(sys.argv[2])
""", "-", os.path.join(tmp, "plain.h5"))
f = fields(out)
check(rc == 0, "plain: exit %d: %s" % (rc, out))
check(f.get("REG") == "b2blosc", "plain: registered %r" % f.get("REG"))
check(f.get("LIB") and f.get("LIB") == f.get("H5PYLIB"),
      "plain: get_config names h5py's libhdf5 (%r vs %r)" % (f.get("LIB"), f.get("H5PYLIB")))
check(f.get("VER") and f.get("VER") == f.get("H5PYVER"),
      "plain: get_config version %r is h5py's %r" % (f.get("VER"), f.get("H5PYVER")))
wrote_through_32026(f, "plain")

other = ctypes.util.find_library("hdf5_openmpi")
if not other:
    print("%d checks, %d failed" % (check.count, len(check.failures)))
    if check.failures:
        sys.exit(1)
    b2test.skip("%s (Debian's libhdf5-openmpi-103-1) is needed for the two-HDF5 cases; "
                "scripts/setup.sh installs it with libhdf5-openmpi-dev" % OTHER)

# the other libhdf5 loaded first
rc, out = run(r"""
o = other_hdf5()
import h5py, b2blosc
cfg = b2blosc.get_config()
print("OTHERLIB", maps_file_of(ctypes.cast(o.H5Zregister, ctypes.c_void_p).value))
print("LIB", cfg["hdf5_library"]); print("H5PYLIB", h5py_hdf5())
write_check(sys.argv[2])
""", OTHER, os.path.join(tmp, "other_first.h5"))
f = fields(out)
check(rc == 0, "other first: exit %d: %s" % (rc, out))
check(f.get("OTHERLIB") and f.get("OTHERLIB") != f.get("H5PYLIB"),
      "other first: two different libhdf5 files (%r, %r)" % (f.get("OTHERLIB"), f.get("H5PYLIB")))
check(f.get("LIB") == f.get("H5PYLIB"),
      "other first: registered with h5py's %r, not %r" % (f.get("H5PYLIB"), f.get("LIB")))
wrote_through_32026(f, "other first")

# the plugin bound to the other libhdf5 first
rc, out = run(r"""
o = other_hdf5()
plug = ctypes.CDLL(os.environ["B2_H5_PLUGIN"])  # the same handle b2blosc gets
print("BIND", plug.b2_h5_register_with(sys.argv[1].encode()))
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import h5py, b2blosc
print("WARN", " | ".join(str(x.message) for x in w).replace("\n", " "))
try:
    b2blosc.register()
    print("RAISED none")
except b2blosc.PluginError as e:
    print("RAISED", str(e).replace("\n", " "))
print("FILTER_AVAIL", h5py.h5z.filter_avail(32026))
print("LIB", b2blosc.get_config()["hdf5_library"])
""", OTHER)
f = fields(out)
check(rc == 0, "bound elsewhere: exit %d: %s" % (rc, out))
check(f.get("BIND") == "1", "bound elsewhere: b2_h5_register_with(%s) = %r" % (OTHER, f.get("BIND")))
for key in ("WARN", "RAISED"):
    msg = f.get(key, "")
    check("made another HDF5 library" in msg and "libhdf5_openmpi" in msg
          and "h5z" in msg, "bound elsewhere: %s names both libraries: %r" % (key, msg))
check(f.get("FILTER_AVAIL") == "False", "bound elsewhere: h5py's HDF5 has no 32026 (%r)"
      % f.get("FILTER_AVAIL"))
check("libhdf5_openmpi" in f.get("LIB", ""), "bound elsewhere: get_config says so (%r)"
      % f.get("LIB"))

# the C entry points alone
rc, out = run(r"""
plug = ctypes.CDLL(os.environ["B2_H5_PLUGIN"])
buf = ctypes.create_string_buffer(512); ver = (ctypes.c_uint * 3)(9, 9, 9)
print("INFO0", plug.b2_h5_api_info(buf, 512, ver), repr(buf.value), list(ver))
print("MISSING", plug.b2_h5_register_with(b"/nonexistent/h5z.so"))
print("NOHDF5", plug.b2_h5_register_with(ctypes.util.find_library("c").encode()))
import h5py  # noqa: F401
print("NULL", plug.b2_h5_register_with(None))
print("INFO1", plug.b2_h5_api_info(buf, 512, ver), list(ver))
print("TRUNC", plug.b2_h5_api_info(buf, 4, ver), len(buf.value))
""")
f = fields(out)
check(rc == 0, "C entry points: exit %d: %s" % (rc, out))
check(f.get("INFO0") == "-1 b'' [0, 0, 0]", "b2_h5_api_info before binding: %r" % f.get("INFO0"))
check(f.get("MISSING") == "-2", "anchor not loaded: %r" % f.get("MISSING"))
check(f.get("NOHDF5") == "-2", "anchor without HDF5 (libc): %r" % f.get("NOHDF5"))
check(f.get("NULL") == "1", "NULL anchor registers as b2_h5_register(): %r" % f.get("NULL"))
info1 = f.get("INFO1", "").replace("[", "").replace("]", "").replace(",", "").split()
check(len(info1) == 4 and info1[0] == "0" and int(info1[1]) >= 1,
      "b2_h5_api_info after binding: 0 and a version (got %r)" % f.get("INFO1"))
check(f.get("TRUNC") == "0 3", "b2_h5_api_info truncates to cap 4 (3 bytes and NUL): %r"
      % f.get("TRUNC"))

print("%d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

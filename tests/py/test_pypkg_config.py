# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.get_config() and `python -m b2blosc` tell what a bug report needs
(issue 38). Each case runs in its own process (python/ on sys.path, B2_H5_PLUGIN
and B2_LIBB2 = the built plugin and library, HDF5_PLUGIN_PATH empty):
  * plain: the package and libb2 versions (the header's), libb2's file, the
    SIMD kernels (B2_SIMD=generic caps them), each codec library with the
    version the loaded file itself gives (LZ4_versionString, ZSTD_versionString
    called in the mapped file) and the folders they were loaded from, the
    plugin file, registered "b2blosc" with h5py's HDF5 and its version, no
    filter 32026 before ours;
  * threads: 1 by default; B2_H5_NTHREADS, else BLOSC_NTHREADS (junk skipped),
    as the plugin reads them: the b2blosc.h5 reader of a dataset opens with
    the number get_config() names;
  * a filter 32026 already there: a copy of the plugin on HDF5_PLUGIN_PATH
    ("plugin path", kept, the copy named), and a copy registered before
    import ("registered", the copy named);
  * without h5py: `import b2blosc` loads neither libb2 nor the report module,
    get_config() still gives libb2, SIMD and codecs, and says the HDF5 side is
    unknown;
  * `python -m b2blosc` prints the same, and --json get_config() itself."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import pyarray_common as pc  # noqa: E402

PLUGIN = os.path.join(hc.plugin_dir(), hc.PLUGIN_NAME)
LIBB2 = pc.package_library()
PYDIR = pc.SOURCE_PYTHONPATH
tmp = b2test.scratch_dir("pypkg_config_")
empty = os.path.join(tmp, "empty_plugin_dir")
os.mkdir(empty)
check = b2test.Checks()
SIMD = {"generic", "sse2", "avx2", "avx512", "avx512gfni", "neon"}


def run(code, args=(), **env_extra):
    """(exit code, stdout, stderr) of python -c code in a clean environment."""
    env = b2test.clean_env(drop=("LD_PRELOAD", "B2_H5_PLUGIN", "B2_LIBB2", "B2_SIMD",
                                 "B2_H5_NTHREADS", "BLOSC_NTHREADS"),
                           HDF5_PLUGIN_PATH=empty, PYTHONPATH=PYDIR, B2_H5_PLUGIN=PLUGIN,
                           B2_LIBB2=LIBB2)
    if os.environ.get("LD_PRELOAD"):  # sanitizer builds: the libraries are instrumented
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    env.update(env_extra)
    cmd = [sys.executable] + (["-c", code] if code is not None else []) + list(args)
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120, cwd=tmp)
    return r.returncode, r.stdout, r.stderr


def config_of(code="", **env):
    """get_config() of a child that ran code first (json), or None."""
    rc, out, err = run("import json, b2blosc\n" + code +
                       "\nprint('CFG', json.dumps(b2blosc.get_config()))", **env)
    for ln in out.splitlines():
        if ln.startswith("CFG "):
            return json.loads(ln[4:])
    check(False, "child failed (exit %d): %s%s" % (rc, out, err))
    return None


def header_version():
    with open(os.path.join(b2test.REPO, "libb2", "include", "b2blosc", "b2_common.h")) as f:
        return re.search(r'#define B2_VERSION_STRING "([^"]+)"', f.read()).group(1)


# plain
VERSIONS_IN_FILES = r"""
import ctypes
def asked(path, fn):
    f = getattr(ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY), fn)
    f.restype = ctypes.c_char_p
    return f().decode()
import os
c = b2blosc.get_config()["codec_libraries"]
print("ASKED", json.dumps({"lz4": [asked(p, "LZ4_versionString") for p in c["lz4"]["files"]],
                           "zstd": [asked(p, "ZSTD_versionString") for p in c["zstd"]["files"]]}))
"""
rc, out, err = run("import json, b2blosc\n" + VERSIONS_IN_FILES +
                   "print('CFG', json.dumps(b2blosc.get_config()))")
cfg = asked = None
for ln in out.splitlines():
    if ln.startswith("CFG "):
        cfg = json.loads(ln[4:])
    elif ln.startswith("ASKED "):
        asked = json.loads(ln[6:])
check(rc == 0 and cfg is not None, "plain: exit %d: %s%s" % (rc, out, err))
if cfg:
    want = header_version()
    check(cfg["version"] == want and cfg["libb2_version"] == want,
          "plain: package %r and libb2 %r versions are the header's %r"
          % (cfg["version"], cfg["libb2_version"], want))
    check(cfg["libb2_file"] == os.path.realpath(LIBB2) and cfg["libb2_error"] is None,
          "plain: libb2_file %r is the built %r" % (cfg["libb2_file"], os.path.realpath(LIBB2)))
    check(cfg["simd"] in SIMD, "plain: simd %r" % cfg["simd"])
    libs = cfg["codec_libraries"]
    check({"lz4", "zstd", "libdeflate", "xxhash"} <= set(libs), "plain: codec libraries %s" % sorted(libs))
    for name, c in libs.items():
        check(re.match(r"^\d+(\.\d+)+$", c["version"]) and c["codecs"] and
              c["version_from"] in ("library", "header"), "plain: %s entry %r" % (name, c))
        check(c["files"] and all(os.path.isfile(f) and os.path.basename(f).startswith("lib")
                                 for f in c["files"]), "plain: %s files %r" % (name, c["files"]))
    check(libs.get("lz4", {}).get("codecs") == ["lz4", "lz4hc"] and
          "zlib" in " ".join(libs.get("libdeflate", {}).get("codecs", [])),
          "plain: what the libraries serve: %r" % libs)
    if asked:
        for name in ("lz4", "zstd"):
            check(asked[name] and all(v == libs[name]["version"] for v in asked[name]),
                  "plain: %s version %r is what the loaded file says: %r"
                  % (name, libs[name]["version"], asked[name]))
    else:
        check(False, "plain: versions asked from the files: %s" % out)
    dirs = sorted({os.path.dirname(f) for c in libs.values() for f in c["files"]})
    check(cfg["codec_library_dirs"] == dirs, "plain: codec_library_dirs %r" % cfg["codec_library_dirs"])
    check(cfg["plugin_file"] == os.path.abspath(PLUGIN) and cfg["plugin_loaded"],
          "plain: plugin_file %r, loaded %r" % (cfg["plugin_file"], cfg["plugin_loaded"]))
    check(cfg["registered"] == "b2blosc" and cfg["filter_before"] == {"how": None, "files": []},
          "plain: registered %r, filter before %r" % (cfg["registered"], cfg["filter_before"]))
    check(cfg["hdf5_version"] and cfg["hdf5_version"] == cfg["h5py_hdf5_version"] and
          os.path.isfile(cfg["hdf5_library"] or ""),
          "plain: bound to %r %r, h5py's HDF5 %r" % (cfg["hdf5_library"], cfg["hdf5_version"],
                                                     cfg["h5py_hdf5_version"]))
    t = cfg["threads"]
    check(t["environment"] == {} and t["hdf5_filter"] == t["h5_read"] == t["h5_write"] == 1 and
          t["save"] == 1 and t["open"] == 1, "plain: default threads %r" % t)

cfg = config_of(B2_SIMD="generic")
check(cfg and cfg["simd"] == "generic" and cfg["environment"].get("B2_SIMD") == "generic",
      "B2_SIMD=generic: simd %r" % (cfg and cfg["simd"]))

# threads, compared with what the plugin's reader opens with
READER = r"""
import h5py, numpy as np, b2blosc.h5 as b2h5
with h5py.File(os.path.join(os.getcwd(), "t.h5"), "w") as f:
    ds = f.create_dataset("d", data=np.arange(4000.0).reshape(40, 100), chunks=(20, 50),
                          compression=b2blosc.Blosc2())
    b2h5.read(ds, np.s_[0:5, 0:5])
    print("READER", b2h5._reader_default[id(ds.id)])
"""
for env, want in (({"B2_H5_NTHREADS": "3"}, 3), ({"BLOSC_NTHREADS": "2"}, 2),
                  ({"B2_H5_NTHREADS": "junk", "BLOSC_NTHREADS": "2"}, 2),
                  ({"B2_H5_NTHREADS": "4", "BLOSC_NTHREADS": "2"}, 4)):
    rc, out, err = run("import os, json, b2blosc\n" + READER +
                       "print('CFG', json.dumps(b2blosc.get_config()['threads']))", **env)
    got = {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] for ln in out.splitlines() if " " in ln}
    t = json.loads(got.get("CFG", "{}"))
    check(rc == 0 and t.get("hdf5_filter") == t.get("h5_read") == t.get("h5_write") == want and
          got.get("READER") == str(want) and t.get("environment") == env,
          "threads %r: get_config %r, reader %r (%s)" % (env, t, got.get("READER"), err[-300:]))

# a filter 32026 there before b2blosc: a copy of the plugin on HDF5_PLUGIN_PATH ...
pp = os.path.join(tmp, "other_plugins")
os.mkdir(pp)
copy = os.path.join(pp, "libcopy_of_32026.so")
with open(PLUGIN, "rb") as src, open(copy, "wb") as dst:
    dst.write(src.read())
# a copy of the wheel's plugin finds its bundled libraries only beside the package
# (its RPATH is $ORIGIN/../../b2blosc.libs): the copy gets them on LD_LIBRARY_PATH.
# Without the wheel's autoregistration: it would register ours when h5py.h5z is
# imported, before the copy, which is not what these cases are about.
COPY_ENV = {"LD_LIBRARY_PATH": os.path.join(os.path.dirname(os.path.dirname(PLUGIN)), "..",
                                            "b2blosc.libs"),
            "B2BLOSC_NO_AUTOREGISTER": "1"} if b2test.INSTALLED else {}
cfg = config_of(HDF5_PLUGIN_PATH=pp, **COPY_ENV)
check(cfg and cfg["registered"] == "kept" and
      cfg["filter_before"] == {"how": "plugin path", "files": [os.path.realpath(copy)]},
      "plugin path: registered %r, before %r" % (cfg and cfg["registered"], cfg and cfg["filter_before"]))
# ... and a copy registered before the import (as hdf5plugin does)
FIRST = r"""
import ctypes, h5py.h5z
other = ctypes.CDLL(%r)
other.b2_h5_register_with.argtypes = [ctypes.c_char_p]
assert other.b2_h5_register_with(h5py.h5z.__file__.encode()) == 1
""" % copy
rc, out, err = run(FIRST + "import json, b2blosc\nprint('CFG', json.dumps(b2blosc.get_config()))",
                   **COPY_ENV)
cfg = json.loads(out.split("CFG ", 1)[1]) if "CFG " in out else None
check(cfg and cfg["registered"] == "kept" and
      cfg["filter_before"] == {"how": "registered", "files": [os.path.realpath(copy)]},
      "registered first: %r (%s)" % (cfg and (cfg["registered"], cfg["filter_before"]), err[-300:]))

# without h5py (an import hook refusing it), and what `import b2blosc` loads
NO_H5PY = r"""
import sys, json
class NoH5py:
    def find_spec(self, name, path=None, target=None):
        if name == "h5py" or name.startswith("h5py."):
            raise ImportError("no h5py here")
sys.meta_path.insert(0, NoH5py())
import b2blosc
with open("/proc/self/maps") as f:
    print("LOADED", "libb2blosc" in f.read(), "b2blosc._config" in sys.modules)
print("CFG", json.dumps(b2blosc.get_config()))
"""
rc, out, err = run(NO_H5PY)
got = {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] for ln in out.splitlines() if " " in ln}
check(got.get("LOADED") == "False False", "import b2blosc loads neither libb2 nor _config: %r"
      % got.get("LOADED"))
cfg = json.loads(got.get("CFG", "null"))
check(rc == 0 and cfg and cfg["h5py_version"] is None and cfg["registered"] is None and
      cfg["filter_before"] is None and cfg["hdf5_library"] is None and cfg["simd"] in SIMD and
      "lz4" in cfg["codec_libraries"], "without h5py: %r (%s)" % (cfg, err[-300:]))

# python -m b2blosc
rc, out, err = run(None, ["-m", "b2blosc"])
check(rc == 0 and all(s in out for s in ("libb2:", "SIMD kernels:", "codec libraries:", "lz4 ",
                                         "zstd ", "libdeflate ", PLUGIN, "HDF5 bound to:",
                                         "32026 before b2blosc:  none", "threads:")),
      "python -m b2blosc: exit %d:\n%s%s" % (rc, out, err))
rc, out, err = run(None, ["-m", "b2blosc", "--json"])
try:
    j = json.loads(out)
except ValueError:
    j = None
check(rc == 0 and j and j["libb2_file"] == os.path.realpath(LIBB2) and j["registered"] == "b2blosc",
      "python -m b2blosc --json: exit %d: %s%s" % (rc, out[:500], err))

print("%d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

# SPDX-License-Identifier: BSD-3-Clause
"""The Python package b2blosc built and installed as a user would, offline.

  * `git clone` of this tree's HEAD (B2_SOURCE_DIR, else the tree holding this
    file) into a temporary folder, so nothing uncommitted helps;
  * a venv made by `/usr/bin/python3 -m venv --system-site-packages`, and in it
    `pip install --no-build-isolation --no-index .` (setup.py runs the CMake build);
  * the installed distribution: a platform wheel tag (not py3-none-any), the
    licence in its metadata, the plugin alone in b2blosc/plugins/, the library in
    b2blosc/lib/, every installed file in RECORD;
  * in a process whose HDF5_PLUGIN_PATH names an empty folder (so no other copy of
    filter 32026 can help; checked unavailable before the import): `import b2blosc`
    registers the filter with h5py's HDF5 without loading a second one; h5py writes
    and reads datasets through b2blosc.Blosc2(...) for every cname and every
    filters value, equal after the round trip, compressed (TRUNC_PREC: stored raw,
    exact); b2blosc.h5 fast slicing and fast_slicing(); b2blosc.open/save (a .b2nd
    round trip, whole and sliced); h5dump reads the file with HDF5_PLUGIN_PATH=b2blosc.PLUGIN_PATH;
  * `pip uninstall -y b2blosc` leaves site-packages exactly as before the install."""
import glob
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

check = b2test.Checks()
SRC = os.environ.get("B2_SOURCE_DIR") or b2test.REPO
PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
tmp = b2test.scratch_dir("pypkg_install_")
ENV = b2test.clean_env(drop=("LD_PRELOAD", "B2_H5_PLUGIN", "PYTHONPATH", "HDF5_PLUGIN_PATH",
                             "PIP_INDEX_URL", "PIP_FIND_LINKS", "VIRTUAL_ENV"),
                       PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")


def run(cmd, what, env=None, cwd=None, timeout=900):
    t0 = time.time()
    r = subprocess.run(cmd, env=env or ENV, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=timeout)
    print("%s: rc %d, %.1f s" % (what, r.returncode, time.time() - t0))
    if r.returncode != 0:
        print(r.stdout[-4000:])
    return r


if shutil.which("git") is None or not os.path.exists(os.path.join(SRC, ".git")):
    b2test.skip("no git, or %s is not a git checkout: cannot make a clean clone" % SRC)
for mod in ("venv", "pip", "setuptools", "wheel", "h5py"):
    r = subprocess.run([PY, "-c", "import %s" % mod], env=ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode != 0:
        b2test.skip("%s has no %s (Debian: python3-venv python3-pip python3-setuptools python3-wheel "
                    "python3-h5py)" % (PY, mod))

# ---- clean clone, venv, install ----
src = os.path.join(tmp, "src")
r = run(["git", "clone", "-q", "--no-hardlinks", SRC, src], "git clone")
if not check(r.returncode == 0, "git clone of %s" % SRC):
    sys.exit(1)
head = subprocess.run(["git", "-C", SRC, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                      universal_newlines=True).stdout.strip()
chead = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                       universal_newlines=True).stdout.strip()
check(head == chead, "the clone is at the tree's HEAD (%s, %s)" % (head[:12], chead[:12]))
venv = os.path.join(tmp, "venv")
r = run([PY, "-m", "venv", "--system-site-packages", venv], "venv")
check(r.returncode == 0, "venv made by %s" % PY)
vpy = os.path.join(venv, "bin", "python")
site = subprocess.run([vpy, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"],
                      env=ENV, stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()


def tree(d):
    out = set()
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(root, n), d))
    return out


before = tree(venv)
r = run([vpy, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-cache-dir", "."],
        "pip install --no-build-isolation --no-index .", cwd=src)
if not check(r.returncode == 0, "pip install succeeded"):
    sys.exit(1)
installed = tree(venv) - before

# ---- what was installed ----
dist = glob.glob(os.path.join(site, "b2blosc-*.dist-info"))
check(len(dist) == 1, "one b2blosc dist-info in %s: %s" % (site, dist))
dist = dist[0] if dist else ""
wheel = open(os.path.join(dist, "WHEEL")).read() if dist else ""
tags = [ln.split(":", 1)[1].strip() for ln in wheel.splitlines() if ln.startswith("Tag:")]
check(tags and all(not t.endswith("-any") and "linux" in t for t in tags), "platform wheel tag: %s" % tags)
check("Root-Is-Purelib: false" in wheel, "Root-Is-Purelib: false")
meta = open(os.path.join(dist, "METADATA")).read() if dist else ""
check("License: BSD-3-Clause" in meta and "License :: OSI Approved :: BSD License" in meta,
      "licence in the metadata")
check(os.path.isfile(os.path.join(dist, "LICENSE")) and "Redistribution and use" in
      open(os.path.join(dist, "LICENSE")).read(), "LICENSE in the dist-info")
pkg = os.path.join(site, "b2blosc")
check(os.listdir(os.path.join(pkg, "plugins")) == ["libH5Zb2.so"], "plugins/ holds libH5Zb2.so alone: %s"
      % os.listdir(os.path.join(pkg, "plugins")))
check(os.path.isfile(os.path.join(pkg, "lib", "libb2blosc.so")), "lib/libb2blosc.so installed")
record = {ln.split(",")[0] for ln in open(os.path.join(dist, "RECORD")) if ln.strip()} if dist else set()
rel = {os.path.relpath(os.path.join(venv, p), site) for p in installed
       if os.path.isfile(os.path.join(venv, p)) and os.path.join(venv, p).startswith(site + os.sep)}
missing = sorted(p for p in rel if p not in record and not p.endswith(".pyc"))
check(not missing, "every installed file is in RECORD (missing: %s)" % missing)
print("installed %d files: %s" % (len(rel), ", ".join(sorted(p for p in rel if not p.endswith(".pyc")))))

# ---- use it ----
empty = os.path.join(tmp, "empty_plugin_dir")
os.mkdir(empty)
work = os.path.join(tmp, "work")
os.mkdir(work)
CODE = r'''
import os, sys
import h5py, numpy as np
def hdf5_libs():
    return sorted({l.split()[-1] for l in open("/proc/self/maps") if "libhdf5" in l.split()[-1]
                   and "_hl" not in l})
print("AVAIL_BEFORE", h5py.h5z.filter_avail(32026))
libs_before = hdf5_libs()
import b2blosc
from b2blosc import Blosc2
assert b2blosc.__file__.startswith(sys.prefix), b2blosc.__file__
print("CONFIG", b2blosc.get_config())
print("AVAIL_AFTER", h5py.h5z.filter_avail(32026))
print("ONE_HDF5", libs_before == hdf5_libs() and len(libs_before) == 1, libs_before, hdf5_libs())
print("PLUGIN_PATH", b2blosc.PLUGIN_PATH)
rng = np.random.default_rng(5)
arrays = {"f64": np.add.outer(np.arange(120) * 0.5, (np.arange(160) % 37) * 0.25),
          "i16": (np.arange(30 * 40 * 50) % 1000).astype(np.int16).reshape(30, 40, 50)}
chunks = {"f64": (60, 80), "i16": (15, 20, 25)}
path = os.path.abspath("all.h5")
n = bad = 0
with h5py.File(path, "w") as f:
    for cname in ("blosclz", "lz4", "lz4hc", "zlib", "zstd"):
        for flt in (Blosc2.NOFILTER, Blosc2.SHUFFLE, Blosc2.BITSHUFFLE, Blosc2.DELTA, Blosc2.TRUNC_PREC):
            for k, a in arrays.items():
                name = "%s_%d_%s" % (cname, flt, k)
                f.create_dataset(name, data=a, chunks=chunks[k], compression=Blosc2(cname, 5, flt))
with h5py.File(path, "r") as f:
    for name in f:
        d = f[name]
        k = name.rsplit("_", 1)[1]
        a = arrays[k]
        flt = int(name.split("_")[1])
        n += 1
        ok = np.array_equal(d[...], a) and d.dtype == a.dtype
        masks = {d.id.read_direct_chunk(d.id.get_chunk_info(j).chunk_offset)[0]
                 for j in range(d.id.get_num_chunks())}
        if flt == Blosc2.TRUNC_PREC:
            ok = ok and masks == {1}                       # stored raw, exact
        else:
            ok = ok and masks == {0} and d.id.get_storage_size() < a.nbytes
        ok = ok and Blosc2.from_dataset(d).get_config()["cname"] == name.split("_")[0]
        if not ok:
            bad += 1
            print("BAD", name, masks, d.id.get_storage_size(), a.nbytes)
print("ROUNDTRIP %d %d" % (n, bad))
import b2blosc.h5 as b2h5
with h5py.File(path, "r") as f:
    d = f["zstd_1_f64"]
    part, rep = b2h5.read_slice(d, (slice(55, 65), slice(75, 85)), report=True)
    ok = rep["path"] == "direct" and np.array_equal(part, arrays["f64"][55:65, 75:85])
    with b2h5.fast_slicing():
        inside = b2h5.enabled()
        ok = ok and np.array_equal(d[3, 10:20], arrays["f64"][3, 10:20])
    print("SLICE", ok and inside and not b2h5.enabled(), rep)
a = arrays["f64"][:100, :100].copy()
b2blosc.save(a, "x.b2nd", chunks=(40, 50), blocks=(10, 50), cname="zstd").close()
with b2blosc.open("x.b2nd") as arr:
    print("ARRAY", np.array_equal(np.asarray(arr), a) and np.array_equal(arr[7:33, 45:60], a[7:33, 45:60]),
          arr.chunks, arr.blocks)
'''
# the explicit import, with the install's autoregistration hook off (checked below)
env = dict(ENV, HDF5_PLUGIN_PATH=empty, B2BLOSC_NO_AUTOREGISTER="1")
r = run([vpy, "-c", CODE], "h5py through the installed b2blosc", env=env, cwd=work, timeout=600)
out = r.stdout
print(out[-3000:] if r.returncode == 0 else "")
check(r.returncode == 0, "the script ran (rc %d)" % r.returncode)
check("AVAIL_BEFORE False" in out, "filter 32026 unavailable before the import")
check("AVAIL_AFTER True" in out and "'registered': 'b2blosc'" in out, "import b2blosc registered it")
check("ONE_HDF5 True" in out, "no second HDF5 library loaded")
r = run([vpy, "-c", "import sys, h5py; print('HOOK', h5py.h5z.filter_avail(32026), 'b2blosc' in sys.modules)"],
        "import h5py alone", env=dict(ENV, HDF5_PLUGIN_PATH=empty), cwd=work)
check("HOOK True True" in r.stdout, "the install's b2blosc-autoregister.pth: import h5py alone "
      "registers ours: %s" % r.stdout.strip())
check("ROUNDTRIP 50 0" in out, "50 datasets (5 cnames x 5 filters x 2 arrays) round-trip")
check("SLICE True" in out, "fast slicing (read_slice, fast_slicing())")
check("ARRAY True (40, 50) (10, 50)" in out, "b2blosc.save and b2blosc.open round trip, whole and sliced")
ppath = next((ln.split(None, 1)[1] for ln in out.splitlines() if ln.startswith("PLUGIN_PATH ")), "")
check(ppath == os.path.join(pkg, "plugins"), "PLUGIN_PATH is the package's plugins folder: %r" % ppath)
if shutil.which("h5dump") and ppath:
    r = run(["h5dump", "-d", "/zstd_2_f64", "-H", "-p", os.path.join(work, "all.h5")], "h5dump -H",
            env=dict(ENV, HDF5_PLUGIN_PATH=ppath))
    r2 = run(["h5dump", "-d", "/zstd_2_f64", "-o", os.path.join(tmp, "dump.txt"),
              os.path.join(work, "all.h5")], "h5dump (data)", env=dict(ENV, HDF5_PLUGIN_PATH=ppath))
    check(r.returncode == 0 and "blosc2" in r.stdout and r2.returncode == 0,
          "h5dump reads it with HDF5_PLUGIN_PATH=b2blosc.PLUGIN_PATH")

# ---- uninstall ----
r = run([vpy, "-m", "pip", "uninstall", "-y", "b2blosc"], "pip uninstall -y b2blosc", cwd=tmp)
check(r.returncode == 0, "pip uninstall succeeded")
left = sorted(tree(venv) - before)
check(not left, "nothing of b2blosc is left: %s" % left[:20])

print("test_pypkg_install: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

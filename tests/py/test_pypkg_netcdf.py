# SPDX-License-Identifier: BSD-3-Clause
"""netCDF-4 through b2blosc: xarray with h5netcdf, netCDF4-python (netCDF-C) and
ncdump. Runs from the source tree (python/ on sys.path, B2_H5_PLUGIN = the built
plugin), every step in its own process whose HDF5_PLUGIN_PATH names an empty
folder unless the step says otherwise:

  * after `import b2blosc`, xarray's to_netcdf(engine="h5netcdf") writes variables
    with encoding {"compression": b2blosc.Blosc2(...)} and {**b2blosc.Blosc2(...)};
    h5py sees filter 32026 with the expected cd_values and fewer stored bytes
    than raw ones, and xarray.open_dataset(engine="h5netcdf") reads the values back;
  * netCDF4-python reads the same file in a process that never imports b2blosc,
    with HDF5_PLUGIN_PATH = b2blosc.PLUGIN_PATH; without it, the read fails;
  * ncdump with HDF5_PLUGIN_PATH = b2blosc.PLUGIN_PATH prints the values and the
    _Filter attribute;
  * the two documented traps: compression=32026 without importing b2blosc is
    refused by h5py 3.7, but with allow_unknown_filter=True stores the data
    uncompressed with no error (h5py marks the filter optional); and a file
    reopened and written again through xarray loses the Blosc2 compression.
Skips (77) when xarray, h5netcdf or netCDF4 is not installed."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

for mod in ("xarray", "h5netcdf", "netCDF4"):
    try:
        __import__(mod)
    except ImportError:
        b2test.skip("Python module %s is not installed (Debian: python3-%s)" % (mod, mod.lower()))

PDIR = hc.plugin_dir()
PLUGIN = os.path.join(PDIR, hc.PLUGIN_NAME)
PYDIR = os.path.join(b2test.REPO, "python")
tmp = b2test.scratch_dir("pypkg_netcdf_")
empty = os.path.join(tmp, "empty_plugin_dir")
os.mkdir(empty)
check = b2test.Checks()
NC = os.path.join(tmp, "b2.nc")

# The data every process rebuilds: a smooth float32 field and an int16 ramp.
DATA = r'''
import numpy as np
y, x = np.mgrid[0:120, 0:200].astype(np.float32)
temp = (20 + 5 * np.sin(x / 17.0) * np.cos(y / 11.0)).astype(np.float32)
count = (np.arange(120 * 200) % 3000).astype(np.int16).reshape(120, 200)
'''


def run(code, plugin_path=None, b2=True, args=()):
    """Run code in a fresh interpreter; b2: python/ on sys.path and B2_H5_PLUGIN set."""
    drop = ("LD_PRELOAD", "B2_H5_PLUGIN", "PYTHONPATH", "HDF5_PLUGIN_PATH")
    env = b2test.clean_env(drop=drop, HDF5_PLUGIN_PATH=plugin_path or empty)
    if b2:
        env.update(PYTHONPATH=PYDIR, B2_H5_PLUGIN=PLUGIN)
    if os.environ.get("LD_PRELOAD"):  # sanitizer builds: the plugin is instrumented
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    r = subprocess.run([sys.executable, "-c", code] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    return r.returncode, r.stdout


# ---- 1. xarray + h5netcdf writes and reads through b2blosc ----
rc, out = run(DATA + r'''
import sys, h5py
print("avail before import:", h5py.h5z.filter_avail(32026))
import xarray as xr, b2blosc
print("plugin path:", b2blosc.PLUGIN_PATH)
ds = xr.Dataset({"temp": (("y", "x"), temp, {"units": "degC"}),
                 "count": (("y", "x"), count)}, coords={"x": np.arange(200), "y": np.arange(120)})
enc = {"temp": {"compression": b2blosc.Blosc2(cname="zstd", clevel=5, filters=b2blosc.Blosc2.SHUFFLE),
                "chunksizes": (40, 100)},
       "count": {**b2blosc.Blosc2(cname="lz4", clevel=9, filters=b2blosc.Blosc2.BITSHUFFLE),
                 "chunksizes": (60, 200)}}
ds.to_netcdf(sys.argv[1], engine="h5netcdf", encoding=enc)
with h5py.File(sys.argv[1], "r") as f:
    for name in ("temp", "count"):
        d = f[name]
        plist = d.id.get_create_plist()
        filt = [plist.get_filter(i) for i in range(plist.get_nfilters())]
        print(name, "filters:", [(x[0], tuple(x[2])) for x in filt])
        print(name, "stored", d.id.get_storage_size(), "raw", d.size * d.dtype.itemsize)
back = xr.open_dataset(sys.argv[1], engine="h5netcdf")
print("temp equal:", bool((back["temp"].values == temp).all()), back["temp"].attrs.get("units"))
print("count equal:", bool((back["count"].values == count).all()))
back.close()
''', args=[NC])
print(out, end="")
check(rc == 0, "xarray/h5netcdf write and read (rc %d)" % rc)
check("avail before import: False" in out, "filter 32026 unavailable before import b2blosc")
check("temp filters: [(32026, (1, 0, 4, 16000, 5, 1, 5, 2, 40, 100))]" in out,
      "temp stored with filter 32026, zstd 5 + shuffle (cd_values)")
check("count filters: [(32026, (1, 0, 2, 24000, 9, 2, 1, 2, 60, 200))]" in out,
      "count stored with filter 32026, lz4 9 + bitshuffle (cd_values)")
for name in ("temp", "count"):
    line = [l for l in out.splitlines() if l.startswith(name + " stored")]
    nums = line[0].split() if line else []
    check(len(nums) == 5 and 0 < int(nums[2]) < int(nums[4]),
          "%s compressed (%s)" % (name, " ".join(nums[1:]) or "no sizes"))
check("temp equal: True degC" in out and "count equal: True" in out, "xarray reads the values back")
plugin_path = ""
for line in out.splitlines():
    if line.startswith("plugin path: "):
        plugin_path = line[len("plugin path: "):]
check(os.path.isfile(os.path.join(plugin_path, hc.PLUGIN_NAME)), "PLUGIN_PATH holds the plugin")

# ---- 2. netCDF4-python (netCDF-C) in a process that never imports b2blosc ----
NETCDF4 = DATA + r'''
import sys, netCDF4
try:
    with netCDF4.Dataset(sys.argv[1]) as nc:
        t, c = nc["temp"][:], nc["count"][:]
        print("filters:", nc["temp"].filters())
        print("temp equal:", bool((t == temp).all()), "count equal:", bool((c == count).all()))
except Exception as e:
    print("read failed:", type(e).__name__, e)
print("b2blosc imported:", "b2blosc" in sys.modules)
'''
rc, out = run(NETCDF4, plugin_path=plugin_path, b2=False, args=[NC])
print(out, end="")
check(rc == 0 and "temp equal: True count equal: True" in out and "b2blosc imported: False" in out,
      "netCDF4-python reads the file with HDF5_PLUGIN_PATH = b2blosc.PLUGIN_PATH")
rc, out = run(NETCDF4, b2=False, args=[NC])
check("read failed:" in out and "temp equal" not in out,
      "without the plugin path netCDF4-python cannot read it (%s)" % out.strip().splitlines()[:1])

# ---- 3. ncdump ----
if shutil.which("ncdump"):
    env = b2test.clean_env(drop=("LD_PRELOAD", "HDF5_PLUGIN_PATH"), HDF5_PLUGIN_PATH=plugin_path)
    if os.environ.get("LD_PRELOAD"):  # sanitizer builds: the plugin is instrumented
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    r = subprocess.run(["ncdump", "-s", "-v", "count", NC], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    head = r.stdout.split("data:")[0]
    print(head)
    check(r.returncode == 0 and 'count:_Filter = "32026,' in r.stdout,
          "ncdump -s shows the Blosc2 _Filter (rc %d)" % r.returncode)
    values = r.stdout.split("count =")[-1].replace(";", " ").replace("}", " ").split(",")
    nums = [int(v) for v in values if v.strip().lstrip("-").isdigit()]
    check(nums[:5] == [0, 1, 2, 3, 4] and len(nums) == 120 * 200 and nums[-1] == (120 * 200 - 1) % 3000,
          "ncdump prints the 24000 values of count (%d read)" % len(nums))
else:
    check(False, "ncdump is not installed (Debian: netcdf-bin)")

# ---- 4. the traps ----
# h5py adds a filter given by number as optional. Debian's h5py 3.7 refuses a
# number HDF5 cannot find, but with allow_unknown_filter=True (as code copying
# another file's settings passes) HDF5 stores the data uncompressed, no error.
rc, out = run(DATA + r'''
import sys, h5py
with h5py.File(sys.argv[1], "w") as f:
    try:
        f.create_dataset("a", data=temp, chunks=(40, 100), compression=32026)
        print("no error")
    except ValueError as e:
        print("refused:", e)
    d = f.create_dataset("t", data=temp, chunks=(40, 100), compression=32026, allow_unknown_filter=True)
    f.flush()
    print("stored", d.id.get_storage_size(), "raw", temp.nbytes)
''', args=[os.path.join(tmp, "trap.h5")])
print(out, end="")
check(rc == 0 and "refused: Unknown compression filter number: 32026" in out,
      "trap 1: without b2blosc, h5py refuses compression=32026")
check(rc == 0 and ("stored %d raw %d" % (120 * 200 * 4, 120 * 200 * 4)) in out,
      "trap 1: with allow_unknown_filter=True the data is stored uncompressed, no error")
rc, out = run(r'''
import sys, h5py, xarray as xr, b2blosc
ds = xr.open_dataset(sys.argv[1], engine="h5netcdf")
ds.to_netcdf(sys.argv[2], engine="h5netcdf")
with h5py.File(sys.argv[2], "r") as f:
    plist = f["temp"].id.get_create_plist()
    print("filters after rewrite:", [plist.get_filter(i)[0] for i in range(plist.get_nfilters())])
''', args=[NC, os.path.join(tmp, "rewritten.nc")])
print(out, end="")
check(rc == 0 and "filters after rewrite:" in out and "32026" not in out.split("rewrite:")[-1],
      "trap 2: xarray drops the Blosc2 compression when a file is reopened and written again")

print("test_pypkg_netcdf: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

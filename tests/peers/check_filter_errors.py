# SPDX-License-Identifier: BSD-3-Clause
"""Filter 32026's error messages reach the user, and two HDF5 libraries of one
process both run it (issue 37, section 3).

Phase "h5py" (h5py and b2blosc only): under h5py's HDF5 (1.14.6 or 2.0, which
pause the error stack around a filter call) each error case must raise with
our message in the Python exception:
  * a chunk cut short, and one with bytes flipped: OSError naming
    "blosc2 filter: decompression failed";
  * a checksummed chunk (Blosc2(checksums=True)) with a payload byte flipped:
    the message says "checksum mismatch";
  * bad cd_values (codec 99): creating or writing the dataset fails with a
    "blosc2 filter" message;
  * the intact chunks of the damaged datasets still read.
Phase "two" (netCDF4 imported first, then h5py and b2blosc, HDF5_PLUGIN_PATH
= the plugin's folder): netCDF4's own HDF5 (2.2.0 in its wheel) loads the
plugin from the path while b2blosc registered it with h5py's HDF5:
  * two distinct libhdf5 files are loaded and both have 32026 available;
  * netCDF4 writes a variable through 32026 (nc_def_var_filter, its set_local
    runs in netCDF4's HDF5) and reads it back; h5py reads that file too;
  * h5py writes a dataset through b2blosc.Blosc2 and reads it back, and
    netCDF4 reads h5py's file;
  * a corrupted chunk read through h5py gives our message in the exception,
    and through netCDF4 fails with netCDF's "NetCDF: HDF error" while the
    same library's own error stack (H5Eprint2 of netCDF4's HDF5, printed by
    H5Dread through ctypes) holds our message.
Run by ctest as peers_<env>_filter_errors with a venv's python."""
import ctypes
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402


def corrupt(d, coord, how):
    _m, raw = d.id.read_direct_chunk(coord)
    bad = bytearray(raw)
    if how == "cut":
        bad = bad[: len(bad) // 2]
    elif how == "one":  # one byte inside the first chunk's payload: only a checksum sees it
        bad[len(bad) // 4] ^= 0x01
    else:  # bytes flipped all through the payload and trailer
        for i in range(len(bad) // 2, len(bad) - 64, 5):
            bad[i] ^= 0x5A
    d.id.write_direct_chunk(coord, bytes(bad))


def read_error(fn):
    try:
        fn()
    except Exception as e:  # the check looks at the text, whatever the class
        return "%s: %s" % (type(e).__name__, e)
    return None


def phase_h5py(work):
    import h5py
    import b2blosc
    t = pc.Tally("filter_errors h5py (HDF5 %s)" % h5py.version.hdf5_version)
    a = np.arange(200 * 300, dtype=np.float32).reshape(200, 300)
    fn = os.path.join(work, "errors.h5")
    with h5py.File(fn, "w") as f:
        for name, comp in (("plain", b2blosc.Blosc2("lz4")),
                           ("sums", b2blosc.Blosc2("zstd", checksums=True))):
            d = f.create_dataset(name, data=a, chunks=(100, 150), compression=comp)
        corrupt(f["plain"], (0, 0), "cut")
        corrupt(f["plain"], (100, 0), "flip")
        corrupt(f["sums"], (0, 0), "one")
    with h5py.File(fn, "r") as f:
        for name, sl, want in (("plain", np.s_[0:5, 0:5], "blosc2 filter: decompression failed"),
                               ("plain", np.s_[150:160, 0:5], "blosc2 filter: decompression failed"),
                               ("sums", np.s_[0:5, 0:5], "checksum mismatch")):
            msg = read_error(lambda: f[name][sl])
            t.check(msg is not None and want in msg and msg.startswith("OSError"), "corrupt chunks",
                    "%s[%r]: want OSError with %r, got %r" % (name, sl, want, msg))
            print("%s[%r]: %s" % (name, sl, msg))
        for name in ("plain", "sums"):
            t.check(np.array_equal(f[name][0:100, 150:300], a[0:100, 150:300]), "intact chunks",
                    "%s: an intact chunk reads" % name)
    # bad cd_values: codec 99, as a mandatory filter (h5py's compression= makes
    # it optional, and HDF5 then stores a chunk the filter refuses as it is). In
    # a child: HDF5 keeps the unfilterable chunk dirty, and at exit its
    # H5_term_library closes the dataset again (H5D_close crashes there under
    # HDF5 2.0: shown as a PEER BUG line, not counted against us).
    code = r'''
import sys, numpy as np, h5py, b2blosc  # noqa: F401
a = np.zeros((200, 300), np.float32)
with h5py.File(sys.argv[1], "w") as f:
    try:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((100, 150))
        dcpl.set_filter(32026, h5py.h5z.FLAG_MANDATORY, (0, 0, 0, 0, 5, 1, 99))
        dsid = h5py.h5d.create(f.id, b"x", h5py.h5t.NATIVE_FLOAT, h5py.h5s.create_simple(a.shape),
                               dcpl=dcpl)
        h5py.Dataset(dsid)[...] = a
        f.flush()
        print("BADCD none", flush=True)
    except Exception as e:
        print("BADCD %s: %s" % (type(e).__name__, e), flush=True)
'''
    r = subprocess.run([sys.executable, "-c", code, os.path.join(work, "badcd.h5")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=120)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("BADCD")), "")
    print("bad cd_values: %s (child exit %d)" % (line, r.returncode))
    if r.returncode != 0:
        print("PEER BUG: HDF5 %s exits with status %d after a mandatory filter refused a chunk "
              "(H5D_close at library termination)" % (h5py.version.hdf5_version, r.returncode))
    t.check("blosc2 filter: bad filter parameters" in line and "compressor code 99" in line,
            "bad cd_values", "want our message, got %r" % line)
    return t.summary()


def hdf5_files():
    out = []
    for line in open("/proc/self/maps"):
        p = line.rsplit(None, 1)[-1]
        b = os.path.basename(p)
        if p.startswith("/") and b.startswith("libhdf5") and "_hl" not in b and p not in out:
            out.append(p)
    return out


def mapped(prefix):
    return next((line.rsplit(None, 1)[-1] for line in open("/proc/self/maps")
                 if os.path.basename(line.rsplit(None, 1)[-1]).startswith(prefix)), None)


def nc_write(netCDF4, fn, a):
    """A netCDF-4 file whose variable v goes through filter 32026 in netCDF4's
    own HDF5 (nc_def_var_filter: no parameters, set_local fills them)."""
    nc = ctypes.CDLL(mapped("libnetcdf"))
    nc.nc_def_var_filter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t,
                                     ctypes.c_void_p]
    with netCDF4.Dataset(fn, "w") as ds:
        ds.createDimension("y", a.shape[0])
        ds.createDimension("x", a.shape[1])
        v = ds.createVariable("v", "f4", ("y", "x"), chunksizes=(50, 150))
        rc = nc.nc_def_var_filter(ds._grpid, v._varid, 32026, 0, None)
        if rc != 0:
            raise RuntimeError("nc_def_var_filter(32026) = %d" % rc)
        v[...] = a
    return True


def hdf5_read_errors(lib, fn, name):
    """H5Dread of dataset name through lib with HDF5's own error printing on:
    what a C user of that HDF5 sees (stderr, captured by a child process)."""
    code = r'''
import ctypes, sys, numpy as np
import netCDF4  # noqa: F401  (its libhdf5 loaded as in the parent)
h = ctypes.CDLL(sys.argv[1]); h.H5open()
h.H5Eset_auto2(ctypes.c_int64(0), ctypes.cast(h.H5Eprint2, ctypes.c_void_p), None)
h.H5Fopen.restype = h.H5Dopen2.restype = ctypes.c_int64
h.H5Fopen.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_int64]
h.H5Dopen2.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64]
h.H5Dread.argtypes = [ctypes.c_int64] * 5 + [ctypes.c_void_p]
d = h.H5Dopen2(h.H5Fopen(sys.argv[2].encode(), 0, 0), sys.argv[3].encode(), 0)
buf = np.zeros(10**6, np.uint8)
t = ctypes.c_int64.in_dll(h, "H5T_NATIVE_FLOAT_g").value
print("H5Dread", h.H5Dread(d, t, 0, 0, 0, buf.ctypes.data), flush=True)
'''
    r = subprocess.run([sys.executable, "-c", code, lib, fn, name], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    return r.stdout


def phase_two(work):
    import netCDF4  # first: its HDF5 loads the plugin through HDF5_PLUGIN_PATH
    import h5py
    import b2blosc
    t = pc.Tally("filter_errors two HDF5 (h5py's %s, netCDF4's %s)"
                 % (h5py.version.hdf5_version, netCDF4.__hdf5libversion__))
    a = (np.arange(200 * 300, dtype=np.float32) % 977).reshape(200, 300)
    fn_nc = os.path.join(work, "by_netcdf4.nc")
    fn_h5 = os.path.join(work, "by_h5py.h5")
    t.attempt("netCDF4 writes", "netCDF4 writes v through 32026", nc_write, netCDF4, fn_nc, a)
    libs = hdf5_files()
    print("libhdf5 files loaded:\n  " + "\n  ".join(libs))
    t.check(len(libs) >= 2, "two libraries", "%d libhdf5 files loaded" % len(libs))
    t.check(h5py.h5z.filter_avail(32026), "two libraries", "h5py's HDF5 has 32026")
    cfg = b2blosc.get_config()
    t.check(cfg.get("hdf5_version") == h5py.version.hdf5_version, "two libraries",
            "b2blosc's primary library is h5py's (%r)" % cfg.get("hdf5_library"))
    with netCDF4.Dataset(fn_nc) as ds:
        t.attempt("netCDF4 reads", "netCDF4 reads its own 32026 variable",
                  lambda: np.array_equal(ds["v"][...], a))
    with h5py.File(fn_nc, "r") as f:
        d = f["v"]
        pl = d.id.get_create_plist().get_filter(0)
        t.check(pl[0] == 32026, "netCDF4 writes", "v's pipeline is %r" % (pl,))
        sizes = [d.id.get_chunk_info(i).size for i in range(d.id.get_num_chunks())]
        masks = [d.id.get_chunk_info(i).filter_mask for i in range(d.id.get_num_chunks())]
        t.check(masks == [0] * 8 and all(s < 50 * 150 * 4 for s in sizes), "netCDF4 writes",
                "v's chunks went through 32026: masks %r sizes %r" % (masks, sizes))
        t.attempt("h5py reads", "h5py reads netCDF4's variable", lambda: np.array_equal(d[...], a))
    with h5py.File(fn_h5, "w") as f:
        f.create_dataset("v", data=a, chunks=(50, 150), compression=b2blosc.Blosc2("zstd"))
    with h5py.File(fn_h5, "r") as f:
        t.attempt("h5py reads", "h5py reads its own dataset", lambda: np.array_equal(f["v"][...], a))
        t.attempt("h5py reads", "b2blosc.h5.read(threads=2) reads it",
                  lambda: np.array_equal(b2blosc.h5.read(f["v"], threads=2), a))
    with netCDF4.Dataset(fn_h5) as ds:
        t.attempt("netCDF4 reads", "netCDF4 reads h5py's dataset",
                  lambda: np.array_equal(ds["v"][...], a))
    # errors, each through the library that runs the filter
    for fn in (fn_nc, fn_h5):
        with h5py.File(fn, "r+") as f:
            corrupt(f["v"], (0, 0), "cut")
    for fn in (fn_nc, fn_h5):
        with h5py.File(fn, "r") as f:
            msg = read_error(lambda: f["v"][0:5, 0:5])
        print("h5py reads a cut chunk of %s: %s" % (os.path.basename(fn), msg))
        t.check(msg is not None and "blosc2 filter: decompression failed" in msg, "errors",
                "h5py: want our message, got %r" % msg)
        with netCDF4.Dataset(fn) as ds:
            msg = read_error(lambda: ds["v"][0:5, 0:5])
            ok = np.array_equal(ds["v"][100:200, :], a[100:200, :])
        print("netCDF4 reads it: %s" % msg)
        t.check(msg is not None and "HDF error" in msg, "errors",
                "netCDF4: want NetCDF's HDF error, got %r" % msg)
        t.check(ok, "errors", "netCDF4 still reads the intact chunks")
        nclib = next(p for p in libs if "netcdf4" in p.lower() or "netCDF4" in p)
        out = hdf5_read_errors(nclib, fn, "v")
        print(out)
        t.check("H5Dread -1" in out and "blosc2 filter: decompression failed" in out
                and "filter returned failure during read" in out, "errors",
                "netCDF4's HDF5 error stack holds our message under H5Z_pipeline's")
    return t.summary()


def main():
    if len(sys.argv) == 3:
        return {"h5py": phase_h5py, "two": phase_two}[sys.argv[1]](sys.argv[2])
    work = sys.argv[1] if len(sys.argv) > 1 else pc.work_dir("filter_errors_")
    os.makedirs(work, exist_ok=True)
    import b2blosc
    script = os.path.abspath(__file__)
    rc1 = pc.run_phase(script, "h5py", work,
                       env=pc.clean_env(HDF5_PLUGIN_PATH=pc.empty_plugin_dir(work)))
    rc2 = pc.run_phase(script, "two", work,
                       env=pc.clean_env(HDF5_PLUGIN_PATH=b2blosc.PLUGIN_PATH))
    print("filter_errors: phase h5py exit %d, phase two exit %d" % (rc1, rc2))
    return 1 if rc1 or rc2 else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""netCDF4 and xarray with our filter (issue 37, section 2, item 8).

check_netcdf.py [WORK]: phases, each in its own process:
  write:   h5netcdf (h5py + `import b2blosc`) writes a netCDF4 file with Blosc2
           variables (ranks 1-3, several codecs, an unlimited dimension, edge
           chunks), and xarray (engine="h5netcdf") writes a Dataset with
           encoding compression=32026 and our Blosc2 keywords.
  nc_read: netCDF4 (its own netCDF-C and HDF5 2.2, no h5py, no b2blosc
           imported) reads both, finding our plugin only through
           HDF5_PLUGIN_PATH=b2blosc.PLUGIN_PATH. netCDF4 1.7.5 cannot write
           32026 itself (no generic filter call): shown and counted.
  xr_read: xarray engine="netcdf4" reads the files (netCDF4 again), and
           engine="h5netcdf" (h5py + b2blosc) reads every file, netCDF4's too.
Prints counts per category; exits 1 on any failure."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

VARS = (  # name, dims, shape, chunks, dtype, Blosc2 kwargs
    ("t1", ("x",), (5000,), (1024,), "float32", dict(cname="lz4", clevel=5, filters=1)),
    ("t2", ("y", "x2"), (130, 97), (32, 40), "float64", dict(cname="zstd", clevel=5, filters=1)),
    ("t3", ("z", "y3", "x3"), (20, 30, 17), (8, 16, 8), "int16",
     dict(cname="blosclz", clevel=9, filters=2)),
    ("t4", ("y", "x2"), (130, 97), (64, 50), "int32", dict(cname="zstd", clevel=1, filters=2)),
)


def data_of(name, shape, dt):
    return pc.make_data(shape, dt, seed=sum(map(ord, name)))


def write(work):
    import h5py
    import h5netcdf
    import xarray as xr
    import b2blosc
    t = pc.Tally("h5netcdf/xarray write with our filter (HDF5 %s)" % h5py.version.hdf5_version)
    t.check(b2blosc.get_config().get("registered") == "b2blosc", "our filter registered")
    t.check(os.path.isfile(os.path.join(b2blosc.PLUGIN_PATH, "libH5Zb2.so")),
            "b2blosc.PLUGIN_PATH holds the plugin", repr(b2blosc.PLUGIN_PATH))
    with h5netcdf.File(os.path.join(work, "h5nc.nc"), "w") as f:
        for name, dims, shape, chunks, dt, kw in VARS:
            for d, n in zip(dims, shape):
                if d not in f.dimensions:
                    f.dimensions[d] = None if d == "z" else n   # z: unlimited

            def make():
                v = f.create_variable(name, dims, dtype=dt, chunks=chunks, **b2blosc.Blosc2(**kw))
                if "z" in dims:
                    f.resize_dimension("z", shape[0])   # unlimited: grow before writing
                v[...] = data_of(name, shape, dt)
                v.attrs["units"] = "m"
                return np.array_equal(v[...], data_of(name, shape, dt))
            t.attempt("h5netcdf create_variable(**Blosc2)", name, make)
    ds = xr.Dataset({name: (dims, data_of(name, shape, dt)) for name, dims, shape, _, dt, _ in VARS})
    enc = {name: dict(chunksizes=chunks, compression=32026,
                      compression_opts=b2blosc.Blosc2(**kw)["compression_opts"])
           for name, _, _, chunks, _, kw in VARS}

    def xr_write():
        ds.to_netcdf(os.path.join(work, "xr.nc"), engine="h5netcdf", encoding=enc)
        return True
    t.attempt("xarray to_netcdf(engine=h5netcdf, compression=32026)", "xr.nc", xr_write)
    # both files: every variable must be stored with 32026
    for fn in ("h5nc.nc", "xr.nc"):
        with h5py.File(os.path.join(work, fn), "r") as f:
            for name, *_ in VARS:
                cd = pc.dataset_cd_values(f[name]) if name in f else None
                t.check(cd is not None, "stored with 32026, " + fn, name)
    return t.summary()


def nc_read(work):
    import netCDF4
    assert "h5py" not in sys.modules and "b2blosc" not in sys.modules
    t = pc.Tally("netCDF4 %s reads (netCDF-C %s, HDF5 %s)" % (
        netCDF4.__version__, netCDF4.__netcdf4libversion__, netCDF4.__hdf5libversion__))
    print("HDF5_PLUGIN_PATH=%s" % os.environ.get("HDF5_PLUGIN_PATH"))
    for fn in ("h5nc.nc", "xr.nc"):
        with netCDF4.Dataset(os.path.join(work, fn)) as f:
            for name, _, shape, _, dt, _ in VARS:
                ref = data_of(name, shape, dt)
                v = f.variables[name]
                filt = v.filters()
                print("%s %s: filters() %r, chunking %r" % (fn, name, filt, v.chunking()))
                t.attempt("netCDF4 reads " + fn, name, lambda: np.array_equal(v[...], ref))
                t.attempt("netCDF4 reads a slice, " + fn, name,
                          lambda: np.array_equal(v[1:-1:2, ...], ref[1:-1:2, ...]))
    nc_write(t, work, netCDF4)
    return t.summary()


def nc_write(t, work, netCDF4):
    """netCDF4's Python API names its filters (zlib, szip, zstd, bzip2, and
    blosc_* which is Blosc1, 32001); 1.7.5 has no call for another filter id,
    so it cannot write 32026. Shown and counted, not failed."""
    generic = [a for a in ("set_filter", "def_var_filter") if hasattr(netCDF4.Variable, a)]
    print("PEER (limitation): netCDF4 %s Variable filter calls for any id: %r; "
          "compression= names: zlib, szip, zstd, bzip2, blosc_* (32001)"
          % (netCDF4.__version__, generic))
    t.check(not generic, "netCDF4 cannot write 32026 (no generic filter API) shown")


def xr_read(work):
    import xarray as xr
    import b2blosc  # noqa: F401  (h5netcdf's h5py needs our filter registered)
    t = pc.Tally("xarray %s reads" % xr.__version__)
    for engine in ("netcdf4", "h5netcdf"):
        for fn in ("h5nc.nc", "xr.nc"):
            with xr.open_dataset(os.path.join(work, fn), engine=engine) as ds:
                for name, _, shape, _, dt, _ in VARS:
                    ref = data_of(name, shape, dt)
                    t.attempt("xarray engine=%s reads %s" % (engine, fn), name,
                              lambda: np.array_equal(ds[name].values, ref))
    return t.summary()


def main():
    def env_for(work, phase):
        if phase == "write":
            return pc.clean_env(HDF5_PLUGIN_PATH=pc.empty_plugin_dir(work))
        import b2blosc   # only for its PLUGIN_PATH: the phases import what they test
        return pc.clean_env(HDF5_PLUGIN_PATH=b2blosc.PLUGIN_PATH)
    return pc.phased_main(__file__, {"write": write, "nc_read": nc_read, "xr_read": xr_read},
                          "peers_netcdf_", env_for)

if __name__ == "__main__":
    sys.exit(main())

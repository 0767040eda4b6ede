# SPDX-License-Identifier: BSD-3-Clause
"""record_versions.py ENV BUILD_DIR: print every peer's own version and the
libraries it bundles (make_venv.sh writes it to versions.txt). Exits 1 when h5py's
bundled HDF5 is not the one the env is named after (1.14.6, or 2.0.x), or when
a peer does not import: a missing peer fails the stage."""
import importlib
import importlib.metadata
import platform
import sys

WANT_HDF5 = {"hdf5-1.14": ("1.14.6",), "hdf5-2.0": ("2.0.",),
             "wheel-h5py-3.15": ("1.14.6",), "wheel-h5py-3.16": ("2.0.",)}
PEERS = ("numpy", "h5py", "hdf5plugin", "blosc2", "tables", "b2h5py", "netCDF4", "h5netcdf",
         "xarray", "b2blosc")
# the wheel's test envs hold only the wheel, h5py, numpy, hdf5plugin, blosc2, pytest
WHEEL_PEERS = ("numpy", "h5py", "hdf5plugin", "blosc2", "pytest", "b2blosc")


def section(title):
    print("\n== %s" % title, flush=True)


def main():
    env = sys.argv[1]
    print("env %s, Python %s (%s), %s" % (env, platform.python_version(), sys.executable,
                                          platform.platform()))
    mods = {}
    for name in WHEEL_PEERS if env.startswith("wheel-") else PEERS:
        mods[name] = importlib.import_module(name)  # ImportError fails the stage, loudly
        print("%-10s %s" % (name, importlib.metadata.version(name)))
    h5py = mods["h5py"]
    hdf5 = h5py.version.hdf5_version
    section("h5py.version.hdf5_version")
    print(hdf5)
    section("hdf5plugin.get_config()")
    print(mods["hdf5plugin"].get_config())
    section("blosc2.print_versions()")
    mods["blosc2"].print_versions()
    print("blosc2.blosclib_version: %s" % mods["blosc2"].blosclib_version)
    if "tables" in mods:
        section("tables.print_versions()")
        mods["tables"].print_versions()
    if "netCDF4" in mods:
        section("netCDF4")
        nc = mods["netCDF4"]
        print("__version__ %s, __hdf5libversion__ %s, __netcdf4libversion__ %s"
              % (nc.__version__, nc.__hdf5libversion__, nc.__netcdf4libversion__))
    section("b2blosc.get_config() (imported after hdf5plugin: 'kept' is hdf5plugin's 32026)")
    print(mods["b2blosc"].get_config())
    sys.stdout.flush()
    if not hdf5.startswith(WANT_HDF5[env]):
        print("FAILED: env %s: h5py bundles HDF5 %s, expected %s"
              % (env, hdf5, " or ".join(WANT_HDF5[env])), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

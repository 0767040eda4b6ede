# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc: libb2's Blosc2 HDF5 filter (id 32026) for h5py, and Blosc2 files.

    import h5py, b2blosc
    with h5py.File("x.h5", "w") as f:
        f.create_dataset("d", data=a, chunks=(100, 100),
                         compression=b2blosc.Blosc2(cname="zstd", clevel=5))

Importing b2blosc registers filter 32026 with the HDF5 library h5py has loaded,
unless HDF5 already has a filter 32026 (a plugin on HDF5_PLUGIN_PATH or in the
system's plugin folder): register(force=True) replaces that one with ours.

How it registers: the plugin exports b2_h5_register_with(anchor), given
h5py's h5z extension module (h5py.h5z.__file__) as the anchor, as hdf5plugin
does. It finds the libhdf5 that module links (dlsym through the module's own
handle, never loading anything: h5py's libhdf5 is loaded RTLD_LOCAL), binds
the filter's HDF5 table to that library and calls its H5Zregister with the
filter class. So registration and filtering use h5py's HDF5 even when
PyTables or netCDF4 loaded their own libhdf5 copies first. Those libraries can
run the filter too (netCDF4 loading it from HDF5_PLUGIN_PATH, say): each HDF5
gets its own symbol table and filter class, so errors go to the library that
called. If an earlier registration made another HDF5 the one b2blosc.h5 serves,
register() raises PluginError saying so.
get_config() names the library and its version, with the rest a bug report
needs (libb2, SIMD kernels, codec libraries, files, threads); `python -m
b2blosc` prints it.

PLUGIN_PATH is the folder holding libH5Zb2.so, for HDF5_PLUGIN_PATH of programs
outside Python (h5dump, nccopy, netCDF-C). Without h5py the import still works:
Blosc2 builds its arguments, only registration and b2blosc.h5 need h5py.

Errors with the plugin file (missing, not loadable) raise PluginError naming the
file; at import they become a RuntimeWarning, so that the rest stays usable."""
import warnings as _warnings

from ._loader import FILTER_ID, PLUGIN_NAME, PluginError
from ._loader import plugin_file as _plugin_file
from ._filters import Blosc2, UnknownCodecError

try:
    from ._version import version as __version__
except ImportError:  # running from the source tree
    def _source_version():
        import os
        import re
        h = os.path.join(os.path.dirname(__file__), "..", "..", "libb2", "include", "b2blosc",
                         "b2_common.h")
        try:
            with open(h) as f:
                txt = f.read()
            return ".".join(re.search(r"#define B2_VERSION_%s (\d+)" % p, txt).group(1)
                            for p in ("MAJOR", "MINOR", "PATCH"))
        except (OSError, AttributeError):
            return "unknown"
    __version__ = _source_version()

PLUGIN_FILE = _plugin_file()
"""The plugin file b2blosc uses (libH5Zb2.so)."""
PLUGIN_PATH = __import__("os").path.dirname(PLUGIN_FILE)
"""Folder holding the plugin, for HDF5_PLUGIN_PATH of programs outside Python."""

_state = {"registered": None}  # None, "b2blosc" (ours) or "kept" (another copy)


def register(force=True):
    """Register filter 32026 from b2blosc's plugin with h5py's HDF5 library.

    force=True (default, as hdf5plugin.register): replace whatever filter 32026
    HDF5 has. force=False: keep a filter 32026 HDF5 already has or can load from
    its plugin path. Returns True when ours was registered, False when another
    was kept. Raises PluginError when the plugin is missing or will not load or
    register, ImportError without h5py."""
    import h5py
    from . import _loader
    first = "before" not in _state
    if first:  # what HDF5 had before b2blosc's first registration (get_config)
        _state["before"] = "registered" if _in_filter_table(h5py) else None
    if not force and h5py.h5z.filter_avail(FILTER_ID):  # may load it from the plugin path
        if first and _state["before"] is None:
            _state["before"] = "plugin path"
        _state["registered"] = "kept"
        return False
    lib = _loader.load()
    anchor = _h5py_anchor()
    with _phil():
        rc = lib.b2_h5_register_with(anchor.encode())
    if rc < 0:
        path = _loader.plugin_file()
        raise PluginError(5, "%s: %s" % (path, _REGISTER_ERRORS.get(rc, "error %d" % rc)
                                         .format(anchor=anchor, bound=_bound_hdf5()[0])), path)
    _state.update(registered="b2blosc", auto=False)  # auto: set by _b2blosc_autoregister
    return True


_REGISTER_ERRORS = {
    -1: "b2_h5_register_with() found no HDF5 library in the process",
    -2: "h5py's h5z module {anchor} is not loaded or links no HDF5 library",
    -3: "an earlier registration made another HDF5 library of this process ({bound}) "
        "the one b2blosc.h5 serves, not h5py's (linked by {anchor})",
    -4: "H5Zregister of h5py's HDF5 (linked by {anchor}) refused the filter",
}


def _in_filter_table(h5py):
    """Whether h5py's HDF5 has filter 32026 registered now. Unlike filter_avail,
    H5Zget_filter_info looks in the table only, never loading a plugin."""
    try:
        h5py.h5z.get_filter_info(FILTER_ID)
        return True
    except Exception:  # h5py's RuntimeError "required filter ... is not registered"
        return False


def _h5py_anchor():
    """The file of h5py's h5z extension module: the libhdf5 it links is h5py's."""
    import h5py.h5z
    return h5py.h5z.__file__


def _bound_hdf5():
    """(path, "major.minor.release") of the HDF5 library the plugin is bound
    to, or (None, None) while it is bound to none."""
    import ctypes
    from . import _loader
    try:
        lib = _loader.load()
    except PluginError:
        return None, None
    buf = ctypes.create_string_buffer(4096)
    ver = (ctypes.c_uint * 3)()
    if lib.b2_h5_api_info(buf, len(buf), ctypes.byref(ver)) < 0:
        return None, None
    import os
    path = os.path.realpath(buf.value.decode(errors="replace"))  # as /proc/self/maps names it
    return path, "%d.%d.%d" % tuple(ver)


def get_config():
    """What this process runs, as a dict, for bug reports (`python -m b2blosc`
    prints it). Works without h5py; loads libb2 (and h5py, when installed).

    version, package_dir, python, python_executable, platform, machine;
    libb2_version, libb2_file (libb2blosc.so as loaded), libb2_error (why it
    did not load, else None), simd (the SIMD kernels libb2 runs: "generic",
    "sse2", "avx2", "avx512", "avx512gfni", "neon"; B2_SIMD caps them);
    codec_libraries: {name: {"version", "version_from" ("library": asked at
    run time, "header": the one libb2 was built with), "codecs" (what libb2
    runs on it), "files" (the file libb2 calls it in, from /proc/self/maps)}}
    for lz4, zstd, libdeflate, zlib and zfp when built in, xxhash;
    codec_library_dirs: the folders those files were loaded from;
    plugin_file, plugin_path, plugin_loaded; registered: who provides filter
    32026 ("b2blosc", "kept": another copy HDF5 had first, or None);
    hdf5_library / hdf5_version: the libhdf5 file the plugin is bound to
    (registered with) and its version (None while bound to none);
    h5py_version, h5py_hdf5_version (None without h5py);
    filter_before: None while b2blosc has not registered (no h5py), else
    {"how": None (HDF5 had no filter 32026), "registered" (in HDF5's table
    before b2blosc registered) or "plugin path" (HDF5 loaded one from its
    plugin path), "files": the loaded plugin files providing 32026 other than
    ours, as far as the process tells (hdf5plugin's record, /proc/self/maps)};
    threads: {"environment": the thread variables set, "hdf5_filter",
    "h5_read", "h5_write": the threads the HDF5 filter and b2blosc.h5 read()/
    write() use by default ($B2_H5_NTHREADS, else $BLOSC_NTHREADS, else 1;
    enable(threads=) for reads), "save", "open": b2blosc.save's and open's
    default (no variable changes them), "cpu_count"};
    environment: the variables b2blosc and libb2 read that are set."""
    import sys
    from . import _config
    return _config.get_config(sys.modules[__name__])


def _phil():
    try:
        from h5py._objects import phil
        return phil
    except ImportError:
        import contextlib
        return contextlib.nullcontext()


def __getattr__(name):
    if name == "h5":  # b2blosc.h5 without an explicit import
        import importlib
        return importlib.import_module(".h5", __name__)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


try:  # .b2nd / .b2frame arrays (array.py), when present
    from .array import open, save  # noqa: F401
except ImportError as _e:
    if _e.name != __name__ + ".array":
        raise


def _register_on_import():
    try:
        import h5py  # noqa: F401
    except ImportError:
        return
    try:
        register(force=False)
    except PluginError as e:
        _warnings.warn("b2blosc: filter 32026 not registered: %s" % e, RuntimeWarning, stacklevel=3)


_register_on_import()

__all__ = ["Blosc2", "FILTER_ID", "PLUGIN_PATH", "PLUGIN_FILE", "PluginError", "UnknownCodecError",
           "register", "get_config", "__version__"]

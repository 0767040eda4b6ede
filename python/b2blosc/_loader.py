# SPDX-License-Identifier: BSD-3-Clause
"""Where libb2's HDF5 plugin (libH5Zb2.so) is, and loading it with ctypes.

The plugin is looked for, in order:
  1. $B2_H5_PLUGIN, a file (running from the source tree, or testing a build);
  2. the package's own plugins/libH5Zb2.so (pip install; alone in its folder,
     since HDF5 tries every file of a plugin folder);
  3. libH5Zb2.so in the folders of $HDF5_PLUGIN_PATH;
  4. the folder `cmake --install` put it in (the .deb: Debian's plugin folder).
The first candidate that exists is the one used: a file that exists but will
not load is an error (PluginError), not a reason to try the next one.

This module imports neither numpy nor h5py."""
import ctypes
import os

PLUGIN_NAME = "libH5Zb2.so"
FILTER_ID = 32026
_INSTALLED_PLUGIN_DIR = "@B2_H5_PLUGIN_FULL_DIR@"  # filled in by cmake --install
_HERE = os.path.dirname(os.path.abspath(__file__))
_OWN_PLUGIN = os.path.join(_HERE, "plugins", PLUGIN_NAME)


class PluginError(OSError):
    """libb2's HDF5 plugin is missing or will not load; .filename names the
    file, the message says why (errno: ENOENT missing, ENOEXEC will not load,
    EINVAL not libb2's plugin, EIO registration refused)."""

    def __str__(self):
        return self.strerror or super().__str__()


def candidates():
    """Plugin files to try, in order (see the module's docstring)."""
    env = os.environ.get("B2_H5_PLUGIN")
    if env:
        return [env]  # an explicit choice: nothing else is tried
    out = [_OWN_PLUGIN]
    for d in os.environ.get("HDF5_PLUGIN_PATH", "").split(os.pathsep):
        if d:
            out.append(os.path.join(d, PLUGIN_NAME))
    if not _INSTALLED_PLUGIN_DIR.startswith("@"):
        out.append(os.path.join(_INSTALLED_PLUGIN_DIR, PLUGIN_NAME))
    return out


def plugin_file():
    """The plugin file that load() would use: the first candidate that exists,
    else the first candidate (so that errors name it)."""
    cands = candidates()
    for c in cands:
        if os.path.isfile(c):
            return os.path.abspath(c)
    return os.path.abspath(cands[0])


def plugin_path():
    """Folder holding the plugin (for HDF5_PLUGIN_PATH of tools outside Python)."""
    return os.path.dirname(plugin_file())


PATHS = {1: "direct", 2: "h5dread", 3: "mixed"}


class ReadReport(ctypes.Structure):
    """What b2_h5_read_box did (b2_h5_read_report in b2_h5filter.h)."""
    _fields_ = [("path_id", ctypes.c_int), ("reason_raw", ctypes.c_char * 128),
                ("chunks_direct", ctypes.c_int64), ("chunks_h5dread", ctypes.c_int64),
                ("bytes_read", ctypes.c_int64), ("blocks_decoded", ctypes.c_int64)]

    @property
    def path(self):
        return PATHS.get(self.path_id, "none")

    @property
    def reason(self):
        return self.reason_raw.decode(errors="replace")

    def as_dict(self):
        return {"path": self.path, "reason": self.reason, "chunks_direct": self.chunks_direct,
                "chunks_h5dread": self.chunks_h5dread, "bytes_read": self.bytes_read,
                "blocks_decoded": self.blocks_decoded}


_lib = None


def _declare(lib):
    """Argument and result types of the plugin's exported functions."""
    c = ctypes
    lib.b2_h5_register.argtypes = []
    lib.b2_h5_register.restype = c.c_int
    lib.b2_h5_register_with.argtypes = [c.c_char_p]
    lib.b2_h5_register_with.restype = c.c_int
    lib.b2_h5_api_info.argtypes = [c.c_char_p, c.c_size_t, c.POINTER(c.c_uint * 3)]
    lib.b2_h5_api_info.restype = c.c_int
    lib.b2_h5_read_box.argtypes = [c.c_int64, c.c_int64, c.POINTER(c.c_uint64),
                                   c.POINTER(c.c_uint64), c.c_void_p, c.c_size_t,
                                   c.POINTER(ReadReport)]
    lib.b2_h5_read_box.restype = c.c_int
    lib.b2_h5_reader_open.argtypes = [c.c_int64, c.POINTER(c.c_void_p)]
    lib.b2_h5_reader_open.restype = c.c_int
    lib.b2_h5_reader_read.argtypes = [c.c_void_p, c.c_int64, c.POINTER(c.c_uint64),
                                      c.POINTER(c.c_uint64), c.c_void_p, c.c_size_t,
                                      c.POINTER(ReadReport)]
    lib.b2_h5_reader_read.restype = c.c_int
    lib.b2_h5_reader_free.argtypes = [c.c_void_p]
    lib.b2_h5_reader_free.restype = None


def load():
    """The plugin as a ctypes library, loaded once (RTLD_LOCAL: its symbols stay
    out of the process's global namespace). Raises PluginError naming the file
    and the reason when it is missing, will not load, or is not libb2's plugin."""
    global _lib
    if _lib is not None:
        return _lib
    cands = candidates()
    path = next((os.path.abspath(c) for c in cands if os.path.isfile(c)), None)
    if path is None:
        first = os.path.abspath(cands[0])
        reason = "no such file" if not os.path.exists(first) else "not a regular file"
        tried = "; also tried " + ", ".join(cands[1:]) if len(cands) > 1 else ""
        raise PluginError(2, "libb2's HDF5 plugin %s: %s%s (set B2_H5_PLUGIN to the file, "
                          "or reinstall b2blosc)" % (first, reason, tried), first)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise PluginError(getattr(e, "errno", None) or 8,
                          "libb2's HDF5 plugin %s will not load: %s" % (path, e), path) from None
    try:
        _declare(lib)
    except AttributeError as e:
        raise PluginError(22, "%s is not libb2's HDF5 plugin (missing %s)" % (path, e), path) from None
    _lib = lib
    return lib

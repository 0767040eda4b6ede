# SPDX-License-Identifier: BSD-3-Clause
"""What b2blosc runs on, for bug reports: b2blosc.get_config() and
`python -m b2blosc`. Imported on first use, not by `import b2blosc`.

Files are named as the process maps them (/proc/self/maps), so that a report
says which liblz4 or libhdf5 was really loaded, whatever the search paths; on
other systems those entries are None."""
import ctypes
import os
import re
import sys

# codec library name (b2_codec_library) -> a function libb2 calls in it: the
# file holding the address libb2's handle resolves it to is the one libb2 uses,
# even when h5py's wheel brought another copy (h5py.libs/libz-<hash>.so)
_SYMBOLS = {"lz4": "LZ4_versionString", "zstd": "ZSTD_versionString",
            "libdeflate": "libdeflate_alloc_compressor", "zlib": "zlibVersion",
            "zfp": "zfp_stream_open", "xxhash": "XXH_versionNumber"}
# ... else its file's name in /proc/self/maps (auditwheel renames bundled
# copies liblz4-<hash>.so.1.9.4, hence [-.])
_FILE_PATTERNS = {"lz4": r"liblz4", "zstd": r"libzstd", "libdeflate": r"libdeflate",
                  "zlib": r"libz", "zfp": r"libzfp", "xxhash": r"libxxhash"}
# the thread variables of libb2's HDF5 plugin, first set one wins (h5params.c,
# b2_h5_nthreads_from_env)
THREAD_VARS = ("B2_H5_NTHREADS", "BLOSC_NTHREADS")
# every variable b2blosc or libb2 reads, for the report
ENV_VARS = ("B2_H5_NTHREADS", "BLOSC_NTHREADS", "B2_SIMD", "B2_H5_SLICE", "B2_H5_MEMORY_LIMIT",
            "B2_H5_PLUGIN", "B2_LIBB2", "HDF5_PLUGIN_PATH")


class _CodecLibraryInfo(ctypes.Structure):
    """b2_codec_library_info (b2_chunk_experimental.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("version", ctypes.c_char * 32),
                ("runtime", ctypes.c_int), ("uses", ctypes.c_char_p)]


def mapped_files():
    """{real path: [(start, end), ...]} of the files mapped into this process
    ({} where /proc/self/maps does not exist)."""
    out = {}
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) < 6 or not parts[5].startswith("/"):
                    continue
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                path = parts[5].rstrip("\n")
                if path.endswith(" (deleted)"):
                    continue
                out.setdefault(os.path.realpath(path), []).append((lo, hi))
    except OSError:
        pass
    return out


def _files_named(maps, stem):
    rx = re.compile(r"^%s([-.]|$)" % stem)
    return sorted(p for p in maps if rx.match(os.path.basename(p)))


def _file_of(dll, symbol, maps):
    """The mapped file holding symbol as dll's handle resolves it (dlsym searches
    the library, then its dependencies), or None. libb2's own file when the
    codec library is linked in statically."""
    try:
        addr = ctypes.cast(getattr(dll, symbol), ctypes.c_void_p).value
    except AttributeError:
        return None
    for path, ranges in maps.items():
        if any(lo <= addr < hi for lo, hi in ranges):
            return path
    return None


def _libb2(cfg):
    """libb2blosc.so: its file, version, SIMD kernels and codec libraries."""
    from . import _libb2
    cfg.update(libb2_file=None, libb2_version=None, libb2_error=None, simd=None,
               codec_libraries={}, codec_library_dirs=[])
    try:
        lib = _libb2.get()
    except OSError as e:
        cfg["libb2_error"] = str(e)
        return
    cfg["libb2_file"] = os.path.realpath(lib.path)
    cfg["libb2_version"] = lib.version
    dll = lib.dll
    try:
        dll.b2_simd_name.restype = ctypes.c_char_p
        dll.b2_simd_name.argtypes = []
        cfg["simd"] = dll.b2_simd_name().decode()
    except AttributeError:
        pass
    try:
        fn = dll.b2_codec_library
    except AttributeError:  # a libb2 older than the query: versions unknown
        return
    fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_CodecLibraryInfo)]
    maps = mapped_files()
    i = 0
    info = _CodecLibraryInfo()
    while fn(i, ctypes.byref(info)) == 0:
        name = info.name.decode()
        used = _file_of(dll, _SYMBOLS[name], maps) if name in _SYMBOLS else None
        cfg["codec_libraries"][name] = {
            "version": info.version.decode(), "version_from": "library" if info.runtime else "header",
            "codecs": (info.uses or b"").decode().split(),
            "files": [used] if used else _files_named(maps, _FILE_PATTERNS.get(name, "lib" + name))}
        i += 1
    dirs = {os.path.dirname(f) for c in cfg["codec_libraries"].values() for f in c["files"]}
    cfg["codec_library_dirs"] = sorted(dirs)


def _plugin_info(addr_ok, path):
    """The filter id of the HDF5 plugin file path when it is loaded (its
    H5PLget_plugin_info, found in that very file), else None."""
    try:
        lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        fn = lib.H5PLget_plugin_info
    except (OSError, AttributeError):
        return None
    # dlsym also searches the file's dependencies: the symbol must be its own
    if not addr_ok(ctypes.cast(fn, ctypes.c_void_p).value):
        return None
    fn.restype, fn.argtypes = ctypes.POINTER(ctypes.c_int * 2), []
    cls = fn()
    if not cls:
        return None
    # H5Z_class2_t starts {int version (1), int id}; H5Z_class1_t with the id
    first, second = cls.contents
    return second if first == 1 else first


def filter_providers(filter_id, own_file):
    """The loaded files that are HDF5 plugins of filter_id, other than own_file."""
    maps = mapped_files()
    own = os.path.realpath(own_file) if own_file else None
    out = []
    for path, ranges in maps.items():
        base = os.path.basename(path)
        if path == own or ".so" not in base or base.startswith(("libc.", "ld-linux", "libpython")):
            continue
        ok = (lambda rs: lambda a: a is not None and any(lo <= a < hi for lo, hi in rs))(ranges)
        if _plugin_info(ok, path) == filter_id:
            out.append(path)
    return sorted(out)


def _hdf5(cfg, pkg):
    """h5py, the HDF5 the plugin is bound to, and who had filter 32026 before."""
    cfg.update(h5py_version=None, h5py_hdf5_version=None)
    try:
        import h5py
        cfg["h5py_version"] = h5py.version.version
        cfg["h5py_hdf5_version"] = h5py.version.hdf5_version
    except ImportError:
        pass
    lib, ver = pkg._bound_hdf5()
    cfg["hdf5_library"], cfg["hdf5_version"] = lib, ver
    if "before" not in pkg._state:  # b2blosc never registered (no h5py): unknown
        cfg["filter_before"] = None
        return
    before = pkg._state["before"]
    prev = {"how": None, "files": []}
    if before:
        others = filter_providers(pkg.FILTER_ID, pkg.PLUGIN_FILE)
        if "hdf5plugin" in sys.modules:  # its own record of the file it registered
            try:
                f = sys.modules["hdf5plugin"].get_config().registered_filters.get("blosc2")
                if isinstance(f, str) and os.path.isfile(f):
                    others = sorted(set(others) | {os.path.realpath(f)})
            except Exception:  # an hdf5plugin without get_config: the maps alone
                pass
        own = os.path.realpath(pkg.PLUGIN_FILE)
        if not others and before == "plugin path" and own in mapped_files():
            others = [own]  # HDF5 loaded this very plugin from its plugin path
        prev = {"how": before, "files": others}
    cfg["filter_before"] = prev


def threads(pkg):
    """The thread settings b2blosc and the plugin use."""
    env = {}
    for v in THREAD_VARS:
        s = os.environ.get(v)
        if s:
            env[v] = s
    n = 1
    for v in THREAD_VARS:  # the plugin's rule: the first valid one, 1..256
        try:
            t = int(os.environ.get(v, ""), 10)
        except ValueError:
            continue
        if t >= 1:
            n = min(t, 256)
            break
    h5 = sys.modules.get(pkg.__name__ + ".h5")
    hook = getattr(h5, "_hook_threads", None)
    save_default = None
    try:
        import inspect
        from . import array
        save_default = inspect.signature(array.save).parameters["nthreads"].default
    except (ImportError, KeyError, ValueError):
        pass
    return {"environment": env,
            "hdf5_filter": n,          # the filter in H5Dread/H5Dwrite
            "h5_read": hook if hook is not None else n,  # b2blosc.h5.read, read_slice, enable()
            "h5_write": n,             # b2blosc.h5.write
            "save": save_default,      # b2blosc.save(nthreads=...)
            "open": 1,                 # arrays b2blosc.open returns (set_nthreads changes it)
            "cpu_count": os.cpu_count()}


def get_config(pkg):
    """The report (see b2blosc.get_config)."""
    import platform
    cfg = {"version": pkg.__version__, "package_dir": os.path.dirname(os.path.abspath(pkg.__file__)),
           "python": platform.python_version(), "python_executable": sys.executable,
           "platform": platform.platform(), "machine": platform.machine()}
    _libb2(cfg)
    cfg.update(plugin_file=pkg.PLUGIN_FILE, plugin_path=pkg.PLUGIN_PATH,
               plugin_loaded=pkg.PLUGIN_FILE in mapped_files() or
               os.path.realpath(pkg.PLUGIN_FILE) in mapped_files(),
               registered=pkg._state["registered"])
    _hdf5(cfg, pkg)
    cfg["threads"] = threads(pkg)
    cfg["environment"] = {v: os.environ[v] for v in ENV_VARS if v in os.environ}
    return cfg


def _line(label, value):
    return "%-22s %s" % (label + ":", "-" if value is None or value == "" else value)


def format_config(cfg):
    """get_config() as text, a line per setting (python -m b2blosc)."""
    out = [_line("b2blosc", "%s (%s)" % (cfg["version"], cfg["package_dir"])),
           _line("python", "%s (%s)" % (cfg["python"], cfg["python_executable"])),
           _line("platform", cfg["platform"])]
    if cfg.get("libb2_error"):
        out.append(_line("libb2", "not loaded: %s" % cfg["libb2_error"]))
    else:
        out += [_line("libb2", "%s (%s)" % (cfg["libb2_version"], cfg["libb2_file"])),
                _line("SIMD kernels", cfg["simd"])]
    out.append("codec libraries:")
    for name, c in cfg["codec_libraries"].items():
        files = ", ".join(c["files"]) or "not seen in /proc/self/maps"
        # a version from the header libb2 was built with, not from the library
        ver = c["version"] + ("" if c["version_from"] == "library" else "*")
        out.append("  %-10s %-7s %-26s %s" % (name, ver, " ".join(c["codecs"]), files))
    if not cfg["codec_libraries"] and not cfg.get("libb2_error"):
        out.append("  (this libb2 has no b2_codec_library)")
    elif any(c["version_from"] != "library" for c in cfg["codec_libraries"].values()):
        out.append("  (*: the version libb2 was built with; the library cannot say)")
    out += [_line("HDF5 plugin", "%s%s" % (cfg["plugin_file"],
                                             "" if cfg["plugin_loaded"] else " (not loaded)")),
            _line("h5py", "%s (HDF5 %s)" % (cfg["h5py_version"], cfg["h5py_hdf5_version"])
                  if cfg["h5py_version"] else "not installed"),
            _line("filter 32026", {"b2blosc": "registered by b2blosc",
                                   "kept": "another copy kept (register(force=True) replaces it)",
                                   None: "not registered"}.get(cfg["registered"],
                                                               cfg["registered"])),
            _line("HDF5 bound to", "%s (%s)" % (cfg["hdf5_library"], cfg["hdf5_version"])
                  if cfg["hdf5_library"] else None)]
    prev = cfg["filter_before"]
    if prev is None:
        out.append(_line("32026 before b2blosc", "unknown (b2blosc did not register)"))
    elif prev["how"] is None:
        out.append(_line("32026 before b2blosc", "none"))
    else:
        how = {"registered": "already registered", "plugin path": "found on HDF5's plugin path"}
        out.append(_line("32026 before b2blosc", "%s: %s" % (how.get(prev["how"], prev["how"]),
                                                            ", ".join(prev["files"]) or "file unknown")))
    t = cfg["threads"]
    env = ", ".join("%s=%s" % kv for kv in t["environment"].items()) or "none set"
    out += [_line("threads", "HDF5 filter %d, b2blosc.h5 read %d / write %d, save %s, open %s"
                  % (t["hdf5_filter"], t["h5_read"], t["h5_write"], t["save"], t["open"])),
            _line("thread variables", "%s (cpus: %s)" % (env, t["cpu_count"]))]
    others = {k: v for k, v in cfg["environment"].items() if k not in THREAD_VARS}
    out.append(_line("environment", ", ".join("%s=%s" % kv for kv in others.items()) or "none set"))
    return "\n".join(out)

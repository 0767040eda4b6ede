# SPDX-License-Identifier: BSD-3-Clause
"""Registers b2blosc's HDF5 filter 32026 in every Python process that imports
h5py, with no user code: b2blosc-autoregister.pth (in site-packages) imports
this module at startup, and it puts a finder on sys.meta_path that waits for
"h5py". When h5py has finished importing, b2blosc registers the filter as
`import b2blosc` does (register(force=False): a 32026 that HDF5 already has or
finds on its plugin path is kept). So dask/multiprocessing workers, notebooks
and scripts read 32026 datasets with `import h5py` alone.

The automatic registration yields to any explicit one:
  - b2blosc.register(), H5Zregister or h5py.h5z.register_filter afterwards
    replace it, as they replace any filter;
  - hdf5plugin registers only filters HDF5 does not have yet (its import calls
    register(force=False)), so the finder also waits for "hdf5plugin": when it
    is imported, an automatic registration still in place is undone first
    (H5Zunregister) and hdf5plugin's own Blosc2 filter takes 32026, as it
    would without this hook; when h5py finishes importing inside hdf5plugin's
    import, nothing is registered. An explicit `import b2blosc` before h5py,
    or b2blosc.register() at any time, is never undone.

A top-level module, not b2blosc._autoregister: importing a submodule runs the
package's __init__ (numpy, h5py), which every Python start would pay for. This
one imports nothing; until then it costs one string comparison per import.
It never imports h5py itself. A failure becomes a RuntimeWarning, never a
failed import. Opt out: B2BLOSC_NO_AUTOREGISTER=1 (any value but "" and "0")."""
import os
import sys

_TARGETS = ("h5py", "hdf5plugin")
_FILTER_ID = 32026


class _Loader:
    """A target's own loader, with our step before or after its exec_module;
    every other attribute is the original's, and the module keeps the
    original loader once executed."""

    def __init__(self, orig, name):
        self._orig = orig
        self._name = name

    def __getattr__(self, name):
        return getattr(self._orig, name)

    def create_module(self, spec):
        return self._orig.create_module(spec)

    def exec_module(self, module):
        orig = self._orig
        if self._name == "hdf5plugin":
            _step(_yield_to_hdf5plugin)
        try:
            orig.exec_module(module)
        finally:
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = orig
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = orig
        if self._name == "h5py":
            _step(_register)
        else:
            _uninstall()  # hdf5plugin has spoken: nothing left to watch
            _step(_after_hdf5plugin)


class _Finder:
    """Answers for the targets alone, with the spec the finders after it give,
    its loader wrapped; None for every other name (the import goes on as usual)."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname not in _TARGETS:
            return None
        idx = sys.meta_path.index(cls) if cls in sys.meta_path else -1
        for finder in sys.meta_path[idx + 1:]:
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, fullname)
                return spec
        return None


def _step(fn):
    try:
        fn()
    except Exception as e:  # never fail the user's import
        import warnings
        warnings.warn("b2blosc: automatic registration of filter %d: %s: %s"
                      % (_FILTER_ID, type(e).__name__, e), RuntimeWarning, stacklevel=3)


def _register():
    """After h5py's import: register ours, unless hdf5plugin (being imported)
    or b2blosc itself (being imported: it registers when done) will."""
    if "hdf5plugin" in sys.modules:
        return
    mod = sys.modules.get("b2blosc")
    if mod is not None:
        if getattr(getattr(mod, "__spec__", None), "_initializing", False):
            return
        if mod._state.get("registered") is None:
            mod.register(force=False)
            mod._state["auto"] = mod._state.get("registered") == "b2blosc"
        return
    import b2blosc  # its import registers: register(force=False)
    b2blosc._state["auto"] = b2blosc._state.get("registered") == "b2blosc"


def _yield_to_hdf5plugin():
    """Before hdf5plugin's import: undo our automatic registration, if it is
    still the one in place, so that hdf5plugin registers its own 32026."""
    mod = sys.modules.get("b2blosc")
    if mod is None or not mod._state.get("auto") or mod._state.get("registered") != "b2blosc":
        return
    import h5py.h5z
    if h5py.h5z.filter_avail(_FILTER_ID):
        h5py.h5z.unregister_filter(_FILTER_ID)
    mod._state.update(registered=None, auto="yielded")


def _after_hdf5plugin():
    """b2blosc's state says, as `import hdf5plugin, b2blosc` would, that
    another 32026 is kept."""
    mod = sys.modules.get("b2blosc")
    if mod is not None and mod._state.get("auto") == "yielded":
        import h5py.h5z
        mod._state.update(registered="kept" if h5py.h5z.filter_avail(_FILTER_ID) else None,
                          auto=False)


def _uninstall():
    try:
        sys.meta_path.remove(_Finder)
    except ValueError:
        pass


def install():
    """Put the finder first on sys.meta_path (once). Nothing when
    B2BLOSC_NO_AUTOREGISTER is set or hdf5plugin is already imported; registers
    at once when h5py is."""
    if os.environ.get("B2BLOSC_NO_AUTOREGISTER", "") not in ("", "0"):
        return False
    if "hdf5plugin" in sys.modules:
        return False
    if "h5py" in sys.modules:
        _step(_register)
    if _Finder not in sys.meta_path:
        sys.meta_path.insert(0, _Finder)
    return True


install()

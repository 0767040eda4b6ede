# SPDX-License-Identifier: BSD-3-Clause
"""Shared by tests/py/test_h5wasm_*.py: reading HDF5 files with h5wasm +
h5wasm-plugins (the HDFGroup Blosc2 filter compiled to WebAssembly, the
reference decoder here), versions pinned in tests/node/package-lock.json.

The packages are installed with `npm ci` into $B2_BUILD_DIR/h5wasm-read (never
the source tree), under a file lock so tests running in parallel install once;
test_h5plugin_h5wasm.py keeps its own directory. Without node, npm or the
registry the tests skip (exit 77) and say why."""
import fcntl
import json
import os
import shutil
import subprocess
import tempfile

import b2test

NODE_SRC = os.path.join(b2test.REPO, "tests", "node")
PACKAGE_FILES = ("package.json", "package-lock.json")
SCRIPT = "read_datasets.mjs"


def _node_env():
    """The environment for node: without the sanitizer preload ctest sets for
    Python in sanitizer builds (node runs no code of ours)."""
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
        env.pop(k, None)
    return env


def node_dir():
    """Directory holding read_datasets.mjs and the installed node_modules, or skip."""
    npm = shutil.which("npm")
    if not shutil.which("node") or not npm:
        b2test.skip("node/npm not installed")
    base = os.environ.get("B2_BUILD_DIR") or tempfile.gettempdir()
    d = os.path.join(base, "h5wasm-read")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        stale = False
        for name in PACKAGE_FILES + (SCRIPT,):
            with open(os.path.join(NODE_SRC, name), "rb") as f:
                want = f.read()
            dst = os.path.join(d, name)
            if not os.path.isfile(dst) or open(dst, "rb").read() != want:
                stale = stale or name != SCRIPT
                with open(dst, "wb") as f:
                    f.write(want)
        mods = [os.path.join(d, "node_modules", p, "package.json") for p in ("h5wasm", "h5wasm-plugins")]
        if stale or not all(os.path.isfile(m) for m in mods):
            try:
                r = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=d, timeout=300, env=_node_env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            except subprocess.TimeoutExpired:
                b2test.skip("npm ci timed out in %s" % d)
            if r.returncode != 0:
                # force a fresh install next time
                os.remove(os.path.join(d, "package.json"))
                b2test.skip("npm ci failed in %s (offline?): %s" % (d, r.stdout.decode(errors="replace")[-400:]))
    return d


def read_all(d, path):
    """Read every dataset of path with h5wasm. Returns (dict name -> {sha256,
    nbytes, shape, dtype} or {error}, None) or (None, error text)."""
    r = subprocess.run(["node", SCRIPT, os.path.abspath(path)], cwd=d, timeout=300, env=_node_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        # emscripten dumps its whole JS source on a crash: keep the telling lines
        lines = [ln[:300] for ln in r.stderr.decode(errors="replace").splitlines()
                 if ln.startswith(("Aborted", "Error", "RuntimeError", "TypeError")) or "HDF5" in ln]
        return None, "\n".join(lines[:12]) or "node exited %d" % r.returncode
    return json.loads(r.stdout.decode().strip().splitlines()[-1]), None


def compare(C, got, want, what):
    """Count h5wasm's result against want (name -> sha256 of the C-order bytes)."""
    for name, digest in sorted(want.items()):
        g = got.get(name)
        if g is None:
            C.ok(False, "%s %s: h5wasm did not list the dataset" % (what, name))
        elif "error" in g:
            C.ok(False, "%s %s: h5wasm read failed: %s" % (what, name, g["error"]))
        else:
            C.ok(g["sha256"] == digest, "%s %s: h5wasm reads different values (%s)" % (what, name, g))

# SPDX-License-Identifier: BSD-3-Clause
"""Shared by tests/py/test_h5wasm_*.py and test_h5plugin_h5wasm.py: reading
(and writing) HDF5 files with h5wasm + h5wasm-plugins (the HDFGroup Blosc2
filter compiled to WebAssembly, the reference decoder here).

The machines this runs on reach no npm registry: the two packages come as the
tarballs `npm pack` made of them, in $B2_NPM_DIR (default ../shared/npm next to
the source tree, else /work/shared/npm). tests/node/package-lock.json pins their
versions and sha512 integrity, checked here before `npm install --offline` puts
them into $B2_BUILD_DIR/<name> (never the source tree), under a file lock so
tests running in parallel install once. A missing node, npm or tarball, or a
tarball of other bytes, fails the test: this cross-check is never skipped."""
import base64
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import b2test

NODE_SRC = os.path.join(b2test.REPO, "tests", "node")
SCRIPT = "read_datasets.mjs"
PACKAGES = ("h5wasm", "h5wasm-plugins")


def _node_env():
    """The environment for node: without the sanitizer preload ctest sets for
    Python in sanitizer builds (node runs no code of ours)."""
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
        env.pop(k, None)
    return env


def _fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def npm_dir():
    """The directory holding the packed npm packages."""
    cands = [os.environ.get("B2_NPM_DIR"), os.path.join(os.path.dirname(b2test.REPO), "shared", "npm"),
             "/work/shared/npm"]
    for d in cands:
        if d and os.path.isdir(d):
            return d
    _fail("no directory of packed npm packages (set B2_NPM_DIR; tried %s)" % ", ".join(c for c in cands if c))


def pinned_tarballs():
    """[(tarball path, version)] of PACKAGES, each checked against the lock's
    sha512 integrity."""
    with open(os.path.join(NODE_SRC, "package-lock.json")) as f:
        lock = json.load(f)["packages"]
    d, out = npm_dir(), []
    for p in PACKAGES:
        ver, integrity = lock["node_modules/" + p]["version"], lock["node_modules/" + p]["integrity"]
        tgz = os.path.join(d, "%s-%s.tgz" % (p, ver))
        if not os.path.isfile(tgz):
            _fail("%s is missing (the pinned %s %s)" % (tgz, p, ver))
        with open(tgz, "rb") as f:
            got = "sha512-" + base64.b64encode(hashlib.sha512(f.read()).digest()).decode()
        if got != integrity:
            _fail("%s is not the pinned %s %s (%s, lock says %s)" % (tgz, p, ver, got, integrity))
        out.append((tgz, ver))
    return out


def _installed_versions(d):
    vers = []
    for p in PACKAGES:
        try:
            with open(os.path.join(d, "node_modules", p, "package.json")) as f:
                vers.append(json.load(f)["version"])
        except (OSError, ValueError, KeyError):
            vers.append(None)
    return vers


def node_dir(name="h5wasm-read", scripts=(SCRIPT,)):
    """$B2_BUILD_DIR/name holding scripts (from tests/node) and the pinned
    h5wasm packages in node_modules, installed offline if not there yet."""
    npm = shutil.which("npm")
    if not shutil.which("node") or not npm:
        _fail("node/npm not installed (scripts/setup.sh installs them)")
    tarballs = pinned_tarballs()
    base = os.environ.get("B2_BUILD_DIR") or tempfile.gettempdir()
    d = os.path.join(base, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        for s in scripts:
            shutil.copyfile(os.path.join(NODE_SRC, s), os.path.join(d, s))
        if _installed_versions(d) == [v for _, v in tarballs]:
            return d
        with open(os.path.join(d, "package.json"), "w") as f:
            json.dump({"name": "libb2-" + name, "private": True, "type": "module"}, f)
        cmd = [npm, "install", "--offline", "--no-audit", "--no-fund"] + [t for t, _ in tarballs]
        try:
            r = subprocess.run(cmd, cwd=d, timeout=300, env=_node_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except subprocess.TimeoutExpired:
            _fail("npm install --offline timed out in %s" % d)
        if r.returncode != 0 or _installed_versions(d) != [v for _, v in tarballs]:
            _fail("npm install --offline failed in %s: %s" % (d, r.stdout.decode(errors="replace")[-600:]))
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

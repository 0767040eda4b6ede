# SPDX-License-Identifier: BSD-3-Clause
"""`b2 compact` and the dead bytes `b2 info` reports: a frame file grown chunk by
chunk (each commit leaves its old index and trailer behind), a b2nd array (which
`b2 compress` must already write compact), the b2nd outputs of `b2 convert`
(written compact too) and every contiguous reference frame are compacted; the decoded content must not
change, the dead bytes must drop to 0 and the file shrink by exactly that much.
Sparse frames are left alone; errors give exit 1, usage errors exit 2."""
import ctypes
import hashlib
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import libb2_ctypes  # noqa: E402

c = b2test.Counter("cli compact")
run = b2test.run_b2


def info(path):
    r = run(["info", "--json", path])
    return json.loads(r.stdout) if r.returncode == 0 else None


def content(path):
    r = run(["cat", path])
    return hashlib.sha256(r.stdout).hexdigest() if r.returncode == 0 else None


def check_compact(path, tag, expect_dead=None, expect_compact=False):
    before, data = info(path), content(path)
    if not c.ok(before is not None and data is not None, "%s: info/cat before" % tag):
        return
    dead = before.get("dead_bytes")
    c.ok(isinstance(dead, int) and dead >= 0, "%s: dead_bytes %r" % (tag, dead))
    if expect_dead:
        c.ok(dead and dead > 0, "%s: a grown frame file has dead bytes (%r)" % (tag, dead))
    if expect_compact:
        c.ok(dead == 0, "%s: written with %r dead bytes" % (tag, dead))
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        raw = f.read()
    r = run(["compact", path])
    want = b"dead bytes reclaimed" if dead else b"no dead space"
    c.ok(r.returncode == 0 and want in r.stdout,
         "%s: compact exit %d: %r %s" % (tag, r.returncode, r.stdout, r.stderr.decode(errors="replace")))
    after = info(path)
    c.ok(after is not None and after.get("dead_bytes") == 0, "%s: dead bytes after %r"
         % (tag, after and after.get("dead_bytes")))
    if dead:
        # the index is re-encoded too, so allow it a few bytes either way
        c.ok(abs(os.path.getsize(path) - (size - dead)) <= 64, "%s: size %d -> %d, dead %r"
             % (tag, size, os.path.getsize(path), dead))
    else:
        with open(path, "rb") as f:
            c.ok(f.read() == raw, "%s: a file without dead space was rewritten" % tag)
    c.ok(content(path) == data, "%s: content changed" % tag)


def main():
    lib = libb2_ctypes.load()
    d = lib.dll
    tmp = tempfile.mkdtemp(prefix="b2compact_")
    try:
        # a frame file grown by appends: every commit leaves index + trailer behind
        path = os.path.join(tmp, "grown.b2frame")
        p = lib.cparams(codec="lz4", typesize=4)
        rc, s = lib.open_schunk(flags=libb2_ctypes.OPEN_CREATE, path=path, cparams=p)
        lib.check(rc, "create")
        for k in range(6):
            buf = bytes((i * 7 + k) & 0xFF for i in range(4096 * (k + 1)))
            lib.check(d.b2_schunk_append_buffer(s, buf, len(buf)), "append")
        d.b2_schunk_free(s)
        check_compact(path, "grown frame", expect_dead=True)
        r = run(["info", path])
        c.ok(r.returncode == 0 and b"dead bytes       0" in r.stdout, "info text shows dead bytes")

        # a b2nd array written by b2 compress
        raw = os.path.join(tmp, "a.raw")
        with open(raw, "wb") as f:
            f.write(bytes((i // 3) & 0xFF for i in range(4 * 60 * 50)))
        arr = os.path.join(tmp, "a.b2nd")
        r = run(["compress", "--shape", "60,50", "--dtype", "<i4", "--chunks", "16,20",
                 "--blocks", "8,10", raw, arr])
        if c.ok(r.returncode == 0, "compress b2nd: %s" % r.stderr.decode(errors="replace")):
            check_compact(arr, "b2nd array", expect_compact=True)  # b2nd_save writes compact

        # every contiguous reference frame (copied)
        idir = b2test.interop_dir()
        man = b2test.load_manifest(os.path.join(idir, "manifest.json"))
        n = 0
        for v in man["vectors"]:
            src = os.path.join(idir, v["path"])
            if v["kind"] not in ("cframe", "b2nd") or not os.path.isfile(src):
                continue
            dst = os.path.join(tmp, "ref_%d%s" % (n, os.path.splitext(src)[1]))
            shutil.copyfile(src, dst)
            check_compact(dst, v["id"])
            n += 1
        c.ok(n >= 30, "reference frames compacted: %d" % n)

        # b2 convert writes its b2nd output compact (no dead bytes), HDF5 chunks
        # moved as they are and recompressed alike
        nconv = 0
        for v in man["vectors"]:
            if v["kind"] != "hdf5":
                continue
            for ds in v["datasets"]:
                if not any(f["id"] == 32026 for f in ds["filters"]) or len(ds["shape"]) == 0:
                    continue
                for extra in ([], ["--recompress"]):
                    dst = os.path.join(tmp, "conv_%d.b2nd" % nconv)
                    r = run(["convert", "-q"] + extra + ["%s:%s" % (os.path.join(idir, v["path"]), ds["name"]),
                                                         dst])
                    if r.returncode != 0:
                        continue
                    check_compact(dst, "convert %s %s %s" % (v["id"], ds["name"], extra), expect_compact=True)
                    nconv += 1
        c.ok(nconv >= 4, "convert outputs checked: %d" % nconv)

        # sparse frames: nothing to do, content unchanged
        sp = [v for v in man["vectors"] if v["kind"] == "sframe"]
        if sp:
            dst = os.path.join(tmp, "sparse.b2frame")
            shutil.copytree(os.path.join(idir, sp[0]["path"]), dst)
            data = content(dst)
            r = run(["compact", dst])
            c.ok(r.returncode == 0 and b"nothing to compact" in r.stdout and content(dst) == data,
                 "sparse frame: exit %d %r" % (r.returncode, r.stdout))

        # errors
        r = run(["compact", os.path.join(tmp, "missing.b2frame")])
        c.ok(r.returncode == 1 and b"cannot open" in r.stderr, "missing file: exit %d" % r.returncode)
        r = run(["compact"])
        c.ok(r.returncode == 2, "no file: exit %d" % r.returncode)
        r = run(["compact", "--bogus", path])
        c.ok(r.returncode == 2, "unknown option: exit %d" % r.returncode)
        r = run(["compact", "--help"])
        c.ok(r.returncode == 0 and b"usage: b2 compact" in r.stdout, "--help")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


main()

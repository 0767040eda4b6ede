# SPDX-License-Identifier: BSD-3-Clause
"""`b2 compress` of NumPy .npy files written by NumPy: versions 1.0, 2.0 and
3.0, little- and big-endian and one-byte dtypes, ndim 0..3. A b2nd output gets
the header's shape and dtype and decodes to the array's bytes; a frame or a
chunk gets its typesize. Refused with a clear message (exit 1) and no output:
Fortran order, object and structured dtypes, a truncated header, a header
announcing more or fewer data bytes than the file holds; options contradicting
the header are usage errors (exit 2)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy not importable")
    sys.exit(77)

c = b2test.Counter("cli npy")
run = b2test.run_b2
t = b2test.scratch_dir("b2npy-")


def save(name, a, version=None, **kw):
    path = os.path.join(t, name)
    with open(path, "wb") as f:
        np.lib.format.write_array(f, a, version=version, **kw)
    return path


def info(path):
    r = run(["info", "--json", path])
    return json.loads(r.stdout) if r.returncode == 0 else {}


def good_arrays():
    rng = np.random.default_rng(39)
    yield "f4_3d", np.arange(2 * 30 * 7, dtype="<f4").reshape(2, 30, 7), None
    yield "i8_be", (np.arange(1000, dtype=">i8") * 7919) % 1000003, None
    yield "u1", rng.integers(0, 255, size=(50, 40), dtype=np.uint8), None
    yield "f8_v2", rng.standard_normal((33, 9)), (2, 0)
    yield "u2_v3", np.arange(500, dtype="<u2").reshape(25, 20), (3, 0)
    yield "scalar", np.array(3.5, dtype="<f8"), None
    yield "c16", (np.arange(40) + 1j).astype("<c16"), None


for name, a, version in good_arrays():
    src = save(name + ".npy", a, version)
    out = os.path.join(t, name + ".b2nd")
    r = run(["compress", "--codec", "zstd", src, out])
    if not c.ok(r.returncode == 0, "%s: compress exit %d %r" % (name, r.returncode, r.stderr)):
        continue
    nd = info(out).get("b2nd", {})
    c.ok(nd.get("shape") == list(a.shape) and nd.get("dtype") == a.dtype.str,
         "%s: shape %r dtype %r from the header (want %r %r)" % (name, nd.get("shape"), nd.get("dtype"),
                                                                 list(a.shape), a.dtype.str))
    r = run(["cat", out])
    c.ok(r.returncode == 0 and r.stdout == a.tobytes(), "%s: b2nd decodes to the array's bytes" % name)
    fr = os.path.join(t, name + ".b2frame")
    r = run(["compress", "--chunksize", "1k", src, fr])
    j = info(fr)
    c.ok(r.returncode == 0 and j.get("typesize") == min(a.dtype.itemsize, 255),
         "%s: frame typesize %r from the header (%r)" % (name, j.get("typesize"), r.stderr))
    r = run(["cat", fr])
    c.ok(r.returncode == 0 and r.stdout == a.tobytes(), "%s: frame holds the data, not the header" % name)

# one chunk: the data only, with the dtype's typesize
src = os.path.join(t, "f4_3d.npy")
ch = os.path.join(t, "f4.b2chunk")
r = run(["compress", src, ch])
c.ok(r.returncode == 0 and run(["cat", ch]).stdout == np.load(src).tobytes(), "chunk holds the data")
c.ok(info(ch).get("typesize") == 4, "chunk typesize 4: %r" % info(ch).get("typesize"))

# options agreeing with the header are accepted, contradicting ones refused
r = run(["compress", "--force", "--dtype", "<f4", "--shape", "2,30,7", "--chunks", "1,10,7", src,
         os.path.join(t, "f4_3d.b2nd")])
c.ok(r.returncode == 0 and info(os.path.join(t, "f4_3d.b2nd"))["b2nd"]["chunkshape"] == [1, 10, 7],
     "agreeing --dtype/--shape and --chunks: %r" % r.stderr)
for opt, val, word in (("--dtype", "<f8", b"--dtype '<f8' contradicts the .npy dtype '<f4'"),
                       ("--shape", "60,7", b"--shape contradicts the .npy shape"),
                       ("--typesize", "8", b"--typesize 8 contradicts the .npy dtype '<f4'")):
    out = os.path.join(t, "contra.b2nd")
    r = run(["compress", opt, val, src, out])
    c.ok(r.returncode == 2 and word in r.stderr and not os.path.exists(out),
         "%s %s refused: exit %d %r" % (opt, val, r.returncode, r.stderr))

# refused inputs: exit 1, a message naming the problem, no output
blob = open(src, "rb").read()
hlen = 10 + blob[8] + 256 * blob[9]
bad = {
    "fortran": (save("fortran.npy", np.asfortranarray(np.arange(6.0).reshape(2, 3))), b"Fortran order"),
    "object": (save("object.npy", np.array([1, "a"], dtype=object), allow_pickle=True), b"object dtype"),
    "structured": (save("rec.npy", np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")])), b"structured dtypes"),
}
for name, data, word in (("trunc_header", blob[:40], b"truncated .npy header"),
                         ("trunc_prefix", blob[:9], b"truncated .npy header"),
                         ("short_data", blob[:-4], b"announces 1680 data bytes, the file holds 1676"),
                         ("long_data", blob + b"\0" * 8, b"announces 1680 data bytes, the file holds 1688"),
                         ("version9", blob[:6] + b"\x09\x00" + blob[8:], b"format version 9.0"),
                         ("no_shape", blob[:hlen].replace(b"'shape'", b"'shapx'") + blob[hlen:],
                          b"lacks 'descr', 'fortran_order' or 'shape'"),
                         ("bad_shape", blob[:hlen].replace(b"(2, 30, 7)", b"(2, x0, 7)") + blob[hlen:],
                          b"malformed .npy shape")):
    path = os.path.join(t, name + ".npy")
    with open(path, "wb") as f:
        f.write(data)
    bad[name] = (path, word)
for name, (path, word) in sorted(bad.items()):
    for out in (os.path.join(t, "bad.b2nd"), os.path.join(t, "bad.b2frame")):
        r = run(["compress", path, out])
        c.ok(r.returncode == 1 and word in r.stderr and b"Traceback" not in r.stderr
             and not os.path.exists(out),
             "%s -> %s: exit %d %r" % (name, os.path.basename(out), r.returncode, r.stderr))

r = run(["compress", "--help"])
c.ok(b".npy" in r.stdout, "--help mentions .npy input")
c.finish()

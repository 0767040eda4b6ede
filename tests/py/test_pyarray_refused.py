# SPDX-License-Identifier: BSD-3-Clause
"""python-blosc2's containers we do not read are refused by name, never shown as
data (issue 37, section 2, item 4):
  * the files of test_data/pyblosc2/ (written by python-blosc2 4.14.1:
    make_vectors.py there): EmbedStore .b2e, DictStore and TreeStore as .b2d
    and .b2z, CTable as .b2d and .b2z, BatchArray, ObjectArray, a saved
    LazyExpr and LazyUDF, a Proxy cache, and the frames inside a store;
  * markers python-blosc2 writes in cases this machine cannot make (a network
    source, older versions), built here from the format rules with
    b2blosc.save(meta=...): LazyArray, b2o kinds remote_array / c2array / an
    unknown one, listarray, b2remote_store; a .b2z whose embed.b2e is deflated,
    and a zip that is no store;
  * b2blosc.open raises Blosc2Error naming the kind (and .kind); `b2 cat` and
    `b2 slice` exit 1 naming it with nothing on stdout; `b2 info` names it in
    its text and --json (python_blosc2) when the path is one frame, and exits 1
    naming it for a .b2d/.b2z;
  * an HDF5 file: b2blosc.open says so and points at h5py and b2blosc.h5;
  * other files passed by mistake (a NumPy .npy, netCDF classic and CDF-5,
    gzip/zstd/xz/bzip2-compressed files, a Zarr store, a lone Blosc2 chunk):
    named, with what reads them; a frame cut short keeps the library's error;
  * what must keep opening: the plain b2nd arrays inside those stores, a lazy
    expression's operands, sparse frames."""
import json
import os
import shutil
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import pyarray_common as pc  # noqa: E402

ba = pc.load()
import numpy as np  # noqa: E402

check = b2test.Checks()
DATA = os.path.join(b2test.REPO, "test_data")
PYB = os.path.join(DATA, "pyblosc2")

# file -> words its refusal must hold (the kind), and whether it is one frame
VECTORS = [
    ("embed.b2e", "a python-blosc2 EmbedStore (.b2e)", True),
    ("dict.b2d", "a python-blosc2 DictStore (.b2d, a directory of frames)", False),
    ("dict.b2z", "a python-blosc2 DictStore (.b2z, a zip of frames)", False),
    ("tree.b2d", "a python-blosc2 TreeStore (.b2d, a directory of frames)", False),
    ("tree.b2z", "a python-blosc2 TreeStore (.b2z, a zip of frames)", False),
    ("table.b2d", "a python-blosc2 CTable (.b2d, a directory of frames)", False),
    ("table.b2z", "a python-blosc2 CTable (.b2z, a zip of frames)", False),
    ("batch.b2frame", "a python-blosc2 BatchArray (batcharray metalayer", True),
    ("object.b2frame", "a python-blosc2 ObjectArray (vlarray metalayer", True),
    ("lazyexpr.b2nd", "a saved lazy expression (b2o metalayer, a python-blosc2 LazyExpr)", True),
    ("lazyudf.b2nd", "a saved lazy UDF (b2o metalayer, a python-blosc2 LazyUDF)", True),
    ("proxy.b2nd", "a python-blosc2 Proxy cache (proxy-source metalayer)", True),
    ("dict.b2d/embed.b2e", "the index frame (embed.b2e) of a python-blosc2 DictStore", True),
    ("tree.b2d/embed.b2e", "the index frame (embed.b2e) of a python-blosc2 TreeStore", True),
    ("table.b2d/_meta.b2f", "the manifest (_meta.b2f) of a python-blosc2 CTable", True),
]


def mp_map(d):
    """msgpack of a small {str: str|int} map (fixmap, fixstr, positive fixint)."""
    out = bytearray([0x80 | len(d)])
    for k, v in d.items():
        for x in (k, v):
            if isinstance(x, str):
                out += bytes([0xa0 | len(x)]) + x.encode()
            else:
                out.append(x)
    return bytes(out)


def built(tmp):
    """Markers made from the format rules: (path, kind words, one frame)."""
    x = np.arange(12, dtype="f8")
    out = []
    for name, meta, words in (
            ("lazyarray.b2nd", {"LazyArray": b"\x01"}, "a saved lazy expression (LazyArray metalayer)"),
            ("remote.b2nd", {"b2o": mp_map({"kind": "remote_array", "version": 1})},
             "a python-blosc2 RemoteArray cache (b2o metalayer)"),
            ("c2.b2nd", {"b2o": mp_map({"kind": "c2array", "version": 1})},
             "a saved python-blosc2 C2Array reference (b2o metalayer)"),
            ("future.b2nd", {"b2o": mp_map({"kind": "future", "version": 1})},
             "a saved python-blosc2 object (b2o metalayer, kind 'future')"),
            ("list.b2nd", {"listarray": mp_map({"version": 1})},
             "a python-blosc2 ListArray (listarray metalayer"),
            ("rstore.b2nd", {"b2remote_store": mp_map({"version": 1})},
             "a python-blosc2 RemoteStore (b2remote_store metalayer)")):
        p = os.path.join(tmp, name)
        try:   # save writes, then opens what it wrote: refused like any such file
            ba.save(x, p, meta=meta).close()
            check(False, "b2blosc.save(meta=%s) returned the file opened" % list(meta))
        except ba.Blosc2Error as e:
            check(words in str(e), "b2blosc.save's reopen names %r: %s" % (words, e))
        out.append((p, words, True))
    # a .b2z repacked with its members deflated: still a store, its kind unknown
    deflated = os.path.join(tmp, "deflated.b2z")
    with zipfile.ZipFile(os.path.join(PYB, "dict.b2z")) as src, \
            zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for n in src.namelist():
            dst.writestr(n, src.read(n))
    out.append((deflated, "a python-blosc2 DictStore or TreeStore (.b2z, a zip of frames)", False))
    plain = os.path.join(tmp, "plain.zip")
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("a.txt", "hello")
    out.append((plain, "a zip file without embed.b2e", False))
    return out


def refused_by_open(path, words):
    try:
        a = ba.open(path)
    except ba.Blosc2Error as e:
        text = str(e)
        check(words in text, "b2blosc.open(%s) names %r: %s" % (path, words, text))
        check(getattr(e, "kind", "").startswith(words[:20]), "%s: .kind %r" % (path, getattr(e, "kind", None)))
        if not words.startswith("a zip"):
            check("blosc2.open" in text, "%s: the message points at blosc2.open: %s" % (path, text))
        check(e.code in (-5, -15), "%s: code %d" % (path, e.code))
        return
    except Exception as e:
        check(False, "b2blosc.open(%s): %s(%s), want Blosc2Error" % (path, type(e).__name__, e))
        return
    check(False, "b2blosc.open(%s) opened it: %s %s" % (path, type(a).__name__, getattr(a, "shape", "")))
    a.close()


def refused_by_b2(args, path, words):
    r = b2test.run_b2(args)
    err = r.stderr.decode(errors="replace")
    check(r.returncode == 1 and words in err and not r.stdout,
          "b2 %s: exit %d, %d bytes out, stderr %r (want exit 1 naming %r)"
          % (" ".join(args), r.returncode, len(r.stdout), err.strip()[:300], words))


def info_names(path, words):
    r = b2test.run_b2(["info", path])
    out = r.stdout.decode(errors="replace")
    check(r.returncode == 0 and ("python-blosc2    " + words) in out,
          "b2 info %s: exit %d, want a python-blosc2 line naming %r: %s"
          % (path, r.returncode, words, out[:300] + r.stderr.decode(errors="replace")))
    r = b2test.run_b2(["info", "--json", path])
    try:
        got = json.loads(r.stdout).get("python_blosc2", "")
    except ValueError as e:
        got = "no JSON: %s" % e
    check(r.returncode == 0 and got.startswith(words), "b2 info --json %s: python_blosc2 %r" % (path, got))


def refusals(tmp):
    todo = [(os.path.join(PYB, f), w, one) for f, w, one in VECTORS] + built(tmp)
    for path, words, one_frame in todo:
        check(os.path.exists(path), "vector %s exists" % path)
        refused_by_open(path, words)
        refused_by_b2(["cat", path], path, words)
        refused_by_b2(["slice", path, "0:3"], path, words)
        if one_frame:
            info_names(path, words)
            with open(path, "rb") as f:   # the same from standard input
                r = b2test.run_b2(["cat", "-"], data=f.read())
            check(r.returncode == 1 and words in r.stderr.decode(errors="replace") and not r.stdout,
                  "b2 cat - < %s: exit %d, stderr %r" % (path, r.returncode, r.stderr[:200]))
        else:
            refused_by_b2(["info", path], path, words)
    return len(todo)


def hdf5():
    h5 = os.path.join(DATA, "hdf5", "h0_rank1.h5")
    try:
        ba.open(h5)
        check(False, "b2blosc.open(%s) opened an HDF5 file" % h5)
    except ba.Blosc2Error as e:
        t = str(e)
        check("an HDF5 file" in t and "h5py" in t and "b2blosc.h5" in t and "0x89" not in t,
              "b2blosc.open(HDF5 file) says what it is and what reads it: %s" % t)
    # the signature may also sit at 512, 1024, ... (a user block)
    tmp = b2test.scratch_dir("b2refused_h5_")
    ub = os.path.join(tmp, "userblock.h5")
    with open(h5, "rb") as f, open(ub, "wb") as g:
        g.write(b"\0" * 512 + f.read())
    try:
        ba.open(ub)
        check(False, "b2blosc.open opened an HDF5 file with a user block")
    except ba.Blosc2Error as e:
        check("an HDF5 file" in str(e), "HDF5 signature at 512: %s" % e)


def other_formats():
    """Other files passed by mistake: named, with what reads them, never the
    frame parser's byte-0 message; a frame cut short keeps its own error."""
    import gzip
    tmp = b2test.scratch_dir("b2refused_other_")
    made = {}

    def put(name, data):
        made[name] = os.path.join(tmp, name)
        with open(made[name], "wb") as f:
            f.write(data)
    np.save(os.path.join(tmp, "a.npy"), np.arange(50))
    made["a.npy"] = os.path.join(tmp, "a.npy")
    put("a.gz", gzip.compress(b"x" * 500))
    put("classic.nc", b"CDF\x01" + b"\0" * 200)
    put("cdf5.nc", b"CDF\x05" + b"\0" * 200)
    put("a.zst", b"\x28\xb5\x2f\xfd" + b"\0" * 200)
    put("a.xz", b"\xfd7zXZ\x00" + b"\0" * 200)
    put("a.bz2", b"BZh9" + b"\0" * 200)
    os.mkdir(os.path.join(tmp, "z.zarr"))
    put(os.path.join("z.zarr", ".zgroup"), b'{"zarr_format": 2}')
    made["z.zarr"] = os.path.join(tmp, "z.zarr")
    chunks = sorted(os.listdir(os.path.join(DATA, "chunks")))
    with open(os.path.join(DATA, "chunks", [c for c in chunks if c.endswith(".b2chunk")][0]), "rb") as f:
        put("one.b2chunk", f.read())
    want = {"a.npy": ("a NumPy .npy file", "numpy.load"), "a.gz": ("a gzip-compressed file", "gzip -d"),
            "classic.nc": ("a netCDF classic file", "netCDF4"),
            "cdf5.nc": ("a netCDF 64-bit data (CDF-5) file", "netCDF4"),
            "a.zst": ("a Zstandard-compressed file", "zstd -d"), "a.xz": ("an xz-compressed file", "xz -d"),
            "a.bz2": ("a bzip2-compressed file", "bzip2 -d"), "z.zarr": ("a Zarr store", "zarr"),
            "one.b2chunk": ("a single Blosc2 chunk", "blosc2.decompress2")}
    for name, (kind, reader) in want.items():
        try:
            ba.open(made[name])
            check(False, "b2blosc.open(%s) opened it" % name)
        except ba.Blosc2Error as e:
            t = str(e)
            check(getattr(e, "kind", None) == kind and kind in t and reader in t and
                  "not 0x9e" not in t and e.code == -15,
                  "b2blosc.open(%s) names %r and %r: %s (kind %r)" % (name, kind, reader, t,
                                                                      getattr(e, "kind", None)))
    # a real frame cut short is still a frame: the library's own error
    frames = sorted(f for f in os.listdir(os.path.join(DATA, "frames")) if f.endswith(".b2frame"))
    with open(os.path.join(DATA, "frames", frames[0]), "rb") as f:
        put("cut.b2frame", f.read()[:200])
    try:
        ba.open(made["cut.b2frame"])
        check(False, "a frame cut short opened")
    except ba.Blosc2Error as e:
        check(getattr(e, "kind", None) is None and e.code in (-2, -3, -4),
              "a frame cut short keeps the library's error: %s" % e)


def still_open():
    """Plain arrays stay arrays: in a store, a lazy expression's operands, a sparse frame."""
    for rel in ("dict.b2d/x.b2nd", "tree.b2d/y.b2nd", "operand1.b2nd"):
        p = os.path.join(PYB, rel)
        with ba.open(p) as a:
            want = np.arange(10, dtype="f8") * (2 if rel.endswith("y.b2nd") else 1)
            check(type(a).__name__ == "B2ndArray" and np.array_equal(a[...], want),
                  "%s opens to its values: %s" % (rel, a[...]))
        r = b2test.run_b2(["cat", p])
        check(r.returncode == 0 and r.stdout == want.tobytes(), "b2 cat %s: exit %d" % (rel, r.returncode))
        r = b2test.run_b2(["info", p])
        check(r.returncode == 0 and b"python-blosc2" not in r.stdout, "b2 info %s names no kind" % rel)
    with ba.open(os.path.join(PYB, "table.b2d", "_cols", "a.b2nd")) as a:
        check(a[:2].tolist() == [1, 3], "a CTable column file opens as its b2nd array: %s" % a[:2])
    sp = [e for e in sorted(os.listdir(os.path.join(DATA, "frames")))
          if os.path.isdir(os.path.join(DATA, "frames", e))]
    check(bool(sp), "test_data/frames has sparse frames")
    for e in sp[:2]:
        with ba.open(os.path.join(DATA, "frames", e)) as a:
            check(a.shape[0] > 0, "sparse frame %s opens (%s)" % (e, a.shape))


def main():
    tmp = b2test.scratch_dir("b2refused_")
    n = refusals(tmp)
    hdf5()
    other_formats()
    still_open()
    shutil.rmtree(tmp, ignore_errors=True)
    print("%d refused objects; %d checks, %d failed" % (n, check.count, len(check.failures)))
    return 1 if check.failures else 0


sys.exit(main())

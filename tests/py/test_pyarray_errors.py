# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.array on bad input, never a crash:
  * truncated .b2nd / .b2frame files (every length class: empty, inside the
    header, inside the chunks, inside the index and trailer) raise Blosc2Error
    with the library's negative code and detailed message;
  * corrupted files (a chunk header overwritten; bytes flipped all over the
    file) raise Blosc2Error or read something, and never bring the process down;
  * not a Blosc2 file, a plain directory, a missing path;
  * bad arguments of open, save and indexing: ValueError / KeyError /
    IndexError / TypeError naming what was wrong;
  * the library: importing b2blosc.array loads neither numpy nor libb2, and a
    missing or unloadable library raises LibraryNotFoundError (an OSError)
    naming the paths tried, as does one whose b2_open_options differs from the
    binding's OpenOptions;
  * _libb2's one way to a frame handle (Lib.open_schunk over b2_schunk_open_with):
    a path, an offset, a borrowed or copied buffer, a new frame, and the errors
    of an empty buffer and of no source."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import pyarray_common as pc  # noqa: E402

ba = pc.load()
import numpy as np  # noqa: E402

check = b2test.Checks()


def raises(exc, fn, what, contains=()):
    """fn() raises exc (whose text holds every string of contains)."""
    try:
        fn()
    except exc as e:
        text = str(e)
        ok = all(c in text for c in contains)
        check(ok, "%s: %s(%s)%s" % (what, type(e).__name__, text,
                                    "" if ok else " lacks %r" % (contains,)))
        return e
    except Exception as e:
        check(False, "%s: raised %s(%s), want %s" % (what, type(e).__name__, e, exc.__name__))
        return None
    check(False, "%s: no exception, want %s" % (what, exc.__name__))
    return None


def read_all(path):
    with ba.open(path) as a:
        np.asarray(a)
        for k in list(a.vlmeta):
            a.vlmeta[k]
        return a.shape


def truncated(tmp, src, tag):
    raw = open(src, "rb").read()
    hl = int.from_bytes(raw[11:15], "big")
    cuts = sorted({0, 1, 8, 20, hl // 2, hl - 1, hl, hl + 10, len(raw) // 2, len(raw) - 40,
                   len(raw) - 9, len(raw) - 1})
    n = 0
    for cut in cuts:
        if not 0 <= cut < len(raw):
            continue
        p = os.path.join(tmp, "%s_cut%d" % (tag, cut))
        with open(p, "wb") as f:
            f.write(raw[:cut])
        e = raises(ba.Blosc2Error, lambda: read_all(p), "%s truncated to %d of %d bytes" % (tag, cut, len(raw)))
        if e is not None:
            check(e.code < 0 and e.name.startswith("B2_ERR_") and e.message and isinstance(e, ValueError),
                  "%s cut %d: code %d (%s), message %r" % (tag, cut, e.code, e.name, e.message))
        n += 1
    return n


def corrupted(tmp, src, tag, rng):
    raw = bytearray(open(src, "rb").read())
    hl = int.from_bytes(raw[11:15], "big")
    # the first chunk's header: version byte and cbytes made nonsense
    bad = bytearray(raw)
    bad[hl + 12:hl + 16] = b"\xff\xff\xff\x7f"
    bad[hl + 4:hl + 8] = b"\xff\xff\xff\x7f"
    p = os.path.join(tmp, tag + "_badchunk")
    open(p, "wb").write(bad)
    e = raises(ba.Blosc2Error, lambda: read_all(p), "%s with its first chunk header overwritten" % tag)
    if e is not None:
        check(e.code < 0 and e.message, "%s bad chunk: %s %r" % (tag, e.name, e.message))
    # flipped bytes anywhere: an error or data, never a crash
    outcomes = {"error": 0, "read": 0}
    for i in range(150):
        bad = bytearray(raw)
        for _ in range(1 + i % 3):
            pos = int(rng.integers(0, len(bad)))
            bad[pos] ^= int(rng.integers(1, 256))
        p = os.path.join(tmp, "%s_flip%d" % (tag, i))
        open(p, "wb").write(bad)
        try:
            read_all(p)
            outcomes["read"] += 1
        except ba.Blosc2Error as e:
            outcomes["error"] += 1
            if not (e.code < 0 and e.message):
                check(False, "%s flip %d: error without code/message: %r" % (tag, i, e))
        except Exception as e:
            check(False, "%s flip %d: %s(%s) is not a Blosc2Error" % (tag, i, type(e).__name__, e))
        os.unlink(p)
    check(outcomes["error"] > 0, "%s: 150 corrupted copies: %s" % (tag, outcomes))
    print("%s: 150 corrupted copies: %d errors, %d read (bytes flipped in data decode to other data)"
          % (tag, outcomes["error"], outcomes["read"]))


def bad_paths(tmp):
    txt = os.path.join(tmp, "not_blosc2.b2nd")
    open(txt, "w").write("hello, this is not a frame\n" * 20)
    e = raises(ba.Blosc2Error, lambda: ba.open(txt), "a text file")
    if e is not None:
        check(e.code < 0 and txt in str(e), "the error names the file: %s" % e)
    empty_dir = os.path.join(tmp, "empty_dir")
    os.mkdir(empty_dir)
    raises(ba.Blosc2Error, lambda: ba.open(empty_dir), "a directory that is no sparse frame")
    raises(FileNotFoundError, lambda: ba.open(os.path.join(tmp, "missing.b2nd")), "a missing path",
           ("missing.b2nd",))


def bad_arguments(tmp):
    x = np.arange(60, dtype="<f4").reshape(6, 10)
    path = os.path.join(tmp, "ok.b2nd")
    raises(KeyError, lambda: ba.save(x, path, cname="lz5"), "cname='lz5'", ("lz5", "zstd"))
    raises(KeyError, lambda: ba.save(x, path, cname=5), "cname=5", ("5", "blosclz", "zstd"))
    for cl in (10, -1, 2.5, "5", True):
        raises(ValueError, lambda: ba.save(x, path, clevel=cl), "clevel=%r" % (cl,), ("clevel",))
    for fv in (5, -1, True, 2.0):
        raises(ValueError, lambda: ba.save(x, path, filters=fv), "filters=%r" % (fv,), ("filter",))
    raises(ValueError, lambda: ba.save(x, path, filters=ba.TRUNC_PREC), "filters=TRUNC_PREC without precision",
           ("precision",))
    raises(ValueError, lambda: ba.save(x, path, filters=["shufle"]), "filters=['shufle']", ("shufle",))
    raises(ValueError, lambda: ba.save(x, path, filters=["shuffle"] * 7), "7 filters", ("6",))
    raises(ValueError, lambda: ba.save(x, path, filters=[("trunc_prec",)]), "filter tuple of 1", ("meta",))
    raises(ValueError, lambda: ba.save(x, path, filters=[("delta", 300)]), "filter meta 300", ("meta",))
    raises(ValueError, lambda: ba.save(x, path, filters=[200]), "unknown filter id 200", ("200",))
    raises(ValueError, lambda: ba.save(x, path, chunks=(3,)), "chunks of 1 entry for 2 dims", ("chunks",))
    raises(ValueError, lambda: ba.save(x, path, chunks=(0, 5)), "chunks with a 0", ("chunks",))
    raises(ValueError, lambda: ba.save(x, path, chunks="ab"), "chunks='ab'", ("chunks",))
    raises(ValueError, lambda: ba.save(x, path, chunks=(3, 4), blocks=(4, 4)), "blocks larger than chunks",
           ("blocks",))
    raises(ValueError, lambda: ba.save(np.array([1, "a", None], dtype=object), path), "object dtype",
           ("object",))
    raises(ValueError, lambda: ba.save(x, path, meta={"n" * 40: b"x"}), "metalayer name of 40 bytes",
           ("meta",))
    raises(ValueError, lambda: ba.save(x, path, vlmeta={"v": 3}), "vlmeta value 3", ("vlmeta",))
    raises(ValueError, lambda: ba.save(x, path, nthreads=0), "nthreads=0", ("nthreads",))
    raises(ValueError, lambda: ba.save(np.zeros((1,) * 17), path), "17 dimensions", ("17",))
    e = raises(ba.Blosc2Error, lambda: ba.save(x, os.path.join(tmp, "no", "such", "dir.b2nd")),
               "save into a missing directory")
    if e is not None:
        check(e.code < 0 and "dir.b2nd" in str(e), "the error names the path: %s" % e)
    sp = os.path.join(tmp, "sparse_exists")
    os.mkdir(sp)
    raises(FileExistsError, lambda: ba.save(x, sp, contiguous=False), "sparse frame over an existing directory")
    raises(IsADirectoryError, lambda: ba.save(x, sp), "frame file over a directory")
    raises(ValueError, lambda: ba.open(path, mode="w"), "open mode 'w'", ("mode",))

    a = ba.save(x, path, chunks=(4, 4))
    # index lists select orthogonally (test_pyarray); bad ones are IndexError
    raises(IndexError, lambda: a[[0, 6]], "a list index out of range", ("out of bounds",))
    raises(IndexError, lambda: a[np.array([[0, 1]])], "a 2-d index array", ("1-d",))
    raises(IndexError, lambda: a[[0.5]], "a list of floats")
    raises(IndexError, lambda: a[[0], None], "a list with numpy.newaxis", ("newaxis",))
    raises(IndexError, lambda: a[x > 3], "a boolean mask")
    raises(IndexError, lambda: a[True], "a boolean scalar")
    raises(IndexError, lambda: a[6], "index 6 of 6", ("out of bounds",))
    raises(IndexError, lambda: a[0, -11], "index -11 of 10", ("out of bounds",))
    raises(IndexError, lambda: a[0, 0, 0], "too many indices", ("too many",))
    raises(IndexError, lambda: a[..., 0, ...], "two ellipses", ("ellipsis",))
    raises(IndexError, lambda: a["a"], "a str index")
    raises(KeyError, lambda: a.vlmeta["nope"], "a missing vlmetalayer")
    raises(KeyError, lambda: a.meta["nope"], "a missing metalayer")
    check(a[np.int64(2), np.int32(-1)] == x[2, -1], "numpy integer indices")
    a.close()
    a.close()
    raises(ValueError, lambda: a[0], "reading a closed array", ("closed",))
    raises(ValueError, lambda: np.asarray(a), "__array__ of a closed array", ("closed",))
    with ba.save(np.array(1.5), os.path.join(tmp, "s.b2nd")) as s:
        raises(TypeError, lambda: len(s), "len() of a 0-d array")
        check(s[()] == 1.5 and float(np.asarray(s)) == 1.5, "0-d reads")


CHILD = r"""
import os, sys, types, json
pkg = types.ModuleType("b2blosc"); pkg.__path__ = [sys.argv[1]]; sys.modules["b2blosc"] = pkg
import b2blosc.array as ba
out = {"numpy_at_import": "numpy" in sys.modules, "lib_at_import": ba._libb2._lib is not None}
if sys.argv[3:] == ["other_options"]:  # a binding whose b2_open_options has one field more
    import ctypes
    L = ba._libb2
    L.OpenOptions = type("OpenOptions", (ctypes.Structure,),
                         {"_fields_": L.OpenOptions._fields_ + [("later", ctypes.c_int64)]})
try:
    ba.open(sys.argv[2])
    out["error"] = None
except Exception as e:
    out["error"] = type(e).__name__
    out["oserror"] = isinstance(e, OSError)
    out["message"] = str(e)
print(json.dumps(out))
"""


def library_loading(tmp, vector):
    def child(env_lib, *extra):
        env = b2test.clean_env(drop=("B2_LIBB2",))
        if env_lib is not None:
            env["B2_LIBB2"] = env_lib
        p = subprocess.run([sys.executable, "-c", CHILD, pc.PKG_DIR, vector] + list(extra), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        import json
        try:
            return json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            check(False, "child failed (%d): %s %s" % (p.returncode, p.stdout, p.stderr[-2000:]))
            return {}

    r = child(pc.package_library())
    check(r.get("numpy_at_import") is False and r.get("lib_at_import") is False and r.get("error") is None,
          "import b2blosc.array loads neither numpy nor libb2; open works: %s" % r)
    r = child(pc.package_library(), "other_options")
    check(r.get("error") == "LibraryNotFoundError" and "b2_open_options" in r.get("message", ""),
          "a b2_open_options of another size than OpenOptions refuses the library: %s" % r)
    missing = os.path.join(tmp, "nowhere", "libb2blosc.so")
    r = child(missing)
    check(r.get("error") == "LibraryNotFoundError" and r.get("oserror") and missing in r.get("message", ""),
          "B2_LIBB2 naming a missing file: %s" % r)
    notlib = os.path.join(tmp, "libfake.so")
    open(notlib, "w").write("not a shared library")
    r = child(notlib)
    check(r.get("error") == "LibraryNotFoundError" and notlib in r.get("message", "")
          and "cannot load" in r.get("message", ""), "B2_LIBB2 naming a file that is no library: %s" % r)
    pkg_lib = os.path.join(pc.PKG_DIR, "lib", "libb2blosc.so")
    if not os.path.exists(pkg_lib):
        r = child(None)
        check(r.get("error") == "LibraryNotFoundError" and pkg_lib in r.get("message", "")
              and "B2_LIBB2" in r.get("message", ""),
              "no B2_LIBB2 and no library in the package: %s" % r)


def open_options(tmp, frame_path):
    """Lib.open_schunk: the keyword options reach b2_schunk_open_with."""
    import ctypes
    L = ba._libb2
    lib = L.get()
    d = lib.dll
    probe = ctypes.create_string_buffer(4096)
    d.b2_open_options_init(probe)
    check(ctypes.c_size_t.from_buffer(probe).value == ctypes.sizeof(L.OpenOptions),
          "OpenOptions is the library's b2_open_options size")
    o, _keep = lib.open_options()
    check(o.size == ctypes.sizeof(L.OpenOptions) and o.flags == L.OPEN_READONLY and not o.path
          and not o.buffer and not o.cparams, "open_options() holds the library's defaults")

    def nchunks(**kw):
        rc, s = lib.open_schunk(**kw)
        if rc < 0:
            return rc
        try:
            return d.b2_schunk_nchunks(s)
        finally:
            d.b2_schunk_free(s)

    raw = open(frame_path, "rb").read()
    want = nchunks(path=frame_path)
    check(want > 0, "open_schunk(path=...): %d chunks" % want)
    check(nchunks(path=os.fsencode(frame_path)) == want, "open_schunk(path=bytes)")
    check(nchunks(buffer=raw) == want, "open_schunk(buffer=...) borrowed")
    check(nchunks(buffer=bytearray(raw), copy_buffer=True, flags=L.OPEN_WRITE) == want,
          "open_schunk(buffer=bytearray, copy_buffer=True, OPEN_WRITE)")
    check(nchunks(buffer=memoryview(raw)) == want, "open_schunk(buffer=memoryview)")
    rc, s = lib.open_schunk(buffer=raw)
    check(rc == 0 and getattr(s, "_keep", None), "a borrowed buffer is held by the handle")
    d.b2_schunk_free(s)
    inside = os.path.join(tmp, "inside.bin")
    with open(inside, "wb") as f:
        f.write(b"\0" * 100 + raw)
    check(nchunks(path=inside, offset=100) == want, "open_schunk(path=..., offset=100)")
    check(nchunks(buffer=b"") == -2, "an empty buffer is a memory source too short for a frame "
          "(B2_ERR_TRUNCATED): %d" % nchunks(buffer=b""))
    check(nchunks() == -1, "no source, not creating: B2_ERR_INVALID_PARAM")
    check(nchunks(path=os.path.join(tmp, "nowhere.b2frame")) == L.ERR_NOT_FOUND, "a missing path")
    cp = L.CParams()
    d.b2_cparams_init(ctypes.byref(cp))
    cp.typesize = 8
    check(nchunks(flags=L.OPEN_CREATE, cparams=cp) == 0, "open_schunk(OPEN_CREATE) in memory")
    made = os.path.join(tmp, "made.b2frame")
    rc, s = lib.open_schunk(flags=L.OPEN_CREATE, path=made, cparams=cp)
    check(rc == 0 and d.b2_schunk_typesize(s) == 8 and os.path.isfile(made),
          "open_schunk(OPEN_CREATE, path=...): a frame file with the cparams' typesize")
    d.b2_schunk_free(s)
    sparse = os.path.join(tmp, "made.b2frames")
    rc, s = lib.open_schunk(flags=L.OPEN_CREATE, path=sparse, sparse=True)
    check(rc == 0 and os.path.isdir(sparse) and d.b2_schunk_storage(s) == L.STORAGE_SPARSE,
          "open_schunk(OPEN_CREATE, path=..., sparse=True): a sparse-frame directory")
    d.b2_schunk_free(s)


def main():
    d, m = pc.manifest()
    tmp = b2test.scratch_dir("b2pyarray_err_")
    rng = np.random.default_rng(99)
    n = 0
    for rel, tag in (("b2nd/a12_dtype_f8.b2nd", "a12"), ("b2nd/a29_user_meta_vlmeta.b2nd", "a29"),
                     ("frames/f13_metalayers.b2frame", "f13")):
        n += truncated(tmp, os.path.join(d, rel), tag)
        corrupted(tmp, os.path.join(d, rel), tag, rng)
    bad_paths(tmp)
    bad_arguments(tmp)
    library_loading(tmp, os.path.join(d, "b2nd", "a01_ndim2.b2nd"))
    open_options(tmp, os.path.join(d, "frames", "f13_metalayers.b2frame"))
    print("%d truncated files; %d checks, %d failed" % (n, check.count, len(check.failures)))
    return 1 if check.failures else 0


sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""`b2` on b2nd arrays: `cat` of every reference array against the manifest,
`info --json` geometry and metalayers against it, `slice` boxes and orthogonal
selections (index lists) compared with NumPy slicing and np.ix_ of the whole array, and compress -> cat round trips (contiguous
and sparse, with user metalayers and vlmetalayers, ndim 0, an empty extent)."""
import hashlib
import json
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

try:
    import numpy as np
except ImportError:  # slices are then compared against a pure-Python model
    np = None

c = b2test.Counter("cli b2nd")
run = b2test.run_b2


def info_json(path):
    r = run(["info", "--json", path])
    try:
        return json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        return None


def np_dtype(dt, itemsize):
    try:
        d = np.dtype(dt)
        if d.itemsize == itemsize:
            return d
    except (TypeError, ValueError):
        pass
    return np.dtype("V%d" % itemsize)


def random_box(rng, shape):
    spec, idx = [], []
    for n in shape:
        kind = rng.randrange(4)
        if kind == 0 or n == 0:
            spec.append(":")
            idx.append(slice(None))
        elif kind == 1:
            i = rng.randrange(n)
            spec.append(str(i))
            idx.append(slice(i, i + 1))
        else:
            a, b = sorted(rng.randrange(-n, n + 1) for _ in range(2))
            spec.append("%d:%d" % (a, b) if kind == 2 else "%d:" % a)
            idx.append(slice(a, b) if kind == 2 else slice(a, None))
    return ",".join(spec), tuple(idx)


def random_selection(rng, shape):
    """A spec with at least one index list, and the lists NumPy's np.ix_ takes."""
    spec, lists = [], []
    for d, n in enumerate(shape):
        kind = rng.randrange(3) if d else 0
        if n == 0:
            spec.append(":")
            lists.append([])
        elif kind == 0:
            idx = [rng.randrange(-n, n) for _ in range(rng.randrange(0, 6))]
            spec.append("[%s]" % ",".join(map(str, idx)))
            lists.append(idx)
        elif kind == 1:
            a, b = sorted(rng.randrange(0, n + 1) for _ in range(2))
            spec.append("%d:%d" % (a, b))
            lists.append(list(range(a, b)))
        else:
            i = rng.randrange(n)
            spec.append(str(i))
            lists.append([i])
    return ",".join(spec), lists


def check_selections(rng, path, arr, count, what):
    for _ in range(count):
        spec, lists = random_selection(rng, arr.shape)
        r = run(["slice", path, spec])
        want = np.ascontiguousarray(arr[np.ix_(*lists)]).tobytes()
        c.ok(r.returncode == 0 and r.stdout == want, "%s: selection %s: exit %d, %d bytes, want %d %r"
             % (what, spec, r.returncode, len(r.stdout), len(want), r.stderr[:200]))


def test_interop(d):
    man = b2test.load_manifest(os.path.join(d, "manifest.json"))
    rng = random.Random(7)
    n = nslices = 0
    for v in man["vectors"]:
        if v["kind"] != "b2nd":
            continue
        n += 1
        path = os.path.join(d, v["path"])
        r = run(["cat", path])
        ok = c.ok(r.returncode == 0, "%s: cat exit %d %r" % (v["id"], r.returncode, r.stderr[:200]))
        if ok:
            diff = b2test.check_expected(r.stdout, v["expected"])
            ok = c.ok(diff is None, "%s: cat: %s" % (v["id"], diff))
        whole = r.stdout
        j = info_json(path)
        if not c.ok(j is not None and "b2nd" in j, "%s: info --json" % v["id"]):
            continue
        a, b = v["array"], j["b2nd"]
        for k in ("ndim", "shape", "chunkshape", "blockshape", "dtype"):
            c.ok(b[k] == a[k], "%s: %s %s, manifest %s" % (v["id"], k, b[k], a[k]))
        c.ok(b["itemsize"] == a["typesize"], "%s: itemsize" % v["id"])
        c.ok(j["nchunks"] == v["frame"]["nchunks"] and j["chunksize"] == v["frame"]["chunksize"],
             "%s: nchunks/chunksize" % v["id"])
        names = [m["name"] for m in j["metalayers"]]
        c.ok(names == [m["name"] for m in v["frame"]["metalayers"]], "%s: metalayers %s" % (v["id"], names))
        bm = j["metalayers"][0]
        c.ok(bm["hex"] == a["b2nd_meta_hex"] and isinstance(bm["content"], list)
             and bm["content"][2] == a["shape"], "%s: b2nd metalayer as JSON %s" % (v["id"], bm["content"]))
        c.ok([m["name"] for m in j["vlmetalayers"]] == [m["name"] for m in v["frame"]["vlmetalayers"]],
             "%s: vlmetalayers" % v["id"])
        t = run(["info", path]).stdout.decode()
        c.ok("b2nd array" in t and "shape" in t and a["dtype"] in t, "%s: info text" % v["id"])
        if not ok or np is None or a["ndim"] == 0 or v["expected"]["sha256"] is None:
            continue
        arr = np.frombuffer(whole, dtype=np_dtype(a["dtype"], a["typesize"])).reshape(a["shape"])
        for _ in range(3):
            spec, idx = random_box(rng, a["shape"])
            r = run(["slice", path, spec])
            want = np.ascontiguousarray(arr[idx]).tobytes()
            nslices += 1
            c.ok(r.returncode == 0 and r.stdout == want, "%s: slice %s: exit %d, %d bytes, want %d"
                 % (v["id"], spec, r.returncode, len(r.stdout), len(want)))
        check_selections(rng, path, arr, 3, v["id"])
        nslices += 3
    print("checked %d reference arrays, %d slices" % (n, nslices))


def test_roundtrips(t):
    rng = random.Random(3)
    shape = (37, 41, 6)
    vals = [((i * 7) % 1000) * 0.25 for i in range(37 * 41 * 6)]
    import struct
    data = struct.pack("<%dd" % len(vals), *vals)
    src = os.path.join(t, "a.raw")
    with open(src, "wb") as f:
        f.write(data)
    common = ["--shape", "37,41,6", "--dtype", "<f8", "--meta", "units=92a16da173",
              "--vlmeta", "note=a568656c6c6f", "--vlmeta", "raw=0102"]
    for name, extra in [("a.b2nd", ["--chunks", "10,20,6", "--blocks", "5,7,3"]), ("auto.b2nd", []),
                        ("sp.b2nd", ["--sparse", "--chunks", "16,16,4"]),
                        ("z.b2nd", ["--codec", "zstd", "--filter", "bitshuffle", "--chunks", "37,41,6"])]:
        out = os.path.join(t, name)
        r = run(["compress", "--force"] + common + extra + [src, out])
        if not c.ok(r.returncode == 0, "compress %s: %r" % (name, r.stderr)):
            continue
        r = run(["cat", out])
        c.ok(r.returncode == 0 and r.stdout == data, "round trip %s" % name)
        j = info_json(out)
        if not c.ok(j is not None, "info %s" % name):
            continue
        b = j["b2nd"]
        c.ok(b["shape"] == [37, 41, 6] and b["dtype"] == "<f8" and b["itemsize"] == 8
             and b["array_bytes"] == len(data), "%s: geometry %s" % (name, b))
        if "--chunks" in extra:
            cs = [int(x) for x in extra[extra.index("--chunks") + 1].split(",")]
            c.ok(b["chunkshape"] == cs, "%s: chunkshape %s" % (name, b["chunkshape"]))
        if "--blocks" in extra:
            c.ok(b["blockshape"] == [5, 7, 3], "%s: blockshape %s" % (name, b["blockshape"]))
        c.ok(j["kind"] == "b2nd" and j["storage"] == ("sparse" if "--sparse" in extra else "contiguous"),
             "%s: kind/storage %s/%s" % (name, j["kind"], j["storage"]))
        m = {x["name"]: x for x in j["metalayers"]}
        c.ok(m.get("units", {}).get("content") == ["m", "s"], "%s: user metalayer" % name)
        c.ok(m.get("b2nd", {}).get("content", [None, None])[1] == 3, "%s: b2nd metalayer ndim" % name)
        vm = {x["name"]: x for x in j["vlmetalayers"]}
        c.ok(vm.get("note", {}).get("content") == "hello" and vm.get("raw", {}).get("hex") == "0102",
             "%s: vlmetalayers %s" % (name, j["vlmetalayers"]))
        if np is not None:
            arr = np.frombuffer(data, dtype="<f8").reshape(shape)
            for _ in range(4):
                spec, idx = random_box(rng, shape)
                r = run(["slice", out, spec])
                c.ok(r.returncode == 0 and r.stdout == np.ascontiguousarray(arr[idx]).tobytes(),
                     "%s: slice %s" % (name, spec))
            check_selections(rng, out, arr, 6, name)
        r = run(["verify", out])
        c.ok(r.returncode == 0, "verify %s" % name)
    # slice to a file, with -o
    outp = os.path.join(t, "s.raw")
    r = run(["slice", os.path.join(t, "a.b2nd"), "1:3,:,0", "-o", outp])
    c.ok(r.returncode == 0 and r.stdout == b"" and os.path.getsize(outp) == 2 * 41 * 8, "slice -o")
    # stdin to stdout, and an array on stdin
    r = run(["compress", "--shape", "37,41,6", "--dtype", "<f8", "-", "-"], data)
    c.ok(r.returncode == 0, "b2nd to stdout")
    r2 = run(["cat", "-"], r.stdout)
    c.ok(r2.returncode == 0 and r2.stdout == data, "b2nd stdin round trip")
    # ndim 0 and an empty extent; dtype from --typesize
    for shape_arg, payload, extra in [("scalar", b"\x01\x02\x03\x04", ["--dtype", "<i4"]),
                                      ("5,0,3", b"", ["--dtype", "<f4"]),
                                      ("3,5", bytes(range(15 * 7 % 256)) [:15] * 7, ["--typesize", "7"])]:
        out = os.path.join(t, "x.b2nd")
        r = run(["compress", "--force", "--shape", shape_arg] + extra + ["-", out], payload)
        if not c.ok(r.returncode == 0, "compress shape %s: %r" % (shape_arg, r.stderr)):
            continue
        r = run(["cat", out])
        c.ok(r.returncode == 0 and r.stdout == payload, "round trip shape %s" % shape_arg)
        j = info_json(out)
        c.ok(j is not None and j["b2nd"]["nitems"] * j["b2nd"]["itemsize"] == len(payload),
             "info shape %s" % shape_arg)
        if "--typesize" in extra:
            c.ok(j["b2nd"]["dtype"] == "|S7", "default dtype |S7: %s" % j["b2nd"]["dtype"])
    # errors: wrong size, missing dtype, bad shapes, bad slices
    a = os.path.join(t, "a.b2nd")
    for args, code, what in [
            (["compress", "--shape", "10,10", "--dtype", "<f8", src, os.path.join(t, "e.b2nd")], 1, "size mismatch"),
            (["compress", "--shape", "10", src, os.path.join(t, "e.b2nd")], 2, "no dtype"),
            (["compress", "--shape", "10,x", "--dtype", "<f8", src, os.path.join(t, "e.b2nd")], 2, "bad shape"),
            (["compress", "--shape", "37,41,6", "--dtype", "<f8", "--chunks", "4,4", src,
              os.path.join(t, "e.b2nd")], 2, "chunks of the wrong rank"),
            (["compress", "--shape", "4", "--dtype", "<q9", src, os.path.join(t, "e.b2nd")], 2, "malformed dtype"),
            (["slice", a, "1:2,3:4,5:6,7:8"], 2, "too many dimensions"),
            (["slice", a, "99"], 2, "index out of range"),
            (["slice", a, "a:b"], 2, "not a number"),
            (["slice", a, "[1,37]"], 2, "list index out of range"),
            (["slice", a, "[1,2"], 2, "unclosed list"),
            (["slice", a, "[1,x]"], 2, "list item not a number"),
            (["slice", a, "[1]5"], 2, "junk after a list")]:
        r = run(args)
        err = r.stderr.decode(errors="replace").strip()
        c.ok(r.returncode == code and len(err.splitlines()) == 1, "%s: exit %d (want %d) %r"
             % (what, r.returncode, code, err))
    c.ok(not os.path.exists(os.path.join(t, "e.b2nd")), "failed compress leaves no output")
    r = run(["slice", a, "5:2"])
    c.ok(r.returncode == 0 and r.stdout == b"", "empty slice")


def test_concat_rechunk(t):
    """b2 concat and b2 rechunk against NumPy's concatenate, grids aligned or not."""
    if np is None:
        print("numpy absent: concat/rechunk part skipped")
        return
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, (37, 41, 6)).astype("<i4")
    y = (rng.standard_normal((20, 41, 6)) * 100).astype("<i4")
    z = rng.integers(0, 9, (37, 13, 6)).astype("<i4")

    def make(name, arr, chunks, blocks):
        raw = os.path.join(t, name + ".raw")
        arr.tofile(raw)
        out = os.path.join(t, name + ".b2nd")
        r = run(["compress", "--force", "--shape", ",".join(map(str, arr.shape)), "--dtype", "<i4", "--chunks", chunks,
                 "--blocks", blocks, "--vlmeta", "note=a568656c6c6f", raw, out])
        c.ok(r.returncode == 0, "compress %s: %r" % (name, r.stderr))
        return out

    def read(path, shape):
        r = run(["cat", path])
        return np.frombuffer(r.stdout, dtype="<i4").reshape(shape) if r.returncode == 0 else None

    xa = make("x", x, "10,16,6", "5,8,3")        # 37 rows: not on a chunk boundary
    xb = make("xb", x[:30], "10,16,6", "5,8,3")  # 30 rows: on one
    ya = make("y", y, "10,16,6", "5,8,3")
    yb = make("yb", y, "7,9,4", "7,3,2")
    za = make("z", z, "10,16,6", "5,8,3")
    for a, b, axis, want, what in [
            (xa, ya, 0, np.concatenate([x, y], 0), "axis 0, a off the chunk grid"),
            (xb, ya, 0, np.concatenate([x[:30], y], 0), "axis 0, grids aligned"),
            (xb, yb, 0, np.concatenate([x[:30], y], 0), "axis 0, other chunk shapes"),
            (xa, za, 1, np.concatenate([x, z], 1), "axis 1"),
            (xa, za, -2, np.concatenate([x, z], 1), "axis -2"),
            (xa, xa, 2, np.concatenate([x, x], 2), "an array with itself, axis 2")]:
        out = os.path.join(t, "cat.b2nd")
        r = run(["concat", a, b, "--axis", str(axis), "-o", out])
        if not c.ok(r.returncode == 0, "concat %s: exit %d %r" % (what, r.returncode, r.stderr)):
            continue
        got = read(out, want.shape)
        c.ok(got is not None and np.array_equal(got, want), "concat %s: values" % what)
        j = info_json(out)
        c.ok(j is not None and j["b2nd"]["chunkshape"] == [10, 16, 6] and
             [m["name"] for m in j["vlmetalayers"]] == ["note"], "concat %s: a's chunks and vlmeta" % what)
        c.ok(run(["verify", out]).returncode == 0, "concat %s: verify" % what)
    for chunks, blocks in [("16,7,6", "4,7,3"), ("37,41,6", None), ("1,1,1", "1,1,1"), ("10,16,6", "5,8,3")]:
        out = os.path.join(t, "re.b2nd")
        r = run(["rechunk", xa, "--chunks", chunks, "-o", out] + (["--blocks", blocks] if blocks else []))
        if not c.ok(r.returncode == 0, "rechunk %s: exit %d %r" % (chunks, r.returncode, r.stderr)):
            continue
        got = read(out, x.shape)
        j = info_json(out)
        c.ok(got is not None and np.array_equal(got, x), "rechunk %s: values" % chunks)
        c.ok(j is not None and j["b2nd"]["chunkshape"] == [int(v) for v in chunks.split(",")] and
             (blocks is None or j["b2nd"]["blockshape"] == [int(v) for v in blocks.split(",")]),
             "rechunk %s: shapes %s" % (chunks, j and j["b2nd"]))
    out = os.path.join(t, "bad.b2nd")
    for args, code, what in [
            (["concat", xa, ya, "--axis", "1", "-o", out], 1, "extents differ off the axis"),
            (["concat", xa, ya, "--axis", "3", "-o", out], 2, "axis out of range"),
            (["concat", xa, ya], 2, "no -o"),
            (["concat", xa, os.path.join(t, "x.raw"), "-o", out], 1, "not an array"),
            (["rechunk", xa, "--chunks", "4,4", "-o", out], 2, "chunks of the wrong rank"),
            (["rechunk", xa, "-o", out], 2, "no --chunks"),
            (["rechunk", xa, "--chunks", "4,0,4", "-o", out], 2, "zero chunk extent")]:
        r = run(args)
        err = r.stderr.decode(errors="replace").strip()
        c.ok(r.returncode == code and len(err.splitlines()) == 1, "%s: exit %d (want %d) %r"
             % (what, r.returncode, code, err))
    c.ok(not os.path.exists(out) and not any(f.startswith("bad.b2nd.tmp") for f in os.listdir(t)),
         "failed commands leave no output or temporary file")


def main():
    d = b2test.interop_dir(required=False)
    with tempfile.TemporaryDirectory() as t:
        test_roundtrips(t)
        test_concat_rechunk(t)
    if d:
        test_interop(d)
    else:
        print("reference vectors absent: interop part skipped")
    c.finish()


if __name__ == "__main__":
    main()

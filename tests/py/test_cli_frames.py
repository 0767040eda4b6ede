# SPDX-License-Identifier: BSD-3-Clause
"""`b2` on contiguous and sparse frames: `cat` of every reference frame against
the manifest, `info --json` against the manifest's frame description (sizes,
chunk specials, metalayers and vlmetalayers byte for byte), `info` text, and
compress -> cat round trips (file, sparse directory, stdout) with metalayers,
plus usage errors and `--help` of every subcommand."""
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

c = b2test.Counter("cli frames")
run = b2test.run_b2
SPECIAL = {"none": "none", "zeros": "zeros", "nans": "nan", "nan": "nan", "value": "value",
           "uninit": "uninit"}


def info_json(path):
    r = run(["info", "--json", path])
    if r.returncode != 0:
        return None, r
    try:
        return json.loads(r.stdout), r
    except ValueError:
        return None, r


def check_metas(vid, got, exp, vl):
    what = "vlmetalayers" if vl else "metalayers"
    c.ok([m["name"] for m in got] == [m["name"] for m in exp],
         "%s: %s names %s, manifest %s" % (vid, what, [m["name"] for m in got], [m["name"] for m in exp]))
    for g, e in zip(got, exp):
        data = bytes.fromhex(g.get("hex", ""))
        c.ok(g.get("size") == e["length"] and hashlib.sha256(data).hexdigest() == e["sha256"],
             "%s: %s %s: size %s / content differ from manifest" % (vid, what, e["name"], g.get("size")))


def test_interop(d):
    man = b2test.load_manifest(os.path.join(d, "manifest.json"))
    n = 0
    for v in man["vectors"]:
        if v["kind"] not in ("cframe", "sframe"):
            continue
        n += 1
        path = os.path.join(d, v["path"])
        r = run(["cat", path])
        c.ok(r.returncode == 0, "%s: cat exit %d: %s" % (v["id"], r.returncode, r.stderr[:200]))
        if r.returncode == 0:
            diff = b2test.check_expected(r.stdout, v["expected"])
            c.ok(diff is None, "%s: cat output: %s" % (v["id"], diff))
        j, r = info_json(path)
        if not c.ok(j is not None, "%s: info --json failed: %s" % (v["id"], r.stderr[:200])):
            continue
        f = v["frame"]
        c.ok(j["kind"] == v["kind"], "%s: kind %s" % (v["id"], j["kind"]))
        for k in ("nchunks", "nbytes", "typesize", "chunksize"):
            c.ok(j[k] == f[k], "%s: %s %s, manifest %s" % (v["id"], k, j[k], f[k]))
        if v["kind"] == "cframe":
            c.ok(j["frame_size"] == v["file"]["length"], "%s: frame_size %s, file %s"
                 % (v["id"], j["frame_size"], v["file"]["length"]))
        c.ok(j["codec_id"] == v["params"]["codec_id"] and j["filters"] == v["params"]["filters"],
             "%s: codec/filters %s %s" % (v["id"], j["codec_id"], j["filters"]))
        c.ok(j["header_size"] >= 97 and j["format_version"] in (2, 3), "%s: header fields" % v["id"])
        sp = [ch["special"] for ch in j["chunks"]]
        esp = [SPECIAL[ch["special"]] for ch in v["expected"]["chunks"]]
        c.ok(sp == esp, "%s: chunk specials %s, manifest %s" % (v["id"], sp, esp))
        nb = [ch["nbytes"] for ch in j["chunks"]]
        c.ok(nb == [ch["nbytes"] for ch in v["expected"]["chunks"]], "%s: chunk nbytes" % v["id"])
        check_metas(v["id"], j["metalayers"], f["metalayers"], False)
        check_metas(v["id"], j["vlmetalayers"], f["vlmetalayers"], True)
        # text form names the kind and the chunk count
        r = run(["info", path])
        t = r.stdout.decode()
        c.ok(r.returncode == 0 and ("sparse frame" if v["kind"] == "sframe" else "contiguous frame") in t
             and ("nchunks          %d" % f["nchunks"]) in t, "%s: info text" % v["id"])
    print("checked %d reference frames (cat, info --json, info)" % n)
    # a frame on standard input, and decompress into a file
    p = os.path.join(d, "frames", "f13_metalayers.b2frame")
    with open(p, "rb") as fh:
        data = fh.read()
    r1, r2 = run(["cat", p]), run(["cat", "-"], data)
    c.ok(r2.returncode == 0 and r1.stdout == r2.stdout, "frame on stdin decodes like the file")
    with tempfile.TemporaryDirectory() as t:
        out = os.path.join(t, "x.raw")
        r = run(["decompress", p, out])
        c.ok(r.returncode == 0 and open(out, "rb").read() == r1.stdout, "decompress frame to file")


def test_roundtrips(t):
    data = b"".join(b"%08d line of text with numbers %d\n" % (i, i * i) for i in range(60000))
    src = os.path.join(t, "in.raw")
    with open(src, "wb") as fh:
        fh.write(data)
    metas = ["--meta", "m1=93010203", "--meta", "empty=", "--vlmeta", "v1=a3616263",
             "--vlmeta", "blob=00ff10"]
    cases = [("frame.b2frame", []), ("sp.b2frame", ["--sparse"]), ("dir", ["--format", "sframe"]),
             ("frame.bin", ["--format", "frame", "--codec", "zstd", "--clevel", "9"])]
    for name, extra in cases:
        out = os.path.join(t, name)
        r = run(["compress", "--chunksize", "100k", "--typesize", "1"] + metas + extra + [src, out])
        if not c.ok(r.returncode == 0, "compress %s: %s" % (name, r.stderr[:300])):
            continue
        r = run(["cat", out])
        c.ok(r.returncode == 0 and r.stdout == data, "round trip %s" % name)
        j, _ = info_json(out)
        if not c.ok(j is not None, "info %s" % name):
            continue
        c.ok(j["nchunks"] == math.ceil(len(data) / 102400) and j["chunksize"] == 102400
             and j["nbytes"] == len(data), "%s: nchunks %s chunksize %s" % (name, j["nchunks"], j["chunksize"]))
        c.ok(j["kind"] == ("sframe" if extra[:1] in (["--sparse"], ["--format"]) and "frame" not in extra
                           else "cframe"), "%s: kind %s" % (name, j["kind"]))
        m = {x["name"]: x for x in j["metalayers"]}
        c.ok(m.get("m1", {}).get("content") == [1, 2, 3] and m["m1"]["hex"] == "93010203",
             "%s: metalayer m1 shown as msgpack JSON: %s" % (name, m.get("m1")))
        c.ok(m.get("empty", {}).get("size") == 0, "%s: empty metalayer" % name)
        vm = {x["name"]: x for x in j["vlmetalayers"]}
        c.ok(vm.get("v1", {}).get("content") == "abc", "%s: vlmeta v1 as JSON string" % name)
        c.ok(vm.get("blob", {}).get("content") is None and vm["blob"]["hex"] == "00ff10",
             "%s: non-msgpack vlmeta as hex: %s" % (name, vm.get("blob")))
        r = run(["verify", out])
        c.ok(r.returncode == 0 and b"ok" in r.stdout, "verify %s" % name)
        r = run(["info", out])
        c.ok(r.returncode == 0 and b"m1" in r.stdout and b"[1, 2, 3]" in r.stdout and b"hex 00ff10" in r.stdout,
             "%s: info text shows metalayers" % name)
    # a frame file is written compact: the same bytes as the in-memory frame on stdout
    r = run(["compress", "--chunksize", "100k", "--typesize", "1"] + metas + ["--format", "frame", src, "-"])
    with open(os.path.join(t, "frame.b2frame"), "rb") as fh:
        c.ok(r.returncode == 0 and r.stdout == fh.read(), "frame file == frame on stdout (no dead space)")
    # stdin -> stdout frame, then back
    r = run(["compress", "--format", "frame", "--chunksize", "64k", "-", "-"], data)
    c.ok(r.returncode == 0 and r.stdout.startswith(b"\x9e\xa8b2frame\x00"), "frame to stdout")
    r = run(["cat", "-"], r.stdout)
    c.ok(r.returncode == 0 and r.stdout == data, "stdout frame round trip")
    # an empty input makes a frame without chunks
    empty = os.path.join(t, "empty")
    open(empty, "wb").close()
    out = os.path.join(t, "empty.b2frame")
    r = run(["compress", "--meta", "k=c0", empty, out])
    j, _ = info_json(out)
    c.ok(r.returncode == 0 and j and j["nchunks"] == 0 and j["metalayers"][0]["content"] is None,
         "empty frame: %s" % (j,))
    r = run(["cat", out])
    c.ok(r.returncode == 0 and r.stdout == b"", "empty frame cats to nothing")
    # frame item slices
    out = os.path.join(t, "frame.b2frame")
    r = run(["slice", out, "1000:250000"])
    c.ok(r.returncode == 0 and r.stdout == data[1000:250000], "frame slice 1000:250000")
    r = run(["slice", out, "-10:"])
    c.ok(r.returncode == 0 and r.stdout == data[-10:], "frame slice -10:")
    # refusing to replace an existing sparse directory leaves it intact
    r = run(["compress", "--sparse", src, os.path.join(t, "dir")])
    c.ok(r.returncode == 1 and b"dir" in r.stderr and len(r.stderr.splitlines()) == 1,
         "sparse output over an existing directory: exit %d %r" % (r.returncode, r.stderr))
    c.ok(run(["cat", os.path.join(t, "dir")]).stdout == data, "existing sparse frame untouched")
    c.ok(not [f for f in os.listdir(t) if ".tmp." in f], "no temporary files left: %s" % os.listdir(t))


def expect_exit(args, code, what, data=None):
    r = run(args, data)
    err = r.stderr.decode(errors="replace").strip()
    c.ok(r.returncode == code and (code == 0 or len(err.splitlines()) == 1),
         "%s: exit %d (want %d), stderr %r" % (what, r.returncode, code, err))


def test_usage(t):
    src = os.path.join(t, "in.raw")
    expect_exit(["compress", "--meta", "x=abc", src, "o.b2frame"], 2, "odd hex")
    expect_exit(["compress", "--meta", "x=zz", src, "o.b2frame"], 2, "non-hex")
    expect_exit(["compress", "--meta", "noequals", src, "o.b2frame"], 2, "meta without =")
    expect_exit(["compress", "--meta", "x" * 40 + "=00", src, "o.b2frame"], 2, "meta name too long")
    expect_exit(["compress", "--meta", "x=00", src, "o.b2chunk"], 2, "meta on a chunk")
    expect_exit(["compress", "--sparse", src, "-"], 2, "sparse to stdout")
    expect_exit(["compress", "--shape", "10", src, "o.b2frame", "--format", "frame"], 2, "shape on a frame")
    expect_exit(["compress", "--format", "tarball", src, "o"], 2, "unknown format")
    expect_exit(["compress", "--chunksize", "0", src, "o.b2frame"], 2, "chunksize 0")
    expect_exit(["compress", os.path.join(t, "missing"), os.path.join(t, "o.b2frame")], 1, "missing input")
    expect_exit(["cat", t], 1, "directory that is not a sparse frame")
    expect_exit(["slice", os.path.join(t, "frame.b2frame")], 2, "slice without spec")
    expect_exit(["slice", os.path.join(t, "frame.b2frame"), "1:2,3:4"], 2, "frame slice with 2 dims")
    expect_exit(["verify"], 2, "verify without file")
    expect_exit(["verify", "--nope", "x"], 2, "verify unknown option")
    trunc = os.path.join(t, "trunc.b2frame")
    with open(os.path.join(t, "frame.b2frame"), "rb") as fh:
        data = fh.read()
    with open(trunc, "wb") as fh:
        fh.write(data[:len(data) // 2])
    for cmd in ("cat", "info", "verify"):
        r = run([cmd, trunc])
        c.ok(r.returncode == 1 and b"trunc.b2frame" in r.stderr, "%s of a truncated frame: exit %d %r"
             % (cmd, r.returncode, r.stderr[:200]))
    for sub in ("cat", "info", "compress", "decompress", "slice", "verify"):
        r = run([sub, "--help"])
        out = r.stdout.decode()
        c.ok(r.returncode == 0 and out.startswith("usage: b2 " + sub) and "Exit status" in out,
             "%s --help" % sub)
    r = run(["--help"])
    c.ok(r.returncode == 0 and all(s.encode() in r.stdout for s in ("slice", "verify", "compress")),
         "b2 --help lists the subcommands")


def main():
    d = b2test.interop_dir(required=False)
    with tempfile.TemporaryDirectory() as t:
        test_roundtrips(t)
        test_usage(t)
    if d:
        test_interop(d)
    else:
        print("reference vectors absent: interop part skipped")
    c.finish()


if __name__ == "__main__":
    main()

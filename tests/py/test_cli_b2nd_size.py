# SPDX-License-Identifier: BSD-3-Clause
"""Compact arrays: for every public b2nd vector c-blosc2 made from a buffer,
`b2 compress` given the same data and parameters writes a file no larger than
the reference's (and reports how many are the same size and byte-identical).
zlib vectors, when libdeflate encodes them (the default build), are only checked
to decode to their content: libdeflate's streams are not zlib's, and on these
small arrays sometimes a little larger (doc/speed.md, "zlib through libdeflate")."""
import hashlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

c = b2test.Counter("b2nd sizes")
run = b2test.run_b2


def compress_args(v):
    a, p = v["array"], v["params"]
    args = ["compress", "--format", "b2nd", "--dtype", a["dtype"],
            "--shape", ",".join(map(str, a["shape"])) if a["ndim"] else "scalar",
            "--codec", p["codec"], "--clevel", str(p["clevel"]), "--typesize", str(p["typesize"]),
            "--filters", ",".join(map(str, p["filters"])),
            "--filters-meta", ",".join(map(str, p["filters_meta"])),
            "--splitmode", p["splitmode"].replace("_", "-")]
    if a["ndim"]:
        args += ["--chunks", ",".join(map(str, a["chunkshape"])),
                 "--blocks", ",".join(map(str, a["blockshape"]))]
    if p.get("blocksize"):
        args += ["--blocksize", str(p["blocksize"])]
    if p.get("use_dict"):
        args += ["--dict"]
    return args


def main():
    idir = b2test.interop_dir()
    man = b2test.load_manifest(os.path.join(idir, "manifest.json"))
    vecs = [v for v in man["vectors"]
            if v["kind"] == "b2nd" and v.get("operations") == ["b2nd_from_cbuffer"]]
    same_size = identical = 0
    zlib_own = b2test.zlib_own_bytes()
    zlib_sizes = []
    with tempfile.TemporaryDirectory(prefix="b2size_") as tmp:
        raw, out = os.path.join(tmp, "in.raw"), os.path.join(tmp, "out.b2nd")
        for v in vecs:
            r = run(["cat", os.path.join(idir, v["path"])])
            if not c.ok(r.returncode == 0, "%s: cat failed" % v["id"]):
                continue
            with open(raw, "wb") as f:
                f.write(r.stdout)
            if os.path.exists(out):
                os.remove(out)
            r = run(compress_args(v) + [raw, out])
            if not c.ok(r.returncode == 0, "%s: compress: %s" % (v["id"], r.stderr.decode(errors="replace"))):
                continue
            with open(out, "rb") as f:
                ours = f.read()
            ref = v["file"]["length"]
            if zlib_own and v["params"]["codec"] == "zlib":
                zlib_sizes.append("%s %d/%d" % (v["id"], len(ours), ref))
            else:
                c.ok(len(ours) <= ref, "%s: %d bytes, c-blosc2 %d" % (v["id"], len(ours), ref))
            same_size += len(ours) == ref
            identical += hashlib.sha256(ours).hexdigest() == v["file"]["sha256"]
            r = run(["cat", out])
            c.ok(r.returncode == 0 and hashlib.sha256(r.stdout).hexdigest() == v["expected"]["sha256"],
                 "%s: our file does not decode to the vector's content" % v["id"])
    c.ok(len(vecs) >= 25, "vectors made from a buffer: %d" % len(vecs))
    print("b2nd vectors made from a buffer: %d; ours the same size: %d, smaller: %d, "
          "byte-identical files: %d" % (len(vecs), same_size, len(vecs) - same_size, identical))
    if zlib_own:
        c.ok(zlib_sizes, "no zlib vector")
        print("zlib vectors encoded by libdeflate, size not judged (ours/c-blosc2's bytes): "
              + ", ".join(zlib_sizes))
    c.finish()


main()

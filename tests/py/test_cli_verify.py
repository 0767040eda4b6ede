# SPDX-License-Identifier: BSD-3-Clause
"""`b2 verify`: every reference chunk/frame/array/HDF5 file verifies clean
(exit 0); damaged copies (a chunk header overwritten in a frame, a chunk file of
a sparse frame truncated or deleted, a stored HDF5 chunk overwritten) exit 1
and name each bad chunk by index; a truncated frame is reported as unreadable.
Also checks `info --json` of the HDF5 files against the manifest's filters and
chunk records."""
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

c = b2test.Counter("cli verify")
run = b2test.run_b2


def make_frame(t, name, extra=()):
    data = b"".join(struct.pack("<I", (i * 2654435761) % 1000) for i in range(200000))
    src = os.path.join(t, "src.raw")
    with open(src, "wb") as f:
        f.write(data)
    out = os.path.join(t, name)
    r = run(["compress", "--codec", "lz4", "--typesize", "4", "--chunksize", "100k"] + list(extra) + [src, out])
    c.ok(r.returncode == 0, "compress %s: %r" % (name, r.stderr))
    return out, data


def bad_lines(r):
    return [l for l in r.stderr.decode(errors="replace").splitlines() if l.strip()]


def test_damaged_frame(t):
    path, data = make_frame(t, "f.b2frame")
    r = run(["verify", path])
    c.ok(r.returncode == 0 and b"ok" in r.stdout and r.stderr == b"", "clean frame verifies")
    j = json.loads(run(["info", "--json", path]).stdout)
    blob = bytearray(open(path, "rb").read())
    # chunks are stored in order after the header: find chunks 2 and 5 by their cbytes
    off, starts = j["header_size"], []
    for ch in j["chunks"]:
        starts.append(off)
        off += ch["cbytes"]
    for k in (2, 5):
        s = starts[k]
        blob[s + 12:s + 16] = struct.pack("<i", 0x7fffff00)  # cbytes far beyond the frame
        blob[s + 40:s + 80] = b"\xa5" * 40                   # and garbage in the data
    bad = os.path.join(t, "bad.b2frame")
    with open(bad, "wb") as f:
        f.write(blob)
    r = run(["verify", bad])
    lines = bad_lines(r)
    c.ok(r.returncode == 1, "damaged frame: exit %d" % r.returncode)
    c.ok(any("chunk 2:" in l for l in lines) and any("chunk 5:" in l for l in lines)
         and all("bad.b2frame" in l for l in lines), "damaged frame names chunks 2 and 5: %s" % lines)
    c.ok(b"BAD" in r.stdout, "summary says BAD: %r" % r.stdout)
    # libb2's detail reaches stderr: the offending cbytes value and what it overruns
    c.ok(all("2147483392" in l and "bytes left in the frame" in l for l in lines),
         "damaged frame lines carry the bad cbytes: %s" % lines)
    r = run(["verify", "-q", path, bad, path])
    c.ok(r.returncode == 1 and r.stdout == b"", "good+bad files with -q: exit %d" % r.returncode)
    r = run(["cat", bad])
    c.ok(r.returncode == 1 and len(bad_lines(r)) == 1 and b"chunk 2" in r.stderr, "cat stops at chunk 2")
    # truncated: the frame cannot even be opened
    tr = os.path.join(t, "trunc.b2frame")
    with open(tr, "wb") as f:
        f.write(blob[:len(blob) // 3])
    r = run(["verify", tr])
    c.ok(r.returncode == 1 and len(bad_lines(r)) == 1 and b"trunc.b2frame" in r.stderr,
         "truncated frame: %r" % r.stderr)
    c.ok(b"truncated: %d of the frame's %d bytes" % (len(blob) // 3, len(blob)) in r.stderr,
         "truncated frame names its sizes: %r" % r.stderr)
    # a single chunk, good and damaged
    ch = os.path.join(t, "c.b2chunk")
    run(["compress", "--codec", "zstd", os.path.join(t, "src.raw"), ch])
    c.ok(run(["verify", ch]).returncode == 0, "chunk verifies")
    cb = bytearray(open(ch, "rb").read())
    cb[len(cb) // 2:len(cb) // 2 + 64] = b"\x00" * 64
    with open(ch, "wb") as f:
        f.write(cb)
    r = run(["verify", ch])
    c.ok(r.returncode == 1 and b"chunk 0" in r.stderr, "damaged chunk: exit %d %r" % (r.returncode, r.stderr))
    c.ok(b"corrupted compressed data: block " in r.stderr and b"zstd: " in r.stderr,
         "damaged chunk names the block and zstd's message: %r" % r.stderr)


def test_damaged_sframe(t):
    path, data = make_frame(t, "s.b2frame", ["--sparse"])
    c.ok(run(["verify", path]).returncode == 0, "clean sparse frame verifies")
    f3 = os.path.join(path, "00000003.chunk")
    blob = open(f3, "rb").read()
    with open(f3, "wb") as f:
        f.write(blob[:len(blob) // 2])
    os.unlink(os.path.join(path, "00000006.chunk"))
    r = run(["verify", path])
    lines = bad_lines(r)
    c.ok(r.returncode == 1 and any("chunk 3:" in l for l in lines) and any("chunk 6:" in l for l in lines),
         "sparse frame: truncated chunk 3 and missing chunk 6 reported: %s" % lines)


def test_checksums(t):
    """--checksums on frames, sparse frames and arrays: they verify, and a byte
    changed inside a chunk's stored data is reported as a checksum mismatch
    naming the chunk (test_h5plugin_checksums finds flips that decode)."""
    for extra, name in (([], "k.b2frame"), (["--sparse"], "ks.b2frame")):
        path, data = make_frame(t, name, ["--checksums"] + extra)
        r = run(["verify", path])
        c.ok(r.returncode == 0 and b"checksums match" in r.stdout, "%s verifies: %r" % (name, r.stdout))
    path = os.path.join(t, "k.b2frame")
    j = json.loads(run(["info", "--json", path]).stdout)
    off = j["header_size"] + sum(ch["cbytes"] for ch in j["chunks"][:3])
    end = off + j["chunks"][3]["cbytes"]
    blob = bytearray(open(path, "rb").read())
    blob[end - 2] ^= 0x01
    bad = os.path.join(t, "kbad.b2frame")
    with open(bad, "wb") as f:
        f.write(blob)
    r = run(["verify", bad])
    lines = bad_lines(r)
    c.ok(r.returncode == 1 and len(lines) == 1 and "chunk 3:" in lines[0] and "checksum mismatch" in lines[0],
         "checksum names chunk 3: %s" % lines)
    r = run(["cat", bad])
    c.ok(r.returncode == 1 and b"chunk 3" in r.stderr and b"checksum mismatch" in r.stderr,
         "cat reads with verification and stops at chunk 3: %r" % r.stderr)
    # an array: each of its chunks is covered too
    arr = os.path.join(t, "k.b2nd")
    r = run(["compress", "--checksums", "--shape", "200000", "--dtype", "<i4", "--chunks", "40000",
             os.path.join(t, "src.raw"), arr])
    r = run(["verify", arr])
    c.ok(r.returncode == 0 and b"5 chunks" in r.stdout and b"checksums match" in r.stdout,
         "b2nd array verifies: %r" % r.stdout)


def test_interop(d, t):
    man = b2test.load_manifest(os.path.join(d, "manifest.json"))
    paths = {"chunk": [], "cframe": [], "sframe": [], "b2nd": [], "hdf5": []}
    for v in man["vectors"]:
        paths[v["kind"]].append(os.path.join(d, v["path"]))
    for kind, ps in paths.items():
        if kind == "chunk":
            ps = ps[::10]  # a sample: the chunk decoders have their own tests
        r = run(["verify"] + ps, timeout=300)
        n_ok = r.stdout.count(b": ok (")
        c.ok(r.returncode == 0 and n_ok == len(ps), "verify %d %s vectors: exit %d, %d ok, %r"
             % (len(ps), kind, r.returncode, n_ok, r.stderr[:300]))
    # HDF5: info --json against the manifest
    nds = nrec = 0
    for v in man["vectors"]:
        if v["kind"] != "hdf5":
            continue
        r = run(["info", "--json", os.path.join(d, v["path"])])
        if not c.ok(r.returncode == 0, "%s: info exit %d %r" % (v["id"], r.returncode, r.stderr[:200])):
            continue
        j = json.loads(r.stdout)
        got = {x["name"]: x for x in j["datasets"]}
        for ds in v["datasets"]:
            nds += 1
            g = got.get(ds["name"])
            if not c.ok(g is not None, "%s: dataset %s listed" % (v["id"], ds["name"])):
                continue
            flt = [f for f in ds["filters"] if f["id"] == 32026][0]
            cd = flt["cd_values"]
            p = g["blosc2_params"]
            keys = ["revision", "blocksize", "typesize", "chunk_bytes", "clevel", "filter", "codec", "rank"]
            mine = [p[k] for k in keys if k in p] + p.get("chunkshape", [])
            c.ok(mine == cd, "%s %s: cd_values %s, manifest %s" % (v["id"], ds["name"], mine, cd))
            c.ok(g["shape"] == ds["shape"] and g["nchunks"] == len(ds["chunk_records"]),
                 "%s %s: shape/nchunks" % (v["id"], ds["name"]))
            recs = {tuple(x["offset"]): x for x in ds["chunk_records"]}
            for ch in g["chunks"]:
                nrec += 1
                e = recs.get(tuple(ch["offset"]))
                ok = e is not None and ch["stored_bytes"] == e["stored_length"] \
                    and ch["blosc2_applied"] == e["blosc2_applied"] and ch["filter_mask"] == e["filter_mask"]
                if ok and e["blosc2_applied"]:
                    ok = ch.get("payload") == e["payload"] and "error" not in ch
                c.ok(ok, "%s %s chunk %s: %s vs %s" % (v["id"], ds["name"], ch["offset"], ch, e))
        t_out = run(["info", os.path.join(d, v["path"])]).stdout.decode()
        c.ok("HDF5 file" in t_out and "blosc2 params" in t_out, "%s: info text" % v["id"])
    print("HDF5: %d datasets, %d chunk records compared" % (nds, nrec))
    # one dataset by path; a missing one; a damaged stored chunk
    h1 = os.path.join(d, "hdf5", "h1_rank2_3.h5")
    r = run(["info", "--json", h1 + ":/r3_i4"])
    c.ok(r.returncode == 0 and [x["name"] for x in json.loads(r.stdout)["datasets"]] == ["/r3_i4"],
         "info FILE.h5:/dataset")
    r = run(["info", h1 + ":/nope"])
    c.ok(r.returncode == 1 and b"nope" in r.stderr, "missing dataset: exit %d" % r.returncode)
    j = json.loads(run(["info", "--json", h1 + ":/r2_f4"]).stdout)
    victim = j["datasets"][0]["chunks"][4]
    bad = os.path.join(t, "bad.h5")
    shutil.copy(h1, bad)
    with open(bad, "r+b") as f:
        f.seek(victim["address"])
        f.write(b"\x00" * 16)  # wipes the frame magic
    r = run(["verify", bad])
    lines = bad_lines(r)
    c.ok(r.returncode == 1 and len(lines) == 1 and "/r2_f4 chunk 4" in lines[0],
         "damaged HDF5 chunk reported: exit %d %s" % (r.returncode, lines))


def main():
    d = b2test.interop_dir(required=False)
    with tempfile.TemporaryDirectory() as t:
        test_damaged_frame(t)
        test_damaged_sframe(t)
        test_checksums(t)
        if d:
            test_interop(d, t)
        else:
            print("reference vectors absent: interop part skipped")
    c.finish()


if __name__ == "__main__":
    main()

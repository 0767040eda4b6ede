# SPDX-License-Identifier: BSD-3-Clause
"""`b2` and plugin / user codec and filter ids: `compress --codec NAME|ID` (plugin
names with '-' or '_', numeric ids, unregistered user ids refused naming the
id), `--codec-meta` (header byte 23, signed values), numeric ids in `--filter`
and `--filters` with signed `--filters-meta`, `--filter ndcell/ndmean` needing
their cell side, and `b2 info` (text and JSON) naming codec ids 32..37, filter
ids 32..36 and user ids 160..255 in chunks and frames whose header bytes were
patched (info reads headers only); decoding such a chunk names the missing id."""
import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

c = b2test.Counter("cli plugins")
run = b2test.run_b2


def expect_exit(args, code, what, msg_has=None):
    r = run(args)
    err = r.stderr.decode(errors="replace").strip()
    ok = r.returncode == code and (msg_has is None or msg_has in err)
    c.ok(ok, "%s: b2 %s -> exit %d (want %d), stderr %r" % (what, " ".join(map(str, args)),
                                                         r.returncode, code, err))
    return r


def info_json(path):
    r = run(["info", "--json", path])
    c.ok(r.returncode == 0, "info --json %s: %s" % (path, r.stderr.decode(errors="replace")))
    return json.loads(r.stdout) if r.returncode == 0 else {}


def info_text(path):
    r = run(["info", path])
    c.ok(r.returncode == 0, "info %s: %s" % (path, r.stderr.decode(errors="replace")))
    return r.stdout.decode()


def roundtrip(tmp, src, data, args, what):
    """Compress src with args into a chunk, check `cat` gives data back; returns the chunk path."""
    out = os.path.join(tmp, "rt.b2chunk")
    r = run(["compress", "--force"] + args + [src, out])
    if not c.ok(r.returncode == 0, "%s: compress %s: %s" % (what, args, r.stderr.decode())):
        return None
    r = run(["cat", out])
    c.ok(r.returncode == 0 and r.stdout == data, "%s: cat gives the input back" % what)
    return out


def test_codec_options(tmp, src, data):
    p = roundtrip(tmp, src, data, ["--codec", "zstd", "--codec-meta", "7"], "--codec-meta 7")
    if p:
        j = info_json(p)
        c.ok(j.get("codec") == "zstd" and j.get("compcode_meta") == 7,
             "--codec-meta 7 stored in byte 23: %s/%s" % (j.get("codec"), j.get("compcode_meta")))
    p = roundtrip(tmp, src, data, ["--codec", "5", "--codec-meta", "-3"], "--codec 5")
    if p:
        j = info_json(p)
        c.ok(j.get("codec_id") == 5 and j.get("compcode_meta") == 253,
             "numeric codec 5 and signed meta -3 -> 253: %s/%s" % (j.get("codec_id"),
                                                                 j.get("compcode_meta")))
    for bad in ("300", "-129", "x", ""):
        expect_exit(["compress", "--codec-meta", bad, src, os.path.join(tmp, "o")], 2,
                    "--codec-meta %r" % bad, "--codec-meta")
    for bad in ("bogus", "256", "-1", "zfp"):
        expect_exit(["compress", "--codec", bad, src, os.path.join(tmp, "o")], 2,
                    "--codec %r" % bad, "unknown codec")
    expect_exit(["compress", "--codec", "3", src, os.path.join(tmp, "o")], 2, "codec id 3",
                "codec 3")
    expect_exit(["compress", "--codec", "200", src, os.path.join(tmp, "o")], 2,
                "unregistered user codec", "codec id 200 is not registered")
    # plugin names, both spellings: accepted by the parser (the codec itself may
    # refuse at run time: a lone chunk has no block shape)
    for name in ("ndlz", "zfp-acc", "zfp_acc", "zfp-prec", "zfp_prec", "zfp-rate", "zfp_rate",
                 "32", "35"):
        r = run(["compress", "--force", "--codec", name, "--codec-meta", "4", src, os.path.join(tmp, "o")])
        err = r.stderr.decode(errors="replace")
        c.ok(r.returncode in (0, 1) and "unknown codec" not in err and "usage" not in err,
             "--codec %s parsed (exit %d: %s)" % (name, r.returncode, err.strip()))


def test_filter_options(tmp, src, data):
    p = roundtrip(tmp, src, data, ["--typesize", "4", "--filters", "0,0,0,0,3,1"],
                  "--filters by id")
    if p:
        j = info_json(p)
        c.ok(j.get("filters") == [0, 0, 0, 0, 3, 1] and
             j.get("filters_names", [None] * 6)[4:] == ["delta", "shuffle"],
             "numeric --filters: %s %s" % (j.get("filters"), j.get("filters_names")))
    p = roundtrip(tmp, src, data, ["--typesize", "4", "--filters", "0,0,0,0,1,35",
                                   "--filters-meta", "0,0,0,0,0,-4"], "bytedelta by id, meta -4")
    if p:
        j = info_json(p)
        c.ok(j.get("filters") == [0, 0, 0, 0, 1, 35] and j.get("filters_meta", [0] * 6)[5] == 252,
             "--filters 35 with meta -4 stored as 252: %s" % j.get("filters_meta"))
    p = roundtrip(tmp, src, data, ["--typesize", "4", "--filter", "1", "--filter", "35:4"],
                  "--filter ID:META")
    if p:
        j = info_json(p)
        c.ok(j.get("filters", [])[4:] == [1, 35] and j.get("filters_meta", [0] * 6)[5] == 4,
             "--filter 1 --filter 35:4: %s %s" % (j.get("filters"), j.get("filters_meta")))
    o = os.path.join(tmp, "o")
    expect_exit(["compress", "--filters", "0,0,0,0,0,200", src, o], 2,
                "unregistered user filter", "filter id 200 in slot 5 is not registered")
    expect_exit(["compress", "--filter", "201:3", src, o], 2, "unregistered user filter (--filter)",
                "filter id 201 in slot 5")
    expect_exit(["compress", "--filters", "0,0,0,0,0,256", src, o], 2, "filter id 256",
                "unknown filter")
    expect_exit(["compress", "--filters-meta", "0,0,0,0,0,256", "--filters", "0,0,0,0,0,1", src,
                 o], 2, "filter meta 256")
    arr = os.path.join(tmp, "a.b2nd")
    for f in ("ndcell", "ndmean"):
        expect_exit(["compress", "--filter", f, src, o], 2, "%s without a cell side" % f,
                    "needs a cell side")
        # with one, into an array (the filter works on its block shape): parsed; a
        # build without the filter refuses it by name
        r = run(["compress", "--force", "--shape", "200,300", "--blocks", "20,30", "--dtype", "<f4",
                 "--filter", f + ":4", src, arr])
        err = r.stderr.decode(errors="replace")
        c.ok(r.returncode == 0 or ("unknown filter" not in err and "(%s)" % f in err),
             "--filter %s:4 parsed (exit %d: %s)" % (f, r.returncode, err.strip()))


def patch_chunk(chunk, codec=None, filters=None):
    """A copy of an extended-header chunk with byte 22 (and codec format 6 in the
    flags) and/or the six filter bytes replaced."""
    b = bytearray(chunk)
    if codec is not None:
        b[22] = codec
        b[2] = (b[2] & 0x1F) | (6 << 5)
    if filters is not None:
        b[16:22] = bytes(filters)
    return bytes(b)


def test_info_names(tmp, chunk):
    codecs = {32: "ndlz", 33: "zfp_acc", 34: "zfp_prec", 35: "zfp_rate", 36: "openhtj2k",
              37: "grok", 160: "user codec 160", 200: "user codec 200", 255: "user codec 255"}
    for cid, name in codecs.items():
        p = os.path.join(tmp, "c%d.b2chunk" % cid)
        with open(p, "wb") as f:
            f.write(patch_chunk(chunk, codec=cid))
        text = info_text(p)
        c.ok("%s (id %d, format 6)" % (name, cid) in text, "info names codec %d: %r" % (
            cid, [ln for ln in text.splitlines() if "codec" in ln]))
        j = info_json(p)
        c.ok(j.get("codec") == name and j.get("codec_id") == cid and j.get("codec_format") == 6,
             "info --json names codec %d: %s" % (cid, j.get("codec")))
    filters = [32, 33, 34, 35, 36, 170]
    names = ["ndcell", "ndmean", "bytedelta_buggy", "bytedelta", "int_trunc", "user filter 170"]
    p = os.path.join(tmp, "filters.b2chunk")
    with open(p, "wb") as f:
        f.write(patch_chunk(chunk, filters=filters))
    text = info_text(p)
    line = [ln for ln in text.splitlines() if ln.strip().startswith("filters")]
    for i, n in enumerate(names):
        c.ok(line and (" %d:%s(" % (i, n)) in line[0], "info names filter %d: %s" % (filters[i], line))
    j = info_json(p)
    c.ok(j.get("filters_names") == names, "info --json filters_names: %s" % j.get("filters_names"))

    # decoding what info only describes: the missing user ids are named
    p = os.path.join(tmp, "c200.b2chunk")
    expect_exit(["cat", p], 1, "cat, user codec 200", "codec id 200 is not registered")
    p = os.path.join(tmp, "f.b2chunk")
    with open(p, "wb") as f:
        f.write(patch_chunk(chunk, filters=[0, 0, 0, 0, 0, 222]))
    expect_exit(["cat", p], 1, "cat, user filter 222", "filter id 222 in slot 5 is not registered")


def test_info_frame(tmp, src):
    fr = os.path.join(tmp, "x.b2frame")
    r = run(["compress", "--codec", "lz4", "--chunksize", "64k", src, fr])
    if not c.ok(r.returncode == 0, "frame written: %s" % r.stderr.decode()):
        return
    with open(fr, "rb") as f:
        b = bytearray(f.read())
    # defaults for new chunks: codec_flags low bits 6 + udcodec, filters at 71..76
    b[27] = (b[27] & 0xF0) | 6
    b[77] = 201
    b[71:77] = bytes([0, 0, 0, 32, 170, 1])
    p = os.path.join(tmp, "user.b2frame")
    with open(p, "wb") as f:
        f.write(bytes(b))
    text = info_text(p)
    c.ok("user codec 201 (id 201)" in text, "frame info names user codec 201: %r" % [
        ln for ln in text.splitlines() if "codec" in ln])
    c.ok("3:ndcell(" in text and "4:user filter 170(" in text and "5:shuffle(" in text,
         "frame info names filters: %r" % [ln for ln in text.splitlines() if "filters" in ln])
    j = info_json(p)
    c.ok(j.get("codec") == "user codec 201" and j.get("codec_id") == 201,
         "frame info --json: %s/%s" % (j.get("codec"), j.get("codec_id")))
    b[77] = 33
    with open(p, "wb") as f:
        f.write(bytes(b))
    j = info_json(p)
    c.ok(j.get("codec") == "zfp_acc" and j.get("codec_id") == 33, "frame codec 33: %s" % j.get("codec"))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.bin")
        data = b"".join(struct.pack("<i", i // 7) for i in range(60000))
        with open(src, "wb") as f:
            f.write(data)
        test_codec_options(tmp, src, data)
        test_filter_options(tmp, src, data)
        ch = os.path.join(tmp, "base.b2chunk")
        r = run(["compress", "--codec", "zstd", "--typesize", "4", src, ch])
        if c.ok(r.returncode == 0, "base chunk: %s" % r.stderr.decode()):
            with open(ch, "rb") as f:
                chunk = f.read()
            test_info_names(tmp, chunk)
        test_info_frame(tmp, src)
    c.finish()


if __name__ == "__main__":
    main()

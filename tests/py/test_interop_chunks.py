# SPDX-License-Identifier: BSD-3-Clause
"""Decode every reference chunk (manifest.json and compat/manifest.json, VL-block
chunks included) with `b2 cat` using 1 and 2 threads, check length and sha256,
and compare `b2 info --json` with the header fields the manifest records."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

# The manifest spells the NaN special kind "nans"; libb2 calls it "nan".
SPECIAL_NAMES = {"nans": "nan"}


def check_vector(c, base, v, header):
    path = os.path.join(base, v["path"])
    vid = v["id"]
    for nt in (1, 2):
        r = b2test.run_b2(["cat", "--threads", nt, path])
        if not c.ok(r.returncode == 0, "%s: b2 cat --threads %d exited %d: %s"
                    % (vid, nt, r.returncode, r.stderr.decode(errors="replace").strip())):
            continue
        err = b2test.check_expected(r.stdout, v["expected"])
        c.ok(err is None, "%s: b2 cat --threads %d: %s" % (vid, nt, err))
    r = b2test.run_b2(["info", "--json", path])
    if not c.ok(r.returncode == 0, "%s: b2 info --json exited %d: %s"
                % (vid, r.returncode, r.stderr.decode(errors="replace").strip())):
        return
    try:
        info = json.loads(r.stdout)
    except ValueError as e:
        c.ok(False, "%s: b2 info --json is not JSON (%s)" % (vid, e))
        return
    if header is None:
        # compat vectors carry no decoded header; the file length is cbytes.
        c.ok(info.get("cbytes") == v["file"]["length"] and info.get("nbytes") == v["expected"]["length"],
             "%s: info cbytes/nbytes %s/%s vs file %d / expected %d" % (
                 vid, info.get("cbytes"), info.get("nbytes"), v["file"]["length"], v["expected"]["length"]))
        return
    bad = []
    for k in ("typesize", "nbytes", "cbytes", "blocksize", "version", "flags"):
        if info.get(k) != header[k]:
            bad.append("%s %r != %r" % (k, info.get(k), header[k]))
    if info.get("special") != SPECIAL_NAMES.get(header["special"], header["special"]):
        bad.append("special %r != %r" % (info.get("special"), header["special"]))
    if info.get("vlblocks") != header["vlblocks"]:
        bad.append("vlblocks %r != %r" % (info.get("vlblocks"), header["vlblocks"]))
    if info.get("header_len") != (32 if header["extended_header"] else 16):
        bad.append("header_len %r" % info.get("header_len"))
    if header["extended_header"]:
        for k in ("filters", "filters_meta", "blosc2_flags", "blosc2_flags2"):
            if info.get(k) != header[k]:
                bad.append("%s %r != %r" % (k, info.get(k), header[k]))
        if info.get("codec_id") != header["udcompcode"]:
            bad.append("codec_id %r != %r" % (info.get("codec_id"), header["udcompcode"]))
    c.ok(not bad, "%s: b2 info --json: %s" % (vid, "; ".join(bad)))


def main():
    d = b2test.interop_dir()
    c = b2test.Counter("interop chunks")
    nvec = 0
    man = b2test.load_manifest(os.path.join(d, "manifest.json"))
    for v in man["vectors"]:
        if v["kind"] == "chunk":
            check_vector(c, d, v, v["header"])
            nvec += 1
    compat = os.path.join(d, "compat")
    if os.path.isfile(os.path.join(compat, "manifest.json")):
        for v in b2test.load_manifest(os.path.join(compat, "manifest.json"))["vectors"]:
            if v["kind"] == "chunk":
                check_vector(c, compat, v, v.get("header"))
                nvec += 1
    print("checked %d chunk vectors (b2 cat with 1 and 2 threads, b2 info --json)" % nvec)
    c.finish()


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""`b2bench --frame`: the frame and b2nd timings whose lines pair with the
reference's ref_bench_frame. On a small run (4 appends, one rep) every expected
line must be present once with positive, ordered numbers (min <= median <= max),
MB/s where bytes are moved, the b2nd compression ratios of the reference's data;
the temporary files must be gone afterwards; the table form prints the same
labels; the mmap-against-pread lines (ours only: random chunk reads of the file
frame, the file-backed slices) come in pairs with positive times, the mmap one
with a positive mmap/pread ratio, and the table ends with the level note; bad command lines exit 2 and an unusable --dir exits 1. Does not need
the reference program."""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

c = b2test.Counter("bench --frame")
run = b2test.run_bench
N = 4  # 1 MiB appends

FRAME_LINES = [
    ("compress %d chunks, no container (ctx)" % N, True),
    ("append_buffer x%d -> in-memory cframe" % N, True),
    ("append_buffer x%d -> in-memory sparse" % N, True),
    ("append_buffer x%d -> file cframe (+close)" % N, True),
    ("append_buffer x%d -> file cframe (+close+fsync)" % N, True),
    ("append_buffer x%d -> sframe dir (+close)" % N, True),
    ("append_chunk(precomp) x%d -> in-memory cframe" % N, True),
    ("append_chunk(precomp) x%d -> file cframe(+close)" % N, True),
    ("append_buffer x%d -> file cframe (+close, sync on)" % N, True),
    ("open file cframe + free", False),
    ("open file cframe + read 1 random chunk + free", True),
    ("read 1 random chunk, file cframe already open", True),
    ("read 64 random chunks, file cframe, pread", True),
    ("read 64 random chunks, file cframe, mmap", True),
    ("schunk_from_buffer(copy=false) of cframe + free", False),
    ("read 1 random chunk, in-memory cframe", True),
    ("memcpy 1 MiB (reference)", True),
]
# blockshape name, padded chunk side, cratio of the reference (c-blosc2 3.3) on this data
SHAPES = [("default", 512, 1.30), ("100x100", 500, 1.26), ("50x50", 500, 1.25),
          ("500x500(1 block/chunk)", 500, 1.27)]
WHERE = ["in-memory cframe", "file-backed cframe (page cache warm)"]
SLICES = ["[1200:1210,1200:1210] (1 chunk)", "[995:1005,995:1005] (4 chunks)"]


def nd_lines():
    out = []
    for shape, pad, _ in SHAPES:
        for w in WHERE:
            s = "blockshape %s, %s: " % (shape, w)
            out += [(s + "from_cbuffer", True),
                    (s + "get_slice 10x10 [1200:1210,1200:1210] (1 chunk)", False),
                    (s + "get_slice 10x10 [995:1005,995:1005] (4 chunks)", False),
                    (s + "decompress whole chunk (%dx%d padded, %.2f MB)" % (pad, pad, pad * pad * 8 / 1e6),
                     True),
                    (s + "b2nd_to_cbuffer whole array (32 MB)", True)]
            out += [(s + "orthogonal selection 100x100 scattered indices", True)]
            if w == WHERE[1]:
                out += [(s + "get_slice 10x10 %s, %s" % (sl, how), False)
                        for sl in SLICES for how in ("pread", "mmap")]
    s = "b2nd operations, file-backed, blockshape default: "
    out += [(s + "copy the two files (read + write + fsync)", True),
            (s + "concatenate the two, axis 0, into a new file", True),
            (s + "rechunk to 250x1000 into a new file", True)]
    return out


def table_pread_mmap(text, pairs):
    """The table's pread and mmap lines: pairs of each, positive medians, the
    mmap ones with their ratio, and the closing note counting the pairs."""
    med = re.compile(r"^(?P<label>.+?), (?P<how>pread|mmap) +median +(?P<ms>[0-9.]+) ms"
                     r".*?(?:mmap/pread (?P<ratio>[0-9.]+))?  \[ext load", re.M)
    got = [m.groupdict() for m in med.finditer(text)]
    for how in ("pread", "mmap"):
        rows = [g for g in got if g["how"] == how]
        c.ok(len(rows) == pairs and all(float(g["ms"]) > 0 for g in rows),
             "table: %d %s lines with positive medians: %s" % (pairs, how, rows))
        c.ok(all((g["ratio"] is not None and float(g["ratio"]) > 0) == (how == "mmap")
                 for g in rows), "table: the mmap lines give mmap/pread: %s" % rows)
    note = re.search(r"^mmap against pread: (level|not level) \((\d+) of (\d+) median mmap/pread "
                     r"ratios within 1 \+- 0\.10; range [0-9.]+\.\.[0-9.]+\)$", text, re.M)
    c.ok(note is not None and int(note.group(3)) == pairs
         and (note.group(1) == "level") == (note.group(2) == note.group(3)),
         "table: the level note: %r" % text[-600:])


def main():
    r = run(["--help"])
    c.ok(r.returncode == 0 and b"--frame" in r.stdout and b"--chunks" in r.stdout,
         "b2bench --help describes --frame")

    with tempfile.TemporaryDirectory() as d:
        r = run(["--frame", "--reps", "1", "--json", "--chunks", str(N), "--dir", d],
                timeout=600)
        c.ok(r.returncode == 0, "bench --frame --json exit %d: %r" % (r.returncode, r.stderr[-2000:]))
        c.ok(os.listdir(d) == [], "temporary files removed: %s" % os.listdir(d))
    rows = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
    by = {}
    for o in rows:
        c.ok(o["name"] not in by, "name printed once: %s" % o["name"])
        by[o["name"]] = o
    expected = FRAME_LINES + nd_lines()
    for name, has_mbps in expected:
        o = by.get(name)
        if not c.ok(o is not None, "line present: %s" % name):
            continue
        c.ok(0 < o["min_ms"] <= o["median_ms"] <= o["max_ms"], "0 < min <= median <= max: %s" % o)
        c.ok(o["n"] in (1, 5) and o["ext_load"] >= 0, "n and ext_load: %s" % o)
        if has_mbps:
            c.ok(o.get("mbps", 0) > 0, "MB/s given: %s" % o)
        else:
            c.ok("mbps" not in o, "no MB/s: %s" % o)
    c.ok(len(rows) == len(expected), "%d lines (got %d): extra %s" % (
        len(expected), len(rows), sorted(set(by) - {n for n, _ in expected})))
    # appends: n = reps; short operations: 5 x reps samples
    c.ok(by.get("append_buffer x%d -> in-memory cframe" % N, {}).get("n") == 1, "appends: n = reps")
    c.ok(by.get("open file cframe + free", {}).get("n") == 5, "short operations: n = 5 x reps")
    mmap_rows = [n for n, _ in expected if n.endswith(", mmap")]
    c.ok(len(mmap_rows) == 1 + 2 * len(SHAPES), "mmap lines: %s" % mmap_rows)
    for n, _ in expected:
        o = by.get(n, {})
        if n.endswith(", mmap"):
            c.ok(o.get("mmap_pread_ratio", 0) > 0 and o.get("n") == 5, "mmap/pread ratio: %s" % o)
        else:
            c.ok("mmap_pread_ratio" not in o, "no mmap/pread ratio: %s" % o)
    # the b2nd operations: exact block counts, chunks copied, memory measured
    for shape, _, _ in SHAPES:
        for w in WHERE:
            o = by.get("blockshape %s, %s: orthogonal selection 100x100 scattered indices" % (shape, w), {})
            c.ok(re.match(r"\d+ blocks decoded: exactly those the indices touch$", o.get("note", "")),
                 "orthogonal selection note: %s" % o)
    s = "b2nd operations, file-backed, blockshape default: "
    o = by.get(s + "concatenate the two, axis 0, into a new file", {})
    c.ok(o.get("note") == "32 chunks, 0 blocks decoded", "concatenate copies chunks: %s" % o)
    o = by.get(s + "rechunk to 250x1000 into a new file", {})
    m = re.match(r"b2 rechunk: peak memory ([0-9.]+) MiB, ([0-9.]+) MiB before the copy", o.get("note", ""))
    c.ok(m is not None and float(m.group(1)) >= float(m.group(2)) > 0, "rechunk memory note: %s" % o)
    comp = by.get(FRAME_LINES[0][0], {})
    c.ok(comp.get("cratio", 0) > 1.2, "compress line has a cratio > 1.2: %s" % comp)
    for shape, _, cr in SHAPES:
        for w in WHERE:
            o = by.get("blockshape %s, %s: from_cbuffer" % (shape, w), {})
            c.ok(abs(o.get("cratio", 0) - cr) < 0.01, "cratio %s %s = %.2f as the reference: %s"
                 % (shape, w, cr, o))

    # the table: the reference's labels, the frame part only
    with tempfile.TemporaryDirectory() as d:
        r = run(["--frame", "--reps", "1", "--chunks", "2", "--only", "frame", "--dir", d],
                timeout=600)
    text = r.stdout.decode()
    c.ok(r.returncode == 0 and "append_buffer x2 -> file cframe (+close+fsync) median" in text
         and "read 1 random chunk, in-memory cframe" in text and "b2nd" not in text
         and "[ext load " in text, "table output: %r" % text[-3000:])
    table_pread_mmap(text, 1)

    # the table of the b2nd part: both slices, pread and mmap, per blockshape
    with tempfile.TemporaryDirectory() as d:
        r = run(["--frame", "--reps", "1", "--only", "b2nd", "--dir", d], timeout=600)
    text = r.stdout.decode()
    c.ok(r.returncode == 0, "b2nd table exit %d: %r" % (r.returncode, r.stderr[-2000:]))
    table_pread_mmap(text, 2 * len(SHAPES))

    for args in (["--reps", "0"], ["--chunks", "0"], ["--chunks", "x"], ["--bogus"], ["file.bin"],
                 ["--only", "nothing"], ["--reps"], ["--hdf5"]):
        r = run(["--frame"] + args)
        c.ok(r.returncode == 2 and r.stderr.count(b"\n") >= 1,
             "bench --frame %s exits 2 (got %d)" % (args, r.returncode))
    r = run(["--frame", "--chunks", "1", "--reps", "1", "--dir", "/nonexistent/dir"])
    c.ok(r.returncode == 1 and b"/nonexistent/dir" in r.stderr,
         "unusable --dir: exit 1 naming it (got %d, %r)" % (r.returncode, r.stderr))
    c.finish()


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""Error messages speak to the user (issue 39, part 6), as b2 and b2blosc.h5
print them: no internal function names ("(b2_...)", "(frame_...)"), the file
name once, "truncated" for every cut of a frame, a b2nd file and a chunk, "not
a Blosc2 file" for random bytes and an .npy, no repeated text, and every direct
HDF5 read error naming the HDF5 chunk's coordinates (serial and parallel
reads); the filter path, which HDF5 does not tell which chunk it decodes, says
"a chunk of the dataset" and no frame-internal chunk number."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PLUGIN_DIR = hc.setup()
os.environ["B2_H5_PLUGIN"] = os.path.join(PLUGIN_DIR, hc.PLUGIN_NAME)
b2test.use_source_package()
import b2blosc.h5 as bh  # noqa: E402

run = b2test.run_b2
TAG = re.compile(r"\((b2|frame|nd|h5)_[a-z0-9_]*\)")


def plain(C, msg, what, name=None):
    """The checks every message gets: one line, no function tag, the file once."""
    C.ok(msg and "\n" not in msg.strip(), "%s: one line: %r" % (what, msg))
    C.ok(not TAG.search(msg), "%s: a function name in %r" % (what, msg))
    if name:
        C.ok(msg.count(name) == 1, "%s: the file name %d times: %r" % (what, msg.count(name), msg))


def err(r):
    return r.stderr.decode(errors="replace").strip()


def test_cli(C, t):
    src = os.path.join(t, "src.raw")
    np.arange(60000, dtype="<i4").tofile(src)
    files = {}
    for kind, args in (("frame", ["--format", "frame", "--chunksize", "60k"]), ("b2nd", ["--shape", "60000", "--dtype", "<i4",
                                                        "--chunks", "20000"]), ("chunk", ["--format", "chunk"])):
        out = os.path.join(t, "whole." + kind)
        r = run(["compress"] + args + [src, out])
        C.ok(r.returncode == 0, "compress %s: %s" % (kind, err(r)))
        files[kind] = open(out, "rb").read()
    for kind, blob in files.items():
        n = len(blob)
        cuts = sorted(set(list(range(1, 120)) + list(range(120, n, max(1, n // 40)))))
        bad = []
        for c in cuts:
            p = os.path.join(t, "cut_%s_%d.bin" % (kind, c))
            with open(p, "wb") as f:
                f.write(blob[:c])
            r = run(["cat", p])
            m = err(r)
            if r.returncode != 1 or "truncated" not in m or m.count(p) != 1 or TAG.search(m):
                bad.append("%d: %s" % (c, m))
            os.unlink(p)
        C.ok(not bad, "%s: %d of %d cuts not 'truncated' once-named: %s" % (kind, len(bad), len(cuts), bad[:3]))
    # random bytes and an .npy
    rnd = os.path.join(t, "random.bin")
    with open(rnd, "wb") as f:
        f.write(np.random.default_rng(5).integers(0, 256, 5000, dtype=np.uint8).tobytes())
    npy = os.path.join(t, "x.npy")
    np.save(npy, np.arange(1000))
    for p, extra in ((rnd, ""), (npy, ".npy")):
        for cmd in ("cat", "info", "verify"):
            m = err(run([cmd, p]))
            C.ok("not a Blosc2 file" in m and extra in m and "flags" not in m,
                 "%s %s: %r" % (cmd, p, m))
            plain(C, m, "%s %s" % (cmd, p), p)
    # a checksum mismatch, under a long path: said once, the hashes whole
    d = os.path.join(t, "a_rather_long_directory_name_to_push_the_message_past_two_hundred_chars")
    os.mkdir(d)
    arr = os.path.join(d, "an_array_with_checksums_and_a_long_file_name.b2nd")
    r = run(["compress", "--checksums", "--shape", "60000", "--dtype", "<i4", "--chunks", "20000",
             src, arr])
    C.ok(r.returncode == 0, "compress --checksums: %s" % err(r))
    blob = bytearray(open(arr, "rb").read())
    import json
    j = json.loads(run(["info", "--json", arr]).stdout)
    end = j["header_size"] + j["chunks"][0]["cbytes"] + j["chunks"][1]["cbytes"]
    blob[end - 2] ^= 1
    with open(arr, "wb") as f:
        f.write(blob)
    for args in (["verify", arr], ["cat", arr], ["slice", arr, "25000:30000"]):
        m = err(run(args))
        C.ok(m.count("checksum mismatch") == 1 and m.count("chunk 1:") == 1,
             "%s: said once: %r" % (args[0], m))
        C.ok(len(m) > 200 and re.search(r"checksum is [0-9a-f]{16}$", m),
             "%s: ends with the whole hash: %r" % (args[0], m))
        plain(C, m, args[0], arr)


def test_python(C, t):
    """b2blosc.open: the same words, the file name once (in what failed)."""
    import pyarray_common
    os.environ.setdefault("B2_LIBB2", pyarray_common.package_library())
    import b2blosc
    blob = open(os.path.join(t, "whole.b2nd"), "rb").read()
    cases = [(c, "truncated") for c in (1, 50, 100, 300, len(blob) // 2, len(blob) - 1)]
    for c, want in cases + [(None, "not a Blosc2 file"), ("npy", "not a Blosc2 file")]:
        p = os.path.join(t, "py_%s.b2nd" % c)
        if c == "npy":
            p = os.path.join(t, "x.npy")
        elif c is None:
            p = os.path.join(t, "random.bin")
        else:
            with open(p, "wb") as f:
                f.write(blob[:c])
        try:
            b2blosc.open(p)
            C.ok(False, "b2blosc.open(%s) opened" % p)
        except ValueError as e:
            m = str(e)
            C.ok(want in m and m.count(p) == 1, "b2blosc.open(%s): %r" % (p, m))
            plain(C, m, "b2blosc.open(%s)" % p)


def make_file(path):
    with h5py.File(path, "w") as f:
        f.create_dataset("plain", data=np.arange(40 * 30, dtype="<i4").reshape(40, 30),
                         chunks=(10, 10), compression=hc.FILTER_ID, compression_opts=(0, 0, 0, 0, 5, 1, 5))
        f.create_dataset("b2nd", data=np.arange(40 * 30, dtype="<f8").reshape(40, 30),
                         chunks=(10, 15), compression=hc.FILTER_ID, compression_opts=(0, 0, 0, 0, 5, 1, 1))
    with h5py.File(path, "a") as f:
        for name, off in (("plain", (20, 10)), ("b2nd", (30, 15))):
            ds = f[name]
            _, raw = ds.id.read_direct_chunk(off)
            hl = int.from_bytes(raw[11:15], "big")
            bad = bytearray(raw)
            bad[hl + 3] = 0  # the frame's chunk: typesize 0
            ds.id.write_direct_chunk(off, bytes(bad), 0)
            off2 = (0, 0)
            _, raw = ds.id.read_direct_chunk(off2)
            ds.id.write_direct_chunk(off2, raw[:len(raw) // 2], 0)  # cut in half
    return {"plain": ((20, 10), (0, 0)), "b2nd": ((30, 15), (0, 0))}


def test_h5(C, t):
    path = os.path.join(t, "bad.h5")
    bad = make_file(path)
    with h5py.File(path, "r") as f:
        for name, (damaged, cut) in bad.items():
            ds = f[name]
            for off in (damaged, cut):
                box = tuple(slice(o, o + c) for o, c in zip(off, ds.chunks))
                coords = "(%s)" % ",".join(str(o) for o in off)
                for threads in (1, 4):
                    for key in (box, Ellipsis) if off == damaged else (box,):
                        try:
                            bh.read(ds, key, threads=threads)
                            C.ok(False, "%s %s: a damaged chunk read" % (name, coords))
                        except OSError as e:
                            m = str(e)
                            # a whole read stops at whichever damaged chunk comes first
                            want = [coords] if key is not Ellipsis else \
                                ["(%s)" % ",".join(str(o) for o in x) for x in (damaged, cut)]
                            C.ok(any("chunk " + w in m or "chunk at " + w in m for w in want),
                                 "%s, %d threads: no HDF5 chunk coordinates %s in %r"
                                 % (name, threads, " or ".join(want), m))
                            plain(C, m, "direct read of %s %s" % (name, coords))
                try:
                    ds[box]
                    C.ok(False, "%s %s: a damaged chunk read through the filter" % (name, coords))
                except OSError as e:
                    m = str(e)
                    C.ok("blosc2 filter" in m and "a chunk of the dataset" in m and
                         not re.search(r"\bchunk \d", m), "filter path: %r" % m)
                    C.ok(not TAG.search(m), "filter path: a function name in %r" % m)


def main():
    C = hc.Counter("error messages")
    t = b2test.scratch_dir("b2errmsg_")
    test_cli(C, t)
    test_python(C, t)
    test_h5(C, t)
    C.finish()


main()

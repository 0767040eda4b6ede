# SPDX-License-Identifier: BSD-3-Clause
"""What a user reads from b2 (issue 39 part 6):
  * `b2 verify` says what it checked: "checksums match", which chunks had
    checksums (some stale), or "decoded, no checksums to check";
  * counted nouns agree with their number: "1 chunk", "2 chunks";
  * `b2 compress` refuses to replace OUT without --force, as `b2 convert`
    does, and a failed compress leaves an existing OUT as it was;
  * `b2 slice` does not write binary data to a terminal (a pty) unless -f;
  * `b2 slice A abc` is a parse error, `b2 slice A 99` a range error."""
import ctypes
import os
import pty
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import libb2_ctypes  # noqa: E402

c = b2test.Counter("cli messages")
run = b2test.run_b2
t = b2test.scratch_dir("b2msg-")
src = os.path.join(t, "src.raw")
with open(src, "wb") as f:
    f.write(bytes((i * 7 // 5) & 0xFF for i in range(3 * 4096)))


def compress(args, out):
    r = run(["compress"] + args + [src, out])
    c.ok(r.returncode == 0, "compress %s: %r" % (args, r.stderr))
    return out


# ---- verify: what was checked ----
fr = compress(["--codec", "zstd", "--chunksize", "4k", "--typesize", "4"], os.path.join(t, "plain.b2frame"))
one = compress(["--codec", "zstd", "--chunksize", "16k"], os.path.join(t, "one.b2frame"))
ch = compress(["--codec", "zstd"], os.path.join(t, "a.b2chunk"))
ck = compress(["--codec", "zstd", "--chunksize", "4k", "--typesize", "4", "--checksums"],
              os.path.join(t, "sums.b2frame"))
want = {
    fr: b"plain.b2frame: ok (cframe, 3 chunks, 12288 bytes; decoded, no checksums to check)\n",
    one: b"one.b2frame: ok (cframe, 1 chunk, 12288 bytes; decoded, no checksums to check)\n",
    ch: b"a.b2chunk: ok (chunk, 12288 bytes; decoded, no checksums to check)\n",
    ck: b"sums.b2frame: ok (cframe, 3 chunks, 12288 bytes, checksums match)\n",
}
for path, line in want.items():
    r = run(["verify", path])
    c.ok(r.returncode == 0 and r.stdout.endswith(line), "verify %s: %r (want %r)" % (path, r.stdout, line))

# a writer that ignores checksums replaces chunk 1: its entry is stale, the others match
lib = libb2_ctypes.load()
d = lib.dll
d.b2_schunk_set_checksums.argtypes = [ctypes.c_void_p, ctypes.c_int]
d.b2_schunk_update_chunk.restype = ctypes.c_int64
d.b2_schunk_update_chunk.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p, ctypes.c_int32]
part = os.path.join(t, "part.raw")
with open(part, "wb") as f:
    f.write(bytes(4096))
newchunk = os.path.join(t, "new.b2chunk")
r = run(["compress", "--codec", "zstd", "--typesize", "4", part, newchunk])
blob = open(newchunk, "rb").read()
rc, s = lib.open_schunk(path=ck, flags=libb2_ctypes.OPEN_WRITE)
lib.check(rc, "open")
lib.check(d.b2_schunk_set_checksums(s, 3), "checksums IGNORE")
c.ok(d.b2_schunk_update_chunk(s, 1, blob, len(blob)) >= 0, "update chunk 1")
d.b2_schunk_free(s)
r = run(["verify", ck])
c.ok(r.returncode == 0 and r.stdout.endswith(
    b"ok (cframe, 3 chunks, 12288 bytes; checksums match for 2 chunks, 1 chunk stale: decoded only)\n")
     and b"1 of 3 chunks changed since their checksums were written" in r.stderr,
     "verify, one chunk stale: %r %r" % (r.stdout, r.stderr))
r = run(["verify", "--help"])
c.ok(b"decoded, no\nchecksums to check" in r.stdout, "verify --help explains the wording")

# ---- compress --force ----
out = os.path.join(t, "o.b2frame")
compress(["--chunksize", "4k"], out)
before = open(out, "rb").read()
for kind_args, name in ((["--chunksize", "4k"], "o.b2frame"), ([], "o.b2frame"),
                        (["--shape", "3072", "--dtype", "<i4"], "o.b2frame")):
    r = run(["compress"] + kind_args + [src, out])
    c.ok(r.returncode == 1 and r.stderr == ("b2: %s: exists already (--force replaces it)\n" % out).encode()
         and open(out, "rb").read() == before, "compress %s over an existing file refused: %d %r"
         % (kind_args, r.returncode, r.stderr))
r = run(["compress", "--force", "--codec", "zstd", "--chunksize", "4k", src, out])
c.ok(r.returncode == 0 and open(out, "rb").read() != before and run(["cat", out]).stdout == open(src, "rb").read(),
     "compress --force replaces it: %r" % r.stderr)
before = open(out, "rb").read()
r = run(["compress", "-f", "--chunksize", "4k", os.path.join(t, "missing.raw"), out])
c.ok(r.returncode == 1 and open(out, "rb").read() == before, "a failed compress -f leaves OUT intact")
c.ok(not [n for n in os.listdir(t) if ".tmp" in n], "no temporary files left: %s" % os.listdir(t))
r = run(["compress", "--help"])
c.ok(b"-f, --force" in r.stdout, "compress --help lists --force")
sp = os.path.join(t, "sp.b2frame")
compress(["--sparse"], sp)
r = run(["compress", "--sparse", "--force", src, sp])
c.ok(r.returncode == 1 and b"does not replace it even with --force: remove it first" in r.stderr
     and os.path.isfile(os.path.join(sp, "chunks.b2frame")), "sparse --force over a directory: %r" % r.stderr)

# ---- slice to a terminal ----
arr = compress(["--shape", "3072", "--dtype", "<i4"], os.path.join(t, "a.b2nd"))


def slice_on_pty(args):
    """Run b2 slice with standard output on a pty; (exit code, stderr, bytes on the pty)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([b2test.b2_bin(), "slice"] + args, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        got += chunk
    err = p.stderr.read()
    rc = p.wait(timeout=60)
    os.close(master)
    return rc, err, got


rc, err, got = slice_on_pty([arr, "0:10"])
c.ok(rc == 2 and b"not writing binary data to a terminal" in err and got == b"",
     "slice to a terminal refused: %d %r %r" % (rc, err, got))
rc, err, got = slice_on_pty([arr, "0:10", "-f"])
c.ok(rc == 0 and err == b"" and len(got) >= 40, "slice -f writes to the terminal: %d %r %d" % (rc, err, len(got)))
rc, err, got = slice_on_pty([arr, "0:10", "-o", os.path.join(t, "s.raw")])
c.ok(rc == 0 and os.path.getsize(os.path.join(t, "s.raw")) == 40, "slice -o with a terminal: %d %r" % (rc, err))
r = run(["slice", arr, "0:10"])  # a pipe: written as before
c.ok(r.returncode == 0 and len(r.stdout) == 40, "slice to a pipe: %d bytes" % len(r.stdout))

# ---- slice: parse errors are not range errors ----
for spec, word in (("abc", b"cannot parse index 'abc'"), ("1x", b"cannot parse index '1x'"),
                   ("a:5", b"cannot parse range 'a:5'"), ("[1,x]", b"cannot parse index list '[1,x]'"),
                   ("3072", b"index 3072 out of range for dimension 0 (extent 3072)"),
                   ("-3073", b"index -3073 out of range"),
                   ("[1,5000]", b"index 5000 out of range for dimension 0 (extent 3072)")):
    r = run(["slice", arr, spec])
    other = b"out of range" if b"parse" in word else b"cannot parse"
    c.ok(r.returncode == 2 and word in r.stderr and other not in r.stderr,
         "slice %s: %d %r" % (spec, r.returncode, r.stderr))
r = run(["slice", fr, "xyz"])
c.ok(r.returncode == 2 and b"cannot parse index 'xyz'" in r.stderr, "frame slice xyz: %r" % r.stderr)
c.finish()

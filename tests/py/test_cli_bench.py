# SPDX-License-Identifier: BSD-3-Clause
"""`b2 bench` (shared/bench/README.md protocol): JSON lines with the protocol's
fields, one per file and parameter combination; ratio = nbytes / cbytes and cbytes
equal to what `b2 compress` writes for the same parameters; the table form;
errors and exit codes. When ../shared/bench/make-datasets is present, the
protocol's own example (f64_sin.bin, lz4 clevel 5, shuffle, 8 MiB) must give the
reference's compressed size, 5744285 bytes."""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

c = b2test.Counter("cli bench")
run = b2test.run_b2
FIELDS = ["file", "codec", "clevel", "filter", "threads", "typesize", "nbytes", "cbytes",
          "ratio", "compress_mbps", "decompress_mbps", "memcpy_mbps"]


def main():
    with tempfile.TemporaryDirectory() as t:
        f64 = os.path.join(t, "f64_wave.bin")
        n = 1 << 17
        with open(f64, "wb") as f:
            f.write(struct.pack("<%dd" % n, *(1000.0 * math.sin(i / 300.0) for i in range(n))))
        rnd = os.path.join(t, "bytes.bin")
        with open(rnd, "wb") as f:
            f.write(os.urandom(100000))

        r = run(["bench", "--json", "--codec", "lz4,zstd", "--clevel", "1,5", "--filter",
                 "shuffle,bitshuffle", "--threads", "1,2", "--reps", "2", f64, rnd])
        c.ok(r.returncode == 0, "bench --json exit %d: %r" % (r.returncode, r.stderr))
        lines = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
        c.ok(len(lines) == 2 * 2 * 2 * 2 * 2, "one line per file and combination (%d)" % len(lines))
        for o in lines:
            c.ok(list(o) == FIELDS, "protocol fields in order: %s" % list(o))
            c.ok(o["cbytes"] > 0 and abs(o["ratio"] - o["nbytes"] / o["cbytes"]) < 1e-4 * o["ratio"],
                 "ratio = nbytes/cbytes for %s" % o)
            c.ok(min(o["compress_mbps"], o["decompress_mbps"], o["memcpy_mbps"]) > 0,
                 "positive speeds for %s" % o)
        ts = {o["file"]: o["typesize"] for o in lines}
        c.ok(ts == {"f64_wave.bin": 8, "bytes.bin": 8}, "typesize from file names: %s" % ts)

        # cbytes is exactly the size of the chunk `b2 compress` writes
        o = [x for x in lines if x["file"] == "f64_wave.bin" and x["codec"] == "zstd"
             and x["clevel"] == 5 and x["filter"] == "bitshuffle" and x["threads"] == 1][0]
        out = os.path.join(t, "x.b2chunk")
        r = run(["compress", "--codec", "zstd", "--clevel", "5", "--filter", "bitshuffle",
                 "--typesize", "8", f64, out])
        c.ok(r.returncode == 0 and os.path.getsize(out) == o["cbytes"],
             "bench cbytes %d = compress output %d" % (o["cbytes"], os.path.getsize(out)))

        r = run(["bench", "--reps", "1", "--typesize", "4", f64])
        text = r.stdout.decode()
        tl = text.splitlines()
        c.ok(r.returncode == 0 and len(tl) == 3 and tl[0].startswith("SIMD kernels: ")
             and "ratio" in tl[1] and "f64_wave.bin" in text and " 4 " in tl[2],
             "table output: %r" % text)

        for args, code in ((["--codec", "nope", f64], 2), (["--clevel", "12", f64], 2),
                           (["--filter", "delta", f64], 2), (["--reps", "0", f64], 2), ([], 2),
                           ([os.path.join(t, "missing.bin")], 1)):
            r = run(["bench"] + args)
            c.ok(r.returncode == code and r.stderr.count(b"\n") >= 1,
                 "bench %s exits %d (got %d)" % (args, code, r.returncode))
        c.ok(run(["bench", "--help"]).returncode == 0, "bench --help")

        gen = os.path.join(os.path.dirname(b2test.interop_dir(required=False) or "/nonexistent"),
                           "bench", "make-datasets")
        if os.path.exists(gen):
            d = os.path.join(t, "data")
            subprocess.run([sys.executable, gen, d, "8"], check=True, stdout=subprocess.DEVNULL)
            r = run(["bench", "--json", "--codec", "lz4", "--clevel", "5", "--filter", "shuffle",
                     "--reps", "1", os.path.join(d, "f64_sin.bin")])
            o = json.loads(r.stdout)
            c.ok(o["cbytes"] == 5744285 and o["typesize"] == 8,
                 "protocol example f64_sin.bin lz4/5/shuffle: cbytes %d, reference 5744285"
                 % o["cbytes"])
        else:
            print("note: shared/bench/make-datasets not found; protocol example not checked")
    c.finish()


if __name__ == "__main__":
    main()

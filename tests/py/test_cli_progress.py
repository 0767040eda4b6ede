# SPDX-License-Identifier: BSD-3-Clause
"""Progress bar of long `b2 compress` / `b2 verify` runs: drawn on stderr when
stderr is a terminal (checked under a pseudo-terminal) and the input reaches
B2_PROGRESS_MIN_BYTES (lowered here so small inputs qualify); absent when
stderr is a file, and absent on a terminal below the threshold. The outputs
are the same with and without the bar."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402

c = b2test.Counter("cli progress")


def run_pty(args, env):
    """Run b2 with stderr on a pseudo-terminal; returns (exit code, stderr bytes)."""
    master, slave = os.openpty()
    try:
        p = subprocess.Popen([b2test.b2_bin()] + args, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=slave, env=env)
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not b:
            break
        chunks.append(b)
    os.close(master)
    return p.wait(timeout=120), b"".join(chunks)


def run_file(args, env, t):
    errp = os.path.join(t, "stderr.txt")
    with open(errp, "wb") as ef:
        rc = subprocess.run([b2test.b2_bin()] + args, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=ef, env=env, timeout=120).returncode
    return rc, open(errp, "rb").read()


def main():
    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "in.raw")
        data = b"".join(b"%09d\n" % (i * 7) for i in range(400000))  # 4 MB
        with open(src, "wb") as f:
            f.write(data)
        low = dict(os.environ, B2_PROGRESS_MIN_BYTES="1M")
        high = dict(os.environ, B2_PROGRESS_MIN_BYTES="1G")
        n = len(data) // 10
        jobs = [("frame", ["compress", "--force", "--chunksize", "256k", src, os.path.join(t, "a.b2frame")], "compress"),
                ("sframe", ["compress", "--sparse", "--chunksize", "256k", src, os.path.join(t, "s")], "compress"),
                ("b2nd", ["compress", "--force", "--shape", "%d,10" % n, "--dtype", "|u1", "--chunks", "20000,10",
                          src, os.path.join(t, "a.b2nd")], "compress"),
                ("verify", ["verify", os.path.join(t, "a.b2frame")], "verify")]
        for name, args, label in jobs:
            rc, err = run_pty(args, low)
            c.ok(rc == 0, "%s under a pty: exit %d %r" % (name, rc, err[-200:]))
            c.ok((label + " [").encode() in err and b"100.0%" in err and b"\r" in err and b"MB" in err,
                 "%s: progress bar drawn on the terminal: %r" % (name, err[:160]))
            c.ok(err.endswith(b"\r\x1b[K") or b"ok (" in err or err.rstrip().endswith(b"\x1b[K"),
                 "%s: bar erased at the end: %r" % (name, err[-40:]))
            if name == "sframe":
                for f in os.listdir(os.path.join(t, "s")):
                    os.unlink(os.path.join(t, "s", f))
                os.rmdir(os.path.join(t, "s"))
            rc, err = run_file(args, low, t)
            c.ok(rc == 0 and err == b"", "%s: nothing on stderr when it is a file: %r" % (name, err[:160]))
            if name == "sframe":
                for f in os.listdir(os.path.join(t, "s")):
                    os.unlink(os.path.join(t, "s", f))
                os.rmdir(os.path.join(t, "s"))
            rc, err = run_pty(args, high)
            c.ok(rc == 0 and b"[" not in err, "%s: no bar below the threshold: %r" % (name, err[:160]))
        for out in ("a.b2frame", "s", "a.b2nd"):
            r = b2test.run_b2(["cat", os.path.join(t, out)])
            c.ok(r.returncode == 0 and r.stdout == data, "%s decodes to the input" % out)
    c.finish()


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.array.save over an existing file is atomic (issue 38):
  * a save killed part way (SIGKILL once its temporary file has grown) leaves
    the old file byte-identical; the old file still opens and reads, and so does
    a B2ndArray that had it open during the save;
  * the only files a killed save leaves are the old file and its temporary;
  * a completed save replaces the file, and leaves no temporary behind;
  * a save the library fails after creating its frame leaves the old file as it
    was, and removes its temporary."""
import glob
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import pyarray_common as pc  # noqa: E402

ba = pc.load()
import numpy as np  # noqa: E402

check = b2test.Checks()

# Large and incompressible enough (random bytes, zstd 9) that the save takes
# well over the parent's polling interval, so that it is killed mid-write.
CHILD = r"""
import os, sys
sys.path.insert(0, %(here)r)
import pyarray_common as pc
ba = pc.load()
import numpy as np
big = np.random.default_rng(7).integers(0, 256, size=%(n)d, dtype=np.uint8)
print("start", flush=True)
ba.save(big, %(path)r, chunks=(1 << 20,), cname="zstd", clevel=9).close()
print("done", flush=True)
"""
BIG = 192 << 20
GROWN = 4 << 20          # the temporary holds this much when the child is killed
KILL_TIMEOUT = 120


def old_file(tmp):
    path = os.path.join(tmp, "v.b2nd")
    old = np.arange(50000, dtype="<f8").reshape(250, 200)
    ba.save(old, path, vlmeta={"who": b"old"}).close()
    with open(path, "rb") as f:
        return path, old, f.read()


def temporaries(path):
    return glob.glob(glob.escape(path) + ".*b2tmp")


def grown_temporary(path):
    return any(os.path.getsize(t) >= GROWN for t in temporaries(path) if os.path.exists(t))


def kill_when_grown(proc, path):
    """SIGKILL proc once a temporary of path holds GROWN bytes; True if it was
    killed part way (False: it finished or timed out first)."""
    deadline = time.monotonic() + KILL_TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            grown = grown_temporary(path)
        except OSError:        # a temporary renamed away between glob and stat
            grown = False
        if grown:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.005)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    return False


def killed_save(tmp):
    path, old, before = old_file(tmp)
    held = ba.open(path)            # open across the save: must keep reading
    code = CHILD % {"here": os.path.dirname(os.path.abspath(__file__)), "n": BIG, "path": path}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    killed = kill_when_grown(proc, path)
    out, err = proc.communicate()
    check(killed, "the save was killed part way (rc %s, out %r, err %r)"
          % (proc.returncode, out[-200:], err[-400:]))
    with open(path, "rb") as f:
        check(f.read() == before, "the old file is byte-identical after the killed save")
    with ba.open(path) as a:
        check(np.array_equal(a[...], old), "the old file opens and reads the old array")
    try:
        check(np.array_equal(held[...], old), "a B2ndArray open during the killed save still reads")
    except ba.Blosc2Error as e:
        check(False, "a B2ndArray open during the killed save fails to read: %s" % e)
    held.close()
    left = sorted(os.listdir(tmp))
    check(left[0] == "v.b2nd" and all(n.startswith("v.b2nd.") and n.endswith("b2tmp")
                                      for n in left[1:]),
          "a killed save leaves only the file and its temporary: %s" % left)
    for t in temporaries(path):
        os.unlink(t)


def completed_save(tmp):
    path, old, before = old_file(tmp)
    new = np.arange(300000, dtype="<i4")
    ba.save(new, path, vlmeta={"who": b"new"}).close()
    with ba.open(path) as a:
        check(np.array_equal(a[...], new), "a completed save replaces the file")
    with open(path, "rb") as f:
        check(f.read() != before, "the file's bytes changed")
    check(temporaries(path) == [], "a completed save leaves no temporary: %s" % temporaries(path))


def failed_save(tmp):
    path, old, before = old_file(tmp)
    try:   # the library refuses the metalayer name after it has created the frame
        ba.save(np.zeros(100, "f4"), path, meta={"b2nd": b"x"})
        check(False, "a user metalayer named b2nd was accepted")
    except ba.Blosc2Error as e:
        check(path in str(e), "the error names the target, not the temporary: %s" % e)
    with open(path, "rb") as f:
        check(f.read() == before, "a failed save leaves the old file byte-identical")
    check(temporaries(path) == [], "a failed save removes its temporary: %s" % temporaries(path))


def main():
    for case in (killed_save, completed_save, failed_save):
        case(b2test.scratch_dir("b2pyarray_atomic_"))
    print("%d checks, %d failed" % (check.count, len(check.failures)))
    return 1 if check.failures else 0


sys.exit(main())

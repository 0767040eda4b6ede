# SPDX-License-Identifier: BSD-3-Clause
"""Shared by the peer checks (tests/peers/check_*.py), run with a peer venv's
python: a tally of checks by category, the phases run in separate processes
(so hdf5plugin's filter and ours are never registered in one process), the b2
program, and data made from a seed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

# Variables that would let another copy of a filter, library or package in.
# BLOSC2_FILTER: PyTables' and b2h5py's switch from their direct path to the pipeline.
_DROP = ("B2_H5_PLUGIN", "B2_LIBB2", "HDF5_PLUGIN_PATH", "PYTHONPATH", "LD_PRELOAD", "BLOSC2_FILTER")


class Tally:
    """Checks counted per category; failures kept (the first few printed) so a
    run reports every failing category, not just the first."""

    def __init__(self, name):
        self.name = name
        self.counts = {}
        self.fails = {}

    def check(self, ok, category, msg=""):
        n, f = self.counts.get(category, (0, 0))
        self.counts[category] = (n + 1, f + (0 if ok else 1))
        if not ok:
            lst = self.fails.setdefault(category, [])
            if len(lst) < 5:
                lst.append(msg)
                print("FAIL [%s] %s" % (category, msg), flush=True)
        return ok

    def attempt(self, category, msg, fn, *args):
        """fn(*args) must return True; an exception is a failure with its text."""
        try:
            ok = bool(fn(*args))
            err = ""
        except Exception as e:  # a peer's or our error: the check fails with its message
            ok, err = False, " raised %s: %s" % (type(e).__name__, str(e).splitlines()[0][:300]
                                                 if str(e) else "")
        return self.check(ok, category, msg + err)

    def summary(self):
        """Print the table; 0 when every check passed, else 1."""
        total = sum(n for n, _ in self.counts.values())
        bad = sum(f for _, f in self.counts.values())
        print("\n%s: %d checks, %d failed" % (self.name, total, bad))
        for cat in sorted(self.counts):
            n, f = self.counts[cat]
            print("  %-48s %5d checks %5d failed" % (cat, n, f))
        return 1 if bad else 0


def clean_env(autoregister=False, **extra):
    """os.environ without _DROP, plus extra. b2blosc's automatic registration
    (the .pth its install adds: `import h5py` registers ours) is off unless
    autoregister: a phase registers what it imports, and hdf5plugin's phases
    never load b2blosc."""
    env = {k: v for k, v in os.environ.items() if k not in _DROP}
    env.pop("B2BLOSC_NO_AUTOREGISTER", None)
    if not autoregister:
        env["B2BLOSC_NO_AUTOREGISTER"] = "1"
    env.update(extra)
    return env


def empty_plugin_dir(work):
    """A folder with no plugin: HDF5_PLUGIN_PATH for processes that must use
    only the filter their Python side registers."""
    d = os.path.join(work, "no-plugins")
    os.makedirs(d, exist_ok=True)
    return d


def run_phase(script, phase, work, env=None, timeout=600):
    """Run `python script phase work` in a new process; its exit status."""
    t0 = time.time()
    r = subprocess.run([sys.executable, script, phase, work], env=env or clean_env(),
                       timeout=timeout)
    print("phase %s: exit %d, %.1f s" % (phase, r.returncode, time.time() - t0), flush=True)
    return r.returncode


def phased_main(script, phases, prefix, env_for=None):
    """main() of a check whose phases each run in a process of their own (so
    that hdf5plugin's filter and ours are never registered in one): with the
    arguments PHASE WORK it runs that phase; otherwise it empties the work folder
    (argv[1], else a new temporary one) and runs every phase in order with the
    environment env_for(work, phase) (default: clean, with an empty
    HDF5_PLUGIN_PATH, so only the filter a phase registers runs). Returns 1 when
    a phase failed, else 0."""
    if len(sys.argv) == 3 and sys.argv[1] in phases:
        return phases[sys.argv[1]](sys.argv[2])
    work = sys.argv[1] if len(sys.argv) > 1 else work_dir(prefix)
    shutil.rmtree(work, ignore_errors=True)  # nothing left from an earlier run
    os.makedirs(work)
    print("work folder %s" % work, flush=True)
    if env_for is None:
        nop = empty_plugin_dir(work)
        env_for = lambda w, p: clean_env(HDF5_PLUGIN_PATH=nop)  # noqa: E731
    rcs = [run_phase(script, p, work, env_for(work, p)) for p in phases]
    return 1 if any(rcs) else 0


def work_dir(prefix):
    base = os.environ.get("B2_PEER_WORK") or tempfile.gettempdir()
    os.makedirs(base, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=base)


def b2_bin():
    """The b2 program under test (B2_BIN, set by ctest); required."""
    b = os.environ.get("B2_BIN")
    if not b or not os.access(b, os.X_OK):
        sys.exit("B2_BIN is not set to the b2 program (ctest sets it): cannot run the b2 checks")
    return b


def run_b2(args, env=None, timeout=120):
    return subprocess.run([b2_bin()] + list(args), env=env or clean_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


def make_data(shape, dtype, seed):
    """Compressible but not trivial values: a ramp plus small noise."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":
        v = np.cumsum(rng.normal(0, 1, n)) + np.arange(n) * 0.01
    elif dt.kind == "c":
        v = np.cumsum(rng.normal(0, 1, n)) + 1j * np.arange(n)
    elif dt.kind == "b":
        v = rng.random(n) < 0.2
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        span = min(int(info.max), 1000)
        v = (np.arange(n) % span) + rng.integers(0, 3, n)
        v = np.clip(v, info.min, info.max)
    else:
        raise ValueError("make_data: dtype %s" % dt)
    return np.asarray(v).astype(dt).reshape(shape)


def old_raw_copy(f, name, src, data, raw_from_row):
    """Dataset name in f holding data as libb2 before 0.1.1 stored it (and as any
    optional filter that HDF5 skips leaves it): chunks starting at row
    raw_from_row or later raw with filter mask 1, the others src's own frames.
    data's shape must be a whole number of chunks. Returns the new dataset."""
    plist = src.id.get_create_plist()
    fid, _, opts, _ = plist.get_filter(0)
    ds = f.create_dataset(name, shape=data.shape, dtype=data.dtype, chunks=src.chunks,
                          compression=fid, compression_opts=opts)
    for i in range(src.id.get_num_chunks()):
        off = src.id.get_chunk_info(i).chunk_offset
        if off[0] < raw_from_row:
            mask, raw = src.id.read_direct_chunk(off)
            ds.id.write_direct_chunk(off, raw, filter_mask=mask)
        else:
            box = tuple(slice(o, o + c) for o, c in zip(off, src.chunks))
            ds.id.write_direct_chunk(off, np.ascontiguousarray(data[box]).tobytes(), filter_mask=1)
    return ds


def save_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def dataset_cd_values(ds, fid=32026):
    """The cd_values of filter fid in a dataset's pipeline, as stored."""
    plist = ds.id.get_create_plist()
    for i in range(plist.get_nfilters()):
        f = plist.get_filter(i)
        if f[0] == fid:
            return [int(x) for x in f[2]]
    return None

# SPDX-License-Identifier: BSD-3-Clause
"""dask.distributed reads our HDF5 filter's and our zarr codec's data in
worker processes that run no b2blosc code of ours (issue 38), in env hdf5-2.0.

check_dask.py [WORK]:
  1. The automatic registration (python/b2blosc-autoregister.pth and
     _b2blosc_autoregister.py) must be in the venv's site-packages. While
     setup.py does not install them yet, this check copies them there and
     removes its copies at the end (printed), so that other checks see the
     venv as pip made it.
  2. Fresh processes, clean environment, HDF5_PLUGIN_PATH an empty folder:
     `import h5py` alone gives filter 32026 (ours: b2blosc imported by the
     hook and get_config() says "b2blosc"); B2BLOSC_NO_AUTOREGISTER=1 gives
     none; `import hdf5plugin` keeps hdf5plugin's own (get_config: "kept").
  3. h5py + b2blosc.Blosc2 write a float32 dataset (edge chunks), zarr writes
     an int32 array with b2blosc.codecs.Blosc2Zarr.
  4. A LocalCluster of 2 worker processes (1 thread each, 127.0.0.1, no
     dashboard), started here and closed at the end, each step time-bounded.
     Every worker reports h5py imported by the task only, filter 32026
     available and registered by b2blosc. The HDF5 dataset is read by blocks
     (tasks opening the file with h5py alone) into a dask array and the zarr
     array through dask.array.from_zarr; both are compared with NumPy (whole
     arrays and reductions). Both workers must have read blocks. After the
     close, the worker processes must be gone.
Prints counts per category; exits 1 on any failure."""
import os
import shutil
import subprocess
import sys
import sysconfig
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
HOOK_FILES = ("b2blosc-autoregister.pth", "_b2blosc_autoregister.py")
H5_SHAPE, H5_CHUNKS = (3001, 517), (400, 517)
ZARR_SHAPE, ZARR_CHUNKS = (2000, 1003), (256, 1003)
ROWS_PER_BLOCK = 400


def install_hook():
    """The hook's files in site-packages; the list of copies made here."""
    site = sysconfig.get_paths()["purelib"]
    made = []
    for f in HOOK_FILES:
        dst = os.path.join(site, f)
        if not os.path.exists(dst):
            shutil.copyfile(os.path.join(SRC, f), dst)
            made.append(dst)
    print("autoregister files: %s" % ("copied into %s (setup.py does not install them yet)"
                                      % site if made else "installed by pip"), flush=True)
    return made


PROBE = ("import sys, json\n"
         "mode = sys.argv[1]\n"
         "if mode == 'hdf5plugin': import hdf5plugin\n"
         "import h5py\n"
         "b = sys.modules.get('b2blosc')\n"
         "print(json.dumps({'avail': bool(h5py.h5z.filter_avail(32026)),\n"
         "                  'b2blosc': b is not None,\n"
         "                  'registered': b.get_config()['registered'] if b else None}))\n")


def probe(t, work, mode, extra=None):
    import json
    env = pc.clean_env(autoregister=True, HDF5_PLUGIN_PATH=pc.empty_plugin_dir(work),
                       **(extra or {}))
    r = subprocess.run([sys.executable, "-c", PROBE, mode], env=env, capture_output=True,
                       text=True, timeout=120)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        t.check(False, "autoregister: probe ran", "%s: %s" % (mode, r.stderr[-600:]))
        return {}


def check_hook(t, work):
    got = probe(t, work, "h5py")
    t.check(got == {"avail": True, "b2blosc": True, "registered": "b2blosc"},
            "autoregister: import h5py alone registers ours", repr(got))
    got = probe(t, work, "h5py", {"B2BLOSC_NO_AUTOREGISTER": "1"})
    t.check(got == {"avail": False, "b2blosc": False, "registered": None},
            "autoregister: B2BLOSC_NO_AUTOREGISTER=1 opts out", repr(got))
    got = probe(t, work, "hdf5plugin")
    t.check(got == {"avail": True, "b2blosc": False, "registered": None},
            "autoregister: import hdf5plugin keeps its own", repr(got))


def write_data(t, work):
    import b2blosc
    import b2blosc.codecs
    import h5py
    import zarr
    rng = np.random.default_rng(38)
    y, x = np.mgrid[0:H5_SHAPE[0], 0:H5_SHAPE[1]].astype("f4")
    a = (np.sin(y / 97) + np.cos(x / 31) + rng.normal(0, 1e-3, H5_SHAPE)).astype("f4")
    h5 = os.path.join(work, "ours.h5")
    with h5py.File(h5, "w") as f:
        f.create_dataset("a", data=a, chunks=H5_CHUNKS,
                         compression=b2blosc.Blosc2(cname="zstd", clevel=5,
                                                    filters=b2blosc.Blosc2.SHUFFLE))
    with h5py.File(h5, "r") as f:
        t.check(pc.dataset_cd_values(f["a"]) is not None, "write: 32026 in the pipeline", h5)
    z = np.arange(np.prod(ZARR_SHAPE), dtype="i4").reshape(ZARR_SHAPE) * 3 - 7
    zp = os.path.join(work, "ours.zarr")
    arr = zarr.create_array(zp, shape=ZARR_SHAPE, chunks=ZARR_CHUNKS, dtype="i4",
                            compressors=[b2blosc.codecs.Blosc2Zarr(cname="lz4", clevel=5)])
    arr[...] = z
    return h5, a, zp, z


def worker_state():
    """On a worker: what its process had before this task, and the filter."""
    import sys
    had_h5py = "h5py" in sys.modules
    import h5py
    b = sys.modules.get("b2blosc")
    return {"pid": os.getpid(), "h5py_before": had_h5py,
            "avail": bool(h5py.h5z.filter_avail(32026)),
            "registered": b.get_config()["registered"] if b else None}


def read_rows(path, name, start, stop):
    """On a worker: rows start:stop of a dataset, with h5py alone, and the pid."""
    import h5py
    with h5py.File(path, "r") as f:
        return os.getpid(), f[name][start:stop]


def run_cluster(t, h5, a, zp, z):
    import dask.array as da
    from dask import delayed
    from distributed import Client, LocalCluster
    t0 = time.time()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None, memory_limit=0)
    pids = []
    try:
        client = Client(cluster, timeout=60)
        try:
            client.wait_for_workers(2, timeout=120)
            print("cluster up in %.1f s: %s" % (time.time() - t0, cluster.scheduler_address),
                  flush=True)
            states = client.run(worker_state)
            pids = [s["pid"] for s in states.values()]
            for addr, s in states.items():
                t.check(s["avail"] and s["registered"] == "b2blosc" and not s["h5py_before"],
                        "workers: 32026 ours with no user code", "%s: %r" % (addr, s))
            parts = [client.submit(read_rows, h5, "a", r, min(r + ROWS_PER_BLOCK, H5_SHAPE[0]),
                                   pure=False) for r in range(0, H5_SHAPE[0], ROWS_PER_BLOCK)]
            got = client.gather(parts, errors="raise")
            used = {pid for pid, _ in got}
            t.check(len(used) == 2, "dask: both workers read HDF5 blocks", repr(used))
            t.check(np.array_equal(np.concatenate([b for _, b in got]), a),
                    "dask: HDF5 blocks == NumPy", h5)
            blocks = [da.from_delayed(delayed(lambda r0, r1: read_rows(h5, "a", r0, r1)[1])(
                r, min(r + ROWS_PER_BLOCK, H5_SHAPE[0])),
                shape=(min(r + ROWS_PER_BLOCK, H5_SHAPE[0]) - r, H5_SHAPE[1]), dtype="f4")
                for r in range(0, H5_SHAPE[0], ROWS_PER_BLOCK)]
            x = da.concatenate(blocks)
            whole, colsum = client.compute([x, x.sum(axis=0, dtype="f8")], sync=True)
            t.check(np.array_equal(whole, a), "dask: HDF5 dask array == NumPy", h5)
            t.check(np.allclose(colsum, a.sum(axis=0, dtype="f8"), rtol=1e-12, atol=1e-9),
                    "dask: HDF5 reduction == NumPy", h5)
            zx = da.from_zarr(zp)
            zwhole, zmax = client.compute([zx, (zx % 1000).max(axis=1)], sync=True)
            t.check(np.array_equal(zwhole, z), "dask: zarr (Blosc2Zarr) == NumPy", zp)
            t.check(np.array_equal(zmax, (z % 1000).max(axis=1)), "dask: zarr reduction == NumPy",
                    zp)
        finally:
            client.close(timeout=60)
    finally:
        cluster.close(timeout=60)
    deadline = time.time() + 30
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    t.check(len(pids) == 2 and not any(_alive(p) for p in pids), "cluster: workers gone after close",
            repr(pids))
    print("cluster run took %.1f s" % (time.time() - t0), flush=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie not yet reaped still answers: look at its state
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else pc.work_dir("dask")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # the workers inherit this environment: nothing that brings a filter in
    for k in ("HDF5_PLUGIN_PATH", "B2_H5_PLUGIN", "PYTHONPATH", "B2BLOSC_NO_AUTOREGISTER"):
        os.environ.pop(k, None)
    os.environ["HDF5_PLUGIN_PATH"] = pc.empty_plugin_dir(work)
    t = pc.Tally("dask.distributed with our filter and codec")
    made = install_hook()
    try:
        check_hook(t, work)
        h5, a, zp, z = write_data(t, work)
        run_cluster(t, h5, a, zp, z)
    finally:
        for f in made:
            os.remove(f)
    return t.summary()


if __name__ == "__main__":
    sys.exit(main())

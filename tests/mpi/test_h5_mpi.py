# SPDX-License-Identifier: BSD-3-Clause
"""The HDF5 plugin under parallel HDF5, from N MPI ranks (ctest mpi_test_h5_parallel_np<N>
and mpi_py_test_h5_parallel_np<N>, registered by tests/mpi/CMakeLists.txt in builds
configured with -DB2_HDF5_PARALLEL=ON).

    test_h5_mpi.py --np N --kind c    mpirun examples/h5_parallel (C, parallel libhdf5),
                                      then test_h5_mpi_read_box on the file it wrote, and
                                      test_h5_mpi_incompressible
    test_h5_mpi.py --np N --kind py   mpirun python3 examples/h5_parallel.py (h5py built
                                      for MPI), with B2_H5_NTHREADS=2 in every rank

The writers check their own parallel and serial read-back. Then this process, with
the serial h5py and the same plugin file, checks the parallel file again:
  * /data carries filter 32026 (alone) with the writer's cd_values;
  * its values are the writer's formula, and a serial h5py write of them with the
    same chunks and cd_values stores the same bytes, chunk for chunk;
  * h5dump reads it through the plugin (its binary dump is the array) and names the filter;
  * b2blosc.h5.read_slice (b2_h5_read_box) reads boxes across slab and chunk
    boundaries by the direct path, equal to the array.
Environment (set by CMake): B2_MPIEXEC, B2_MPI_PLUGIN_DIR, B2_H5PAR_C, B2_H5PAR_READ_BOX,
B2_H5PAR_INCOMPRESSIBLE.
Skips (77) when no mpirun/mpiexec is found, or (--kind py) when h5py has no MPI build."""
import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "py"))
import b2test  # noqa: E402

FILTER_ID = 32026
PLUGIN = "libH5Zb2.so"
check = b2test.Checks()


def launcher(nproc):
    """mpirun/mpiexec command line for nproc ranks, or skip when there is none."""
    cmd = b2test.mpirun_command(nproc)
    if cmd is None:
        b2test.skip("mpirun/mpiexec not found (Debian: openmpi-bin): the MPI tests need it")
    return cmd


def mpirun(cmd, env, what):
    """Run an MPI job; it must exit 0 and print '<what>: OK'. Returns its output."""
    t0 = time.time()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=300)
    print("$ %s   (%.1f s)" % (" ".join(cmd), time.time() - t0))
    print(p.stdout.rstrip())
    check(p.returncode == 0 and ("%s: OK" % what) in p.stdout,
          "%s exited %d without '%s: OK'" % (what, p.returncode, what))
    return p.stdout


def values(np, shape):
    """The writers' array (examples/h5_parallel.c, .py)."""
    z, y, x = np.ogrid[0:shape[0], 0:shape[1], 0:shape[2]]
    return (z * 1000.0 + y * 8.0 + x * 0.25).astype(np.float32)


def check_file(h5py, np, path, work, plugin_dir, nproc):
    """The serial checks of the parallel file (see the module doc)."""
    with h5py.File(path, "r") as f:
        ds = f["data"]
        plist = ds.id.get_create_plist()
        filters = [plist.get_filter(i) for i in range(plist.get_nfilters())]
        check([fl[0] for fl in filters] == [FILTER_ID], "pipeline is filter %d alone: %s"
              % (FILTER_ID, filters))
        cd = tuple(filters[0][2]) if filters else ()
        check(len(cd) >= 7, "cd_values %s" % (cd,))
        want = values(np, ds.shape)
        data = ds[...]
        check(data.dtype == np.float32 and np.array_equal(data, want),
              "serial h5py read of the parallel file equals the array")
        stored = ds.id.get_storage_size()
        check(0 < stored < data.nbytes, "stored %d bytes for %d" % (stored, data.nbytes))

        # the same array written serially, same chunks and cd_values
        spath = os.path.join(work, "serial.h5")
        opts = (0, cd[1], 0, 0, cd[4], cd[5], cd[6])
        with h5py.File(spath, "w") as g:
            g.create_dataset("data", data=want, chunks=ds.chunks, compression=FILTER_ID,
                             compression_opts=opts)
        with h5py.File(spath, "r") as g:
            s = g["data"]
            n = ds.id.get_num_chunks()
            check(n > 1 and n == s.id.get_num_chunks(), "%d chunks in both files" % n)
            differ = 0
            for i in range(n):
                off = ds.id.get_chunk_info(i).chunk_offset
                a, b = ds.id.read_direct_chunk(off), s.id.read_direct_chunk(off)
                differ += a != b
            check(differ == 0, "%d of %d stored chunks differ from the serial write" % (differ, n))
            print("serial h5py (HDF5 %s): values equal; %d stored chunks byte-identical to a "
                  "serial write with cd_values %s" % (h5py.version.hdf5_version, n, opts))

        # fast slicing by blocks: boxes across slab (rank) and chunk boundaries
        sys.path.insert(0, os.path.join(b2test.REPO, "python"))
        import b2blosc.h5 as b2h5
        nz = ds.shape[0]
        bounds = sorted({nz * r // nproc for r in range(1, nproc)} | {8, 16, 24})
        keys = [(slice(max(b - 3, 0), min(b + 3, nz)), slice(40, 61), slice(60, 70))
                for b in bounds]
        keys += [(slice(None), 50, slice(None)), (7, slice(49, 51), slice(63, 65)), Ellipsis]
        paths = []
        for key in keys:
            got, rep = b2h5.read_slice(ds, key, report=True)
            paths.append(rep["path"])
            check(np.array_equal(got, want[key]) and rep["path"] == "direct",
                  "read_slice %s: path %s (%s), equal %s" % (
                      key, rep["path"], rep.get("reason"), np.array_equal(got, want[key])))
        print("read_slice: %d boxes by the direct path (%s)" % (len(keys), ", ".join(sorted(set(paths)))))

    # h5dump (serial HDF5 tools) through the plugin
    h5dump = shutil.which("h5dump")
    if not check(h5dump is not None, "h5dump found (Debian: hdf5-tools)"):
        return
    binf = os.path.join(work, "data.bin")
    env = b2test.clean_env(HDF5_PLUGIN_PATH=plugin_dir)
    p = subprocess.run([h5dump, "-d", "/data", "-b", "LE", "-o", binf, path], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    dumped = np.fromfile(binf, dtype="<f4") if os.path.isfile(binf) else None
    check(p.returncode == 0 and dumped is not None and np.array_equal(dumped, want.ravel()),
          "h5dump -b of the parallel file equals the array (rc %d): %s" % (p.returncode, p.stdout[-500:]))
    p = subprocess.run([h5dump, "-p", "-H", path], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    check(p.returncode == 0 and "FILTER_ID 32026" in p.stdout and "blosc2" in p.stdout,
          "h5dump -p -H names filter 32026 blosc2:\n" + p.stdout[-800:])
    print("h5dump: binary dump equal to the array; header names filter 32026 (blosc2)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--kind", choices=("c", "py"), required=True)
    a = ap.parse_args()
    cmd = launcher(a.np)
    plugin_dir = os.path.abspath(os.environ.get("B2_MPI_PLUGIN_DIR", ""))
    plugin = os.path.join(plugin_dir, PLUGIN)
    if not check(os.path.isfile(plugin), "plugin %s exists (build target H5Zb2 or set "
                 "-DB2_MPI_PLUGIN_DIR)" % plugin):
        return 1
    os.environ["HDF5_PLUGIN_PATH"] = plugin_dir
    os.environ["B2_H5_PLUGIN"] = plugin
    try:
        import h5py
        import numpy as np
    except ImportError as e:
        b2test.skip("h5py/numpy not importable by %s: %s" % (sys.executable, e))
    check(not h5py.get_config().mpi, "this process uses the serial h5py")
    work = b2test.scratch_dir("b2mpi-")
    path = os.path.join(work, "parallel.h5")
    env = b2test.clean_env(HDF5_PLUGIN_PATH=plugin_dir)
    env.pop("B2_H5_NTHREADS", None)

    if a.kind == "c":
        progs = [os.environ.get("B2_H5PAR_" + k) for k in ("C", "READ_BOX", "INCOMPRESSIBLE")]
        for p in progs:
            if not check(p and os.path.isfile(p), "program %s built" % p):
                return 1
        exe, rbox, incompressible = progs
        out = mpirun(cmd + [exe, path], env, "h5_parallel")
        check("byte for byte the serial write's" in out, "h5_parallel compared the stored chunks")
        mpirun(cmd + [rbox, path, plugin], env, "test_h5_mpi_read_box")
        mpirun(cmd + [incompressible, os.path.join(work, "incompressible.h5")], env,
               "test_h5_mpi_incompressible")
    else:
        probe = subprocess.run(cmd + [sys.executable, "-c",
                                      "import h5py, mpi4py; print('mpi', h5py.get_config().mpi)"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=120)
        if "mpi True" not in probe.stdout:
            b2test.skip("%s under mpirun has no h5py built for MPI with mpi4py (Debian: "
                        "python3-h5py-mpi): %s" % (sys.executable, probe.stdout.strip()[-300:]))
        env["B2_H5_NTHREADS"] = "2"  # plugin threads inside every rank
        out = mpirun(cmd + [sys.executable, os.path.join(b2test.REPO, "examples", "h5_parallel.py"),
                            path], env, "h5_parallel")
        check("byte for byte the serial write's" in out, "h5_parallel.py compared the stored chunks")

    if os.path.isfile(path):
        check_file(h5py, np, path, work, plugin_dir, a.np)
    print("%d ranks (%s): %d checks, %d failures" % (a.np, a.kind, check.count, len(check.failures)))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())

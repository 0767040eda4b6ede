#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Parallel HDF5 write and read speed with 1, 2 and 4 MPI ranks: Blosc2 (filter
32026, our plugin) with lz4 + shuffle and zstd 1 + shuffle, next to no filter and
gzip level 4.

A float32 dataset of --mb MiB (default 256; shape (mb, 512, 512), a smooth field
plus noise as in examples/demo_h5.py) in chunks of --chunk-planes planes (default 4,
4 MiB) is written by N ranks through h5py built for MPI (Debian: python3-h5py-mpi),
each rank writing its slab of planes collectively (parallel HDF5 applies filters
only in collective writes), then read back collectively, each rank its slab. Times
are wall clock between barriers, file create/open and close included; MB/s counts
10^6 bytes of raw data. Every read is checked equal to what was written. After a
small untimed warm-up, the median of --reps runs (default 3) is reported, with the
stored/raw ratio and the CPU seconds of the busiest rank (which show how the work
splits between ranks even on a machine busy with other jobs).

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2
    /usr/bin/python3 bench/bench_h5_mpi.py --plugin-dir build/h5plugin

Options: --ranks 1,2,4; --mb N; --chunk-planes N; --threads N (B2_H5_NTHREADS in
every rank, default 1); --dir DIR for the file (default $TMPDIR: a local disk;
the files stay in the page cache, so this measures HDF5, MPI-IO and the codecs,
not the disk); --json (one object per line). Needs mpirun (Open MPI runs get
--oversubscribe, --allow-run-as-root as root, and mpi_yield_when_idle unless set).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILTER_ID = 32026
# compression_opts = (0, blocksize, 0, 0, clevel, filter, codec): shuffle 1, lz4 1, zstd 5
CASES = [
    ("none", {}),
    ("gzip 4", dict(compression="gzip", compression_opts=4)),
    ("blosc2 lz4 5 + shuffle", dict(compression=FILTER_ID, compression_opts=(0, 0, 0, 0, 5, 1, 1))),
    ("blosc2 zstd 1 + shuffle", dict(compression=FILTER_ID, compression_opts=(0, 0, 0, 0, 1, 1, 5))),
]
NY = NX = 512


def planes(z0, z1, nz):
    """Planes z0..z1 of the field: the same values whichever rank makes them."""
    import numpy as np
    y = np.linspace(0.0, 4 * np.pi, NY, dtype=np.float32)[:, None]
    x = np.linspace(0.0, 6 * np.pi, NX, dtype=np.float32)[None, :]
    out = np.empty((z1 - z0, NY, NX), dtype=np.float32)
    for k in range(z0, z1):
        z = np.float32(k / max(nz - 1, 1))
        rng = np.random.default_rng(20240611 + k)
        out[k - z0] = (15.0 - 30.0 * z + 5.0 * np.sin(y + 2 * z) * np.cos(x)
                       + 2.0 * np.cos(0.5 * x - y) + rng.normal(0.0, 0.02, (NY, NX)).astype(np.float32))
    return out


def worker(args):
    """One rank: every case --reps times; rank 0 prints one RESULT line per case."""
    import h5py
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    if not h5py.get_config().mpi:
        if rank == 0:
            print("ERROR: h5py here is not built for MPI (Debian: python3-h5py-mpi)")
        return 1
    nz = args.mb  # 512 x 512 float32 planes are 1 MiB each
    z0, z1 = nz * rank // size, nz * (rank + 1) // size
    slab = planes(z0, z1, nz)
    raw = nz * NY * NX * 4
    path = os.path.join(args.dir, "bench_mpi.h5")
    ok = True
    for name, kw in CASES:
        tw, tr, cw, cr, stored = [], [], [], [], 0
        for rep in range(-1, args.reps):  # rep -1: a small untimed warm-up
            n = nz if rep >= 0 else args.chunk_planes * size
            a, b = n * rank // size, n * (rank + 1) // size
            comm.Barrier()
            t0, c0 = time.perf_counter(), time.process_time()
            with h5py.File(path, "w", driver="mpio", comm=comm) as f:
                ds = f.create_dataset("field", shape=(n, NY, NX), dtype="f4",
                                      chunks=(args.chunk_planes, NY, NX), **kw)
                with ds.collective:
                    ds[a:b] = slab[:b - a]
            c1 = time.process_time()
            comm.Barrier()
            t1 = time.perf_counter()
            with h5py.File(path, "r", driver="mpio", comm=comm) as f:
                ds = f["field"]
                with ds.collective:
                    back = ds[a:b]
                stored = ds.id.get_storage_size()
            c2 = time.process_time()
            comm.Barrier()
            t2 = time.perf_counter()
            ok = ok and np.array_equal(back, slab[:b - a])
            del back
            # CPU seconds of the busiest rank: how the work splits, whatever else runs
            cpu_w, cpu_r = comm.allreduce(c1 - c0, op=MPI.MAX), comm.allreduce(c2 - c1, op=MPI.MAX)
            if rep >= 0:
                tw.append(t1 - t0)
                tr.append(t2 - t1)
                cw.append(cpu_w)
                cr.append(cpu_r)
        ok = comm.allreduce(ok, op=MPI.LAND)
        if rank == 0:
            os.remove(path)
            print("RESULT " + json.dumps({
                "ranks": size, "case": name, "ratio": raw / stored, "mb": raw / 1e6,
                "write_mbs": raw / statistics.median(tw) / 1e6,
                "read_mbs": raw / statistics.median(tr) / 1e6, "identical": ok,
                "write_cpu_s": statistics.median(cw), "read_cpu_s": statistics.median(cr),
                "threads": int(os.environ.get("B2_H5_NTHREADS", "1"))}), flush=True)
    return 0 if ok else 1


def launcher(n):
    exe = shutil.which("mpirun") or shutil.which("mpiexec")
    if not exe:
        sys.exit("bench_h5_mpi: mpirun not found (Debian: openmpi-bin)")
    ver = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True).stdout
    cmd = [exe, "-np", str(n)]
    if "Open MPI" in ver or "OpenRTE" in ver:
        cmd.append("--oversubscribe")
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    return cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin-dir", default=os.path.join(REPO, "build", "h5plugin"))
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--mb", type=int, default=256)
    ap.add_argument("--chunk-planes", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.reps < 1 or args.mb < 1 or args.chunk_planes < 1:
        ap.error("--reps, --mb and --chunk-planes must be positive")
    if args.worker:
        return worker(args)

    plugin = os.path.abspath(args.plugin_dir)
    if not os.path.isfile(os.path.join(plugin, "libH5Zb2.so")):
        sys.exit("bench_h5_mpi: no libH5Zb2.so in %s (--plugin-dir)" % plugin)
    env = dict(os.environ, HDF5_PLUGIN_PATH=plugin, B2_H5_NTHREADS=str(args.threads))
    # Open MPI: a rank waiting in a collective yields its core (more ranks than cores,
    # other jobs on the machine) instead of spinning on it
    env.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    work = tempfile.mkdtemp(prefix="b2benchmpi_", dir=args.dir)
    rows = []
    try:
        for n in [int(r) for r in args.ranks.split(",")]:
            cmd = launcher(n) + [sys.executable, os.path.abspath(__file__), "--worker",
                                 "--mb", str(args.mb), "--chunk-planes", str(args.chunk_planes),
                                 "--reps", str(args.reps), "--dir", work]
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            got = [json.loads(line[7:]) for line in p.stdout.splitlines() if line.startswith("RESULT ")]
            if p.returncode != 0 or len(got) != len(CASES):
                print(p.stdout[-3000:])
                sys.exit("bench_h5_mpi: %d ranks failed (exit %d)" % (n, p.returncode))
            for r in got:
                if args.json:
                    print(json.dumps(r), flush=True)
            rows += got
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.json:
        print("float32 %d x %d x %d (%.0f MB), chunks of %d planes (%.0f MiB), B2_H5_NTHREADS=%d, "
              "%d CPU(s), median of %d" % (args.mb, NY, NX, rows[0]["mb"], args.chunk_planes,
                                           args.chunk_planes * NY * NX * 4 / 2**20, args.threads,
                                           os.cpu_count() or 0, args.reps))
        print()
        print("| compression | ranks | ratio | write MB/s | read MB/s | write CPU s | read CPU s |")
        print("|---|---|---|---|---|---|---|")
        for name, _ in CASES:
            for r in rows:
                if r["case"] == name:
                    print("| %s | %d | %.2f | %.0f | %.0f | %.2f | %.2f |" % (
                        name, r["ranks"], r["ratio"], r["write_mbs"], r["read_mbs"],
                        r["write_cpu_s"], r["read_cpu_s"]))
        print()
        print("CPU s: CPU time of the busiest rank (median): how the work splits between ranks")
        print("whatever else runs on the machine (MPI's polling while waiting counts too);")
        print("wall-clock MB/s also count waiting for cores.")
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""h5_parallel.py: h5_parallel.c from Python, with h5py built for MPI (Debian:
python3-h5py-mpi, which /usr/bin/python3's h5py picks when started by mpirun).

    HDF5_PLUGIN_PATH=/dir/of/libH5Zb2.so mpirun -np 4 python3 h5_parallel.py [path]

1. Every rank writes its slab of planes of a 3-D float32 array collectively
   (`with ds.collective:`; parallel HDF5 refuses independent writes through a
   filter). The slabs do not follow chunk boundaries: some chunks are shared.
2. The file is reopened in parallel and each rank reads the next rank's slab.
3. Rank 0 alone writes the same array serially into <path>.serial.h5, reads both
   files without MPI-IO and compares values and every stored chunk's bytes.
Prints "h5_parallel: OK" (rank 0) when every rank found everything equal.
Here the filter is zstd at clevel 1 with byte shuffle (h5_parallel.c: lz4 5).
"""
import os
import sys

import h5py
import numpy as np
from mpi4py import MPI

FILTER_ID = 32026
SHAPE = (30, 100, 128)
CHUNKS = (8, 50, 64)
# compression_opts = (0, blocksize, 0, 0, clevel, filter, codec): zstd 1, shuffle
OPTS = (0, 0, 0, 0, 1, 1, 5)


def values(z0, z1):
    """Planes z0..z1 of the array; exact in float32, as in h5_parallel.c."""
    z, y, x = np.ogrid[z0:z1, 0:SHAPE[1], 0:SHAPE[2]]
    return (z * 1000.0 + y * 8.0 + x * 0.25).astype(np.float32)


def first(r, n):
    """First plane of rank r's slab out of n ranks."""
    return SHAPE[0] * r // n


def create(f):
    return f.create_dataset("data", shape=SHAPE, dtype="<f4", chunks=CHUNKS,
                            compression=FILTER_ID, compression_opts=OPTS)


def same_chunks(a, b):
    """Every stored chunk of datasets a and b has the same offset, mask and bytes."""
    n = a.id.get_num_chunks()
    if n == 0 or n != b.id.get_num_chunks():
        return False
    for i in range(n):
        off = a.id.get_chunk_info(i).chunk_offset
        if a.id.read_direct_chunk(off) != b.id.read_direct_chunk(off):
            return False
    return True


def check_serially(path):
    spath = path + ".serial.h5"
    with h5py.File(spath, "w") as f:  # no driver: sec2, this process alone
        create(f)[...] = values(0, SHAPE[0])
    with h5py.File(path, "r") as fp, h5py.File(spath, "r") as fs:
        p, s = fp["data"], fs["data"]
        plist = p.id.get_create_plist()
        filters = [plist.get_filter(i) for i in range(plist.get_nfilters())]
        ok = [f[0] for f in filters] == [FILTER_ID] and tuple(filters[0][2][4:7]) == OPTS[4:7]
        if not ok:
            print("%s:/data does not carry filter %d with %s: %s" % (path, FILTER_ID, OPTS, filters))
        same = np.array_equal(p[...], values(0, SHAPE[0])) and np.array_equal(p[...], s[...])
        print("serial read: %s float32 %s the serial write; filter %d stores %d bytes for %d"
              % (SHAPE, "equal to" if same else "DIFFERENT from", FILTER_ID,
                 p.id.get_storage_size(), p.nbytes))
        chunks = same_chunks(p, s)
        print("the %d stored chunks are %s" % (p.id.get_num_chunks(),
              "byte for byte the serial write's" if chunks else "NOT the serial write's"))
        return ok and same and chunks


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    path = sys.argv[1] if len(sys.argv) > 1 else "h5_parallel_py.h5"
    if not h5py.get_config().mpi:
        if rank == 0:
            print("this h5py is not built for MPI (Debian: python3-h5py-mpi)", file=sys.stderr)
        return 1
    if not h5py.h5z.filter_avail(FILTER_ID):
        print("rank %d: filter %d not found: is libH5Zb2.so in HDF5_PLUGIN_PATH (%s)?"
              % (rank, FILTER_ID, os.environ.get("HDF5_PLUGIN_PATH", "unset")), file=sys.stderr)
        comm.Abort(1)
    if rank == 0:
        print("%d rank(s) write %s:/data, %s float32, planes split between ranks" % (size, path, SHAPE))

    z0, z1 = first(rank, size), first(rank + 1, size)
    with h5py.File(path, "w", driver="mpio", comm=comm) as f:
        ds = create(f)  # collective, like every metadata change
        with ds.collective:
            ds[z0:z1] = values(z0, z1)

    other = (rank + 1) % size
    o0, o1 = first(other, size), first(other + 1, size)
    with h5py.File(path, "r", driver="mpio", comm=comm) as f:
        ds = f["data"]
        with ds.collective:
            got = ds[o0:o1]
    ok = np.array_equal(got, values(o0, o1))
    if not ok:
        print("rank %d: rank %d's planes read back wrong" % (rank, other), file=sys.stderr)
    ok = comm.allreduce(ok, op=MPI.LAND)
    if ok and rank == 0:
        print("parallel read: every rank read the next rank's planes back exactly")
        ok = check_serially(path)
    ok = comm.bcast(ok, root=0)
    if rank == 0:
        print("h5_parallel: OK" if ok else "h5_parallel: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

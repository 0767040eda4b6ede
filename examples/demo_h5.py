# SPDX-License-Identifier: BSD-3-Clause
"""Demo of the HDF5 filter 32026 (libH5Zb2.so) through h5py.

Writes a deterministic, realistic 3-D float32 field (a smooth signal plus
measurement noise) into HDF5 with Blosc2 (our plugin), gzip level 4 and no
compression, all with the same chunking, plus Blosc1 (filter 32001, lz4 + shuffle)
when its plugin is installed (Debian: hdf5-filter-plugin-blosc-serial); reads each
dataset back, checks it is identical to the original, and prints ratio and
write/read speed as a table.

usage: python3 examples/demo_h5.py PLUGIN_DIR [--shape Z,Y,X] [--chunks Z,Y,X] [--dir TMP]
Run by `bash scripts/setup.sh demo`. Exit status 0 when every round trip is exact."""
import argparse
import os
import shutil
import sys
import tempfile
import time

FILTER_ID = 32026
BLOSC1_ID = 32001
# Where Blosc1's HDF5 plugin may be: Debian's package, then hdf5plugin's naming.
BLOSC1_DIRS = ["/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins",
               "/usr/lib/aarch64-linux-gnu/hdf5/serial/plugins"]
BLOSC1_NAMES = ("libH5Zblosc.so", "libh5blosc.so")
# compression_opts = (0, blocksize, 0, 0, clevel, filter, codec); see h5plugin/README.md
SHUFFLE = 1
LZ4, ZSTD = 1, 5


def parse_shape(text):
    return tuple(int(x) for x in text.split(","))


def make_field(shape):
    """Smooth 3-D field (two plane waves and a vertical gradient, like a
    temperature cube) plus Gaussian noise, float32, the same on every run."""
    import numpy as np
    nz, ny, nx = shape
    rng = np.random.default_rng(20240611)
    z = np.linspace(0.0, 1.0, nz, dtype=np.float32)[:, None, None]
    y = np.linspace(0.0, 4 * np.pi, ny, dtype=np.float32)[None, :, None]
    x = np.linspace(0.0, 6 * np.pi, nx, dtype=np.float32)[None, None, :]
    field = np.empty(shape, dtype=np.float32)
    for k in range(nz):  # slab by slab: keeps the temporaries small
        s = (15.0 - 30.0 * z[k] + 5.0 * np.sin(y[0] + 2 * z[k]) * np.cos(x[0])
             + 2.0 * np.cos(0.5 * x[0] - y[0]))
        field[k] = s + rng.normal(0.0, 0.02, (ny, nx)).astype(np.float32)
    return field


def blosc1_dir():
    """A directory holding a Blosc1 plugin (HDF5_PLUGIN_PATH entries first), or None."""
    dirs = [d for d in os.environ.get("HDF5_PLUGIN_PATH", "").split(":") if d] + BLOSC1_DIRS
    for d in dirs:
        if any(os.path.exists(os.path.join(d, n)) for n in BLOSC1_NAMES):
            return d
    return None


def run(h5py, np, path, data, chunks, kw):
    """Write data into a fresh file with the given create_dataset keywords and
    read it back. Returns (stored bytes, write s, read s, identical)."""
    t0 = time.perf_counter()
    with h5py.File(path, "w") as f:
        f.create_dataset("field", data=data, chunks=chunks, **kw)
    t1 = time.perf_counter()
    with h5py.File(path, "r") as f:
        ds = f["field"]
        back = np.empty(ds.shape, ds.dtype)
        t2 = time.perf_counter()
        ds.read_direct(back)
        t3 = time.perf_counter()
        stored = ds.id.get_storage_size()
    same = back.dtype == data.dtype and np.array_equal(back, data)
    return stored, t1 - t0, t3 - t2, same


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("plugin_dir", help="directory holding libH5Zb2.so")
    ap.add_argument("--shape", type=parse_shape, default=(128, 512, 512))
    ap.add_argument("--chunks", type=parse_shape, default=(16, 512, 512))
    ap.add_argument("--dir", default=None, help="where to put the temporary HDF5 files")
    args = ap.parse_args()

    # HDF5 reads the plugin path when it first needs a filter: set it before h5py loads HDF5.
    # Ours comes first so that no other 32026 plugin shadows it; Blosc1's dir after it
    # (HDF5 skips its default directory once HDF5_PLUGIN_PATH is set).
    b1dir = blosc1_dir()
    os.environ["HDF5_PLUGIN_PATH"] = ":".join([os.path.abspath(args.plugin_dir)] + ([b1dir] if b1dir else []))
    os.environ.setdefault("B2_H5_NTHREADS", str(os.cpu_count() or 1))
    os.environ.setdefault("BLOSC_NTHREADS", os.environ["B2_H5_NTHREADS"])  # Blosc1's
    import h5py
    import numpy as np
    if not h5py.h5z.filter_avail(FILTER_ID):
        print("demo: HDF5 could not load filter %d from %s" % (FILTER_ID, args.plugin_dir))
        return 1

    have_blosc1 = bool(b1dir) and h5py.h5z.filter_avail(BLOSC1_ID)

    t0 = time.perf_counter()
    data = make_field(args.shape)
    n = data.nbytes
    print("dataset: float32 %s = %.0f MiB, chunks %s (%.0f MiB each); generated in %.1f s; "
          "Blosc2 threads: %s%s" % ("x".join(map(str, args.shape)), n / 2**20,
                                    "x".join(map(str, args.chunks)),
                                    np.prod(args.chunks) * 4 / 2**20, time.perf_counter() - t0,
                                    os.environ["B2_H5_NTHREADS"],
                                    "; Blosc1 threads: %s" % os.environ["BLOSC_NTHREADS"]
                                    if have_blosc1 else ""))
    cases = [
        ("blosc2 zstd 5 + shuffle", dict(compression=FILTER_ID, compression_opts=(0, 0, 0, 0, 5, SHUFFLE, ZSTD))),
        ("blosc2 zstd 1 + shuffle", dict(compression=FILTER_ID, compression_opts=(0, 0, 0, 0, 1, SHUFFLE, ZSTD))),
        ("blosc2 lz4 5 + shuffle", dict(compression=FILTER_ID, compression_opts=(0, 0, 0, 0, 5, SHUFFLE, LZ4))),
    ]
    if have_blosc1:
        # Blosc1's cd_values: (version, version, typesize, chunk bytes, clevel, shuffle,
        # compcode); its set_local fills the first four. lz4 is compcode 1 there too.
        cases.append(("blosc1 lz4 5 + shuffle", dict(compression=BLOSC1_ID,
                                                      compression_opts=(0, 0, 0, 0, 5, SHUFFLE, LZ4))))
    cases += [
        ("gzip 4", dict(compression="gzip", compression_opts=4)),
        ("gzip 4 + HDF5 shuffle", dict(compression="gzip", compression_opts=4, shuffle=True)),
        ("none", {}),
    ]
    tmp = tempfile.mkdtemp(prefix="b2demo_", dir=args.dir)
    ok = True
    try:
        print()
        print("| %-26s | %6s | %11s | %11s | %9s |" % ("compression", "ratio", "write MB/s", "read MB/s", "identical"))
        print("|%s|%s|%s|%s|%s|" % ("-" * 28, "-" * 8, "-" * 13, "-" * 13, "-" * 11))
        for i, (name, kw) in enumerate(cases):
            path = os.path.join(tmp, "case%d.h5" % i)
            stored, tw, tr, same = run(h5py, np, path, data, args.chunks, kw)
            os.remove(path)
            ok = ok and same
            print("| %-26s | %6.2f | %11.0f | %11.0f | %9s |" % (
                name, n / stored, n / tw / 1e6, n / tr / 1e6, "yes" if same else "NO"))
            sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("MB/s = 10^6 bytes of raw data per second, whole-file write (incl. close) and full read.")
    if not ok:
        print("demo: a dataset did not read back identical")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

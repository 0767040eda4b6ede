# SPDX-License-Identifier: BSD-3-Clause
"""Registration picks h5py's HDF5 when other libhdf5 copies came first.

PyTables and netCDF4 wheels each bring their own libhdf5. This script imports
them first, then h5py and b2blosc, and checks that filter 32026 was registered
with, and runs in, the HDF5 that h5py uses:
  * at least two distinct libhdf5 files are loaded (else the case is not met);
  * b2blosc.get_config() names a libhdf5 of h5py's own tree (not tables' or
    netCDF4's) at h5py's HDF5 version;
  * a dataset written through h5py with b2blosc.Blosc2 has 32026 in its
    pipeline (dcpl.get_filter(0)), every chunk has filter_mask 0 and is smaller
    than its raw size (so 32026 ran, it was not skipped as optional), and its
    values read back through h5py ds[...] and b2blosc.h5.read(threads=2);
  * b2blosc.h5.write(threads=2) writes a second dataset that H5Dread returns;
  * a dataset of 375 small chunks (read whole through HDF5's H5Dread_chunk2 or
    H5Dread_chunk) reads the same through b2blosc.h5.read, 1 and 2 threads;
  * b2blosc.Blosc2.from_dataset reads the stored cd_values through h5py's
    library (_all_cd_values, via h5py's h5z module).
Exits 0 when every check passed, 1 when one failed, 2 when a peer is missing.

Run it in a virtual environment holding h5py, tables, netCDF4, numpy and
b2blosc (installed, or from the source tree:
  PYTHONPATH=python B2_H5_PLUGIN=build/h5plugin/libH5Zb2.so \\
      VENV/bin/python tests/peers/check_registration.py)."""
import os
import sys
import tempfile

failed = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        failed.append(what)


def hdf5_files():
    """Distinct libhdf5 files mapped in this process (not the _hl ones)."""
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.rsplit(None, 1)[-1]
            b = os.path.basename(p)
            if p.startswith("/") and b.startswith("libhdf5") and ".so" in b and "_hl" not in b \
                    and p not in out:
                out.append(p)
    return out


def write_and_read(np, h5py, b2blosc, bh):
    a = (np.arange(120 * 250, dtype="i4").reshape(120, 250) % 1000).astype("i4")
    comp = b2blosc.Blosc2(cname="zstd", clevel=5, filters=b2blosc.Blosc2.SHUFFLE)
    with tempfile.TemporaryDirectory(prefix="b2_check_registration_") as tmp:
        fn = os.path.join(tmp, "reg.h5")
        with h5py.File(fn, "w") as f:
            ds = f.create_dataset("d", data=a, chunks=(40, 100), compression=comp)
            f.create_dataset("w", shape=a.shape, dtype=a.dtype, chunks=(40, 100),
                             compression=comp)
            fid, _flags, vals, _name = ds.id.get_create_plist().get_filter(0)
            check(fid == 32026, "pipeline filter 0 is %d (want 32026), cd_values %r"
                  % (fid, vals))
            n = ds.id.get_num_chunks()
            infos = [ds.id.get_chunk_info(i) for i in range(n)]
            masks = [ci.filter_mask for ci in infos]
            check(n == 9 and masks == [0] * n, "all %d chunks have filter_mask 0: %r"
                  % (n, masks))
            raw = 40 * 100 * 4
            check(all(ci.size < raw for ci in infos),
                  "every chunk is stored compressed (sizes %r < %d)"
                  % ([ci.size for ci in infos], raw))
        with h5py.File(fn, "r+") as f:
            check(np.array_equal(f["d"][...], a), "h5py ds[...] returns the values")
            got = bh.read(f["d"], threads=2)
            check(np.array_equal(got, a), "b2blosc.h5.read(threads=2) returns the values")
            bh.write(f["w"], Ellipsis, a, threads=2)
            b = b2blosc.Blosc2.from_dataset(f["d"])
            check(b == comp, "Blosc2.from_dataset gives back %r (got %r)" % (comp, b))
            # 375 small chunks: the reader fetches them whole through HDF5
            # (H5Dread_chunk2 under HDF5 2.x, H5Dread_chunk before)
            m = (np.arange(400 * 600, dtype="f4") // 50).reshape(400, 600)
            f.create_dataset("m", data=m, chunks=(16, 40), compression=comp)
        with h5py.File(fn, "r") as f:
            for t in (1, 2):
                got = bh.read(f["m"], threads=t)
                part = bh.read(f["m"], (slice(3, 397), slice(5, 590)), threads=t)
                check(np.array_equal(got, f["m"][...]) and np.array_equal(part, m[3:397, 5:590]),
                      "375 small chunks: b2blosc.h5.read(threads=%d) equals H5Dread, whole and "
                      "a box" % t)
            w = f["w"]
            check(np.array_equal(w[...], a),
                  "H5Dread of what b2blosc.h5.write(threads=2) wrote returns the values")
            masks = [w.id.get_chunk_info(i).filter_mask for i in range(w.id.get_num_chunks())]
            check(masks == [0] * 9, "and its chunks went through 32026 (masks %r)" % masks)


def main():
    try:
        import tables  # noqa: F401  (its libhdf5 first)
        import netCDF4  # noqa: F401
        import numpy as np
        import h5py
    except ImportError as e:
        print("missing peer: %s (install tables, netCDF4, numpy and h5py)" % e)
        return 2
    import b2blosc
    import b2blosc.h5 as bh
    print("h5py %s (HDF5 %s), tables %s, netCDF4 %s (HDF5 %s)"
          % (h5py.__version__, h5py.version.hdf5_version, tables.__version__,
             netCDF4.__version__, netCDF4.__hdf5libversion__))
    libs = hdf5_files()
    print("libhdf5 files loaded:\n  " + "\n  ".join(libs))
    check(len(libs) >= 2, "%d distinct libhdf5 files are loaded (the case needs 2 or more)"
          % len(libs))
    cfg = b2blosc.get_config()
    print("b2blosc.get_config(): %r" % (cfg,))
    check(cfg["registered"] == "b2blosc", "b2blosc registered filter 32026 itself")
    lib = cfg.get("hdf5_library") and os.path.realpath(cfg["hdf5_library"])
    h5py_tree = os.path.dirname(os.path.dirname(os.path.realpath(h5py.__file__)))
    own = [p for p in libs if os.path.basename(os.path.dirname(p)).startswith("h5py")]
    check(lib in libs, "the registered library %s is one of those loaded" % lib)
    check(bool(own) and lib in own,
          "it is h5py's own copy (%s), not tables' or netCDF4's" % (own or "none found",))
    check(lib is not None and lib.startswith(h5py_tree), "it lies in h5py's tree %s" % h5py_tree)
    check(cfg.get("hdf5_version") == h5py.version.hdf5_version,
          "its version %s is h5py's %s" % (cfg.get("hdf5_version"), h5py.version.hdf5_version))

    try:
        write_and_read(np, h5py, b2blosc, bh)
    except Exception as e:  # a failure to write or read is a failed check, with its reason
        check(False, "writing and reading through filter 32026: %s: %s" % (type(e).__name__, e))
    print("%d check(s) failed" % len(failed) if failed else "all checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

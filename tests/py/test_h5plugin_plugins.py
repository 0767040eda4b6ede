# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 datasets whose chunks use the registered plugin filters and codecs.

  * Every b2nd plugin vector (ndcell, ndmean, ndlz, zfp, bytedelta, int_trunc:
    test_data/plugins/b2nd/, written by c-blosc2 3.3) is stored as the one chunk
    of a dataset with write_direct_chunk, the way hdf5plugin's tests store
    python-blosc2 frames; h5py reads it back through our plugin to the
    manifest's sha256, b2_h5_read_box reads boxes of it, and `b2 verify` checks
    the file.
  * Writing through the plugin, cd_values' codec slot takes the plugin codec
    ids, with the codec's meta byte in bits 8-15: ndlz (32, cells of 4 and 8)
    round-trips uint8 images exactly, zfp fixed accuracy / precision / rate
    (33..35) round-trip float data within their tolerance, and the chunks stored
    are b2nd frames with that codec id.
The reference plugin (../shared/bench/ref/libH5Zblosc2.so) is built without
c-blosc2's plugins, so it can neither write these nor read them: only this
direction is tested against the reference (its files are the vectors)."""
import hashlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
check = b2test.Checks()


def vectors():
    d = os.path.join(b2test.REPO, "test_data", "plugins")
    m = b2test.load_manifest(os.path.join(d, "manifest.json"))
    return d, [v for v in m["vectors"] if v["kind"] == "b2nd"]


def direct_chunks(tmp):
    d, vecs = vectors()
    path = os.path.join(tmp, "vectors.h5")
    with h5py.File(path, "w") as f:
        for v in vecs:
            arr = v["array"]
            shape = tuple(arr["shape"])
            ds = f.create_dataset(os.path.basename(v["id"]), shape=shape, dtype=np.dtype(arr["dtype"]),
                                  chunks=shape, compression=hc.FILTER_ID,
                                  compression_opts=(0, 0, 0, 0, 5, 1, 1))
            with open(os.path.join(d, v["path"]), "rb") as fh:
                ds.id.write_direct_chunk((0,) * len(shape), fh.read())
    b2test.use_source_package()
    os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
    import b2blosc.h5 as b2h5
    with h5py.File(path, "r") as f:
        for v in vecs:
            name = os.path.basename(v["id"])
            ds = f[name]
            got = np.ascontiguousarray(ds[...]).tobytes()
            ok = hashlib.sha256(got).hexdigest() == v["expected"]["sha256"]
            check(ok, "%s (%s, %s): h5py reads the reference's frame through our plugin" % (
                name, v["params"]["codec"], "+".join(n for n in v["params"]["filters_names"] if n != "none")))
            full = np.frombuffer(got, dtype=ds.dtype).reshape(ds.shape)
            key = tuple(slice(n // 3, n // 3 + max(1, n // 4)) for n in ds.shape)
            part, rep = b2h5.read_slice(ds, key, report=True)
            check(np.array_equal(part, full[key]) and rep["path"] == "direct",
                  "%s: a box read by blocks (%s)" % (name, rep["path"]))
    p = b2test.run_b2(["verify", path])
    check(p.returncode == 0, "b2 verify %s: %s" % (os.path.basename(path), p.stdout.decode().strip()))
    return len(vecs)


def write_through_plugin(tmp):
    path = os.path.join(tmp, "written.h5")
    rng = np.random.default_rng(5)
    y, x = np.mgrid[0:96, 0:128]
    img = ((x // 8 + y // 8) % 7 * 30).astype(np.uint8)
    field = (np.sin(x / 20.0) * np.cos(y / 15.0) * 10).astype(np.float64)
    # codec slot: id | meta << 8 (zfp_acc meta -2: tolerance 1e-2; zfp_prec 20: 27
    # bit planes; zfp_rate 50: half the bits; ndlz meta 0 means cells of 4)
    cases = [("ndlz", 32, img, 0.0), ("ndlz8", 32 | 8 << 8, img, 0.0),
             ("zfp_acc", 33 | 0xFE << 8, field, 1e-2), ("zfp_prec", 34 | 20 << 8, field, 1e-3),
             ("zfp_rate", 35 | 50 << 8, field, 1e-3),
             ("zfp_acc_f4", 33 | 0xFE << 8, field.astype(np.float32), 1e-2)]
    with h5py.File(path, "w") as f:
        for name, cid, data, _ in cases:
            f.create_dataset(name, data=data, chunks=(48, 64), compression=hc.FILTER_ID,
                             compression_opts=(0, 0, 0, 0, 5, 0, cid))
    with h5py.File(path, "r") as f:
        for name, cid, data, tol in cases:
            ds = f[name]
            got = ds[...]
            err = float(np.max(np.abs(got.astype(np.float64) - data.astype(np.float64))))
            raw = ds.id.read_direct_chunk((0, 0))[1]
            hl = int.from_bytes(raw[11:15], "big") if hc.frame_len(raw) else 0
            # the frame header records a plugin codec as codec flags 6 (user) and its id
            codec_ok = hc.is_b2nd_frame(raw) and raw[hl + 22] == cid & 0xff if hl else False
            check(err <= tol and codec_ok and ds.id.get_storage_size() < data.nbytes,
                  "%s through the plugin: max error %.3g (<= %g), chunk codec id %s, %d of %d bytes"
                  % (name, err, tol, raw[hl + 22] if hl else "?", ds.id.get_storage_size(), data.nbytes))
    p = b2test.run_b2(["verify", path])
    check(p.returncode == 0, "b2 verify of the written file: %s" % p.stdout.decode().strip())


def main():
    tmp = b2test.scratch_dir("b2h5plugins_")
    n = direct_chunks(tmp)
    write_through_plugin(tmp)
    print("%d plugin vectors as HDF5 chunks; %d checks, %d failed" % (n, check.count, len(check.failures)))
    return 1 if check.failures else 0


sys.exit(main())

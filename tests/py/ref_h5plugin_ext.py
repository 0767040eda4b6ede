# SPDX-License-Identifier: BSD-3-Clause
"""The extra cd_values (filters, block shape, use_dict after the chunk dims,
h5plugin/h5params.h) against the reference plugin ../shared/bench/ref/
libH5Zblosc2.so (c-blosc2 3.3 without its plugins). Registered only when
configure finds it (tests/CMakeLists.txt), with B2_REF_DIR naming its folder.

  * Datasets written through our plugin with only core codecs and filters and
    any block shape and use_dict (ranks 2, 3 and 16) read back through the
    reference, in another process, exactly as through ours.
  * A dataset whose extra values name a plugin filter (bytedelta) fails to read
    through the reference: only readers with c-blosc2's plugins read it.
  * h5repack through the reference, re-chunking, drops the extra values (its
    set_local ends the list at the chunk dims); through ours it keeps them.
  * h5py's get_filter reports every value but only the first 16 are real."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hashlib  # noqa: E402

import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
check = b2test.Checks()
REF = os.environ.get("B2_REF_DIR") or os.path.join(b2test.REPO, "..", "shared", "bench", "ref")
if not os.path.isfile(os.path.join(REF, "libH5Zblosc2.so")):
    b2test.skip("reference plugin not found in %s" % REF)

MARKER = 0x42324E44


def ext(filters, meta=(0,) * 6, use_dict=0, blockshape=()):
    """The extra values as a user passes them (after the codec slot)."""
    words = [(filters[2 * k] | meta[2 * k] << 8 | filters[2 * k + 1] << 16 | meta[2 * k + 1] << 24)
             for k in range(3)]
    vals = words + [use_dict] + list(blockshape)
    return [MARKER, 1, len(vals)] + vals


def cases():
    y, x = np.mgrid[0:120, 0:200]
    field = (np.sin(x / 17.0) * np.cos(y / 11.0) * 100).astype(np.float32)
    ramp3 = np.arange(12 * 30 * 40, dtype=np.int32).reshape(12, 30, 40)
    r16 = np.arange(2 ** 11 * 3, dtype=np.int16).reshape((1,) * 12 + (2, 4, 8, 96))
    # name, data, chunks, clevel, codec, extra values, lossy
    return [
        ("lz4_delta_shuffle_block", field, (50, 100), 5, 1, ext((0, 0, 0, 0, 3, 1), blockshape=(10, 25)), False),
        ("zstd_dict_bitshuffle", ramp3, (6, 16, 40), 3, 5, ext((0, 0, 0, 0, 0, 2), use_dict=1), False),
        ("lz4hc_dict_block_rows", field, (60, 200), 9, 2, ext((0, 0, 0, 0, 0, 1), use_dict=1, blockshape=(1, 200)), False),
        ("zlib_odd_block", field, (50, 100), 4, 4, ext((0, 0, 0, 0, 1, 3), blockshape=(7, 13)), False),
        ("zlib_1_bitshuffle", field, (60, 200), 1, 4, ext((0, 0, 0, 0, 0, 2)), False),
        ("zlib_9_shuffle", ramp3, (6, 30, 40), 9, 4, ext((0, 0, 0, 0, 0, 1)), False),
        ("trunc_prec_shuffle", field, (40, 64), 5, 0, ext((0, 0, 0, 0, 4, 1), meta=(0, 0, 0, 0, 12, 0)), True),
        ("rank16_block", r16, (1,) * 12 + (2, 4, 8, 32), 5, 5,
         ext((0,) * 5 + (1,), use_dict=1, blockshape=(1,) * 12 + (1, 2, 8, 16)), False),
    ]


read_with = hc.read_with


def main():
    tmp = os.environ.get("B2_KEEP_TMP") or b2test.scratch_dir("ref_h5ext_")
    path = os.path.join(tmp, "ext.h5")
    ours = {}
    with h5py.File(path, "w") as f:
        for name, data, chunks, clevel, codec, extra, _lossy in cases():
            opts = (0, 0, 0, 0, clevel, 1, codec) + tuple(extra)
            ds = f.create_dataset(name, data=data, chunks=chunks, compression=hc.FILTER_ID,
                                  compression_opts=opts)
            vals = ds.id.get_create_plist().get_filter(0)[2]
            rank = len(chunks)
            want = 8 + rank + len(extra)
            check(len(vals) == want and vals[7] == rank and
                  (8 + rank >= 16 or vals[8 + rank] == MARKER),
                  "%s: %d stored values (want %d; the extra values after the dims)" % (name, len(vals), want))
        # a plugin filter: readers without c-blosc2's plugins cannot read it
        f.create_dataset("bytedelta", data=np.arange(100 * 100, dtype=np.int32).reshape(100, 100),
                         chunks=(50, 50), compression=hc.FILTER_ID,
                         compression_opts=(0, 0, 0, 0, 5, 1, 1) + tuple(ext((0, 0, 0, 0, 1, 35), meta=(0,) * 5 + (4,))))
    with h5py.File(path, "r") as f:
        for name, data, *_r, lossy in cases():
            got = f[name][()]
            ours[name] = hashlib.sha256(np.ascontiguousarray(got).tobytes()).hexdigest()
            if lossy:
                check(np.allclose(got, data, rtol=1e-3, atol=1e-2), "%s: our read (lossy)" % name)
            else:
                check(np.array_equal(got, data), "%s: our read" % name)
        check(np.array_equal(f["bytedelta"][()], np.arange(100 * 100, dtype=np.int32).reshape(100, 100)),
              "bytedelta: our read")
    ref = read_with(REF, path)
    for name in ours:
        check(ref.get(name) == ours[name], "%s: the reference reads %s" % (name, ref.get(name, ref)))
    check(str(ref.get("bytedelta", "")).startswith("error"),
          "bytedelta: the reference, without c-blosc2's plugins, cannot read it (%s)" % ref.get("bytedelta"))

    # h5py's get_filter: the count is every value's, the values past 16 are not
    with h5py.File(path, "r") as f:
        vals = f["rank16_block"].id.get_create_plist().get_filter(0)[2]
        check(len(vals) == 8 + 16 + 3 + 4 + 16 and vals[:8] == (1, 0, 2, 2 * 4 * 8 * 32 * 2, 5, 1, 5, 16),
              "h5py get_filter on 47 values: %d values, first 8 %s" % (len(vals), vals[:8]))

    # h5repack, re-chunking: through the reference the extra values are dropped
    # (and the data still reads), through ours they are kept
    # (a file of its own: with the bytedelta dataset beside it, h5repack -l
    # through the reference fails)
    one = os.path.join(tmp, "one.h5")
    name, data, chunks, clevel, codec, extra, _lossy = cases()[0]
    with h5py.File(one, "w") as f:
        f.create_dataset(name, data=data, chunks=chunks, compression=hc.FILTER_ID,
                         compression_opts=(0, 0, 0, 0, clevel, 1, codec) + tuple(extra))
    env = b2test.clean_env()
    # in a sanitizer build our plugin needs the ASan runtime preloaded, with which
    # h5repack hangs at exit (scripts/setup.sh, ASAN_EXCLUDE): the reference only
    runs = ((REF, False),) if os.environ.get("B2_SANITIZED") else ((REF, False), (PDIR, True))
    for plugin, keeps in runs:
        out = os.path.join(tmp, "repack_%s.h5" % ("ours" if keeps else "ref"))
        env["HDF5_PLUGIN_PATH"] = plugin
        p = subprocess.run(["h5repack", "-l", "/lz4_delta_shuffle_block:CHUNK=25x50", one, out],
                           env=env, capture_output=True, timeout=300)
        if p.returncode != 0:
            check(False, "h5repack with %s: %s" % (plugin, p.stderr.decode()[-300:]))
            continue
        with h5py.File(out, "r") as f:
            ds = f["lz4_delta_shuffle_block"]
            vals = ds.id.get_create_plist().get_filter(0)[2]
            check((len(vals) > 10) == keeps,
                  "h5repack -l through %s: %d values stored (%s)" % ("ours" if keeps else "the reference", len(vals),
                                                                    "kept" if keeps else "dropped"))
            check(hashlib.sha256(np.ascontiguousarray(ds[()]).tobytes()).hexdigest() == ours["lz4_delta_shuffle_block"],
                  "h5repack -l: data")
    print("%d checks, %d failures" % (check.count, len(check.failures)))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())

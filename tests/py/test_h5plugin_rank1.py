# SPDX-License-Identifier: BSD-3-Clause
"""Both rank-1 layouts of filter 32026 (doc/format/hdf5-filter.md §2a), issue 37.

Reading: test_data/hdf5/h6_rank1_hdf5plugin.h5 (hdf5plugin 7.1.0: the classic
seven cd_values, plain frames) and h7_rank1_b2nd.h5 (HDF5-Blosc2 2.0's layout:
[2, .., 1, chunk length], 1-D b2nd frames; test_data/hdf5/README.md) through our
plugin under h5py, b2blosc.h5.read(threads=2) and `b2 slice`, each value equal
to value_of() below. Every dataset rewritten in place with its stored cd_values
gives the peer's chunk bytes, except chunks our optional filter stores raw.

Writing: Blosc2() on a 1-D dataset keeps the classic values (every reader takes
them); Blosc2(checksums=True) and the other extra values, and cd_values with 1
in slot 7, give the one-dimensional layout, whose chunks are 1-D b2nd frames.
The reference plugin (c-blosc2 3.3 era, subprocess) reads the classic layout
and refuses the other: that is why the classic one stays the default."""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
b2test.use_source_package()
os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
import b2blosc  # noqa: E402
import b2blosc.h5 as b2h5  # noqa: E402

check = b2test.Checks()
DATA = os.path.join(b2test.REPO, "test_data", "hdf5")
REF = os.environ.get("B2_REF_DIR") or os.path.join(b2test.REPO, "..", "shared", "bench", "ref")
HAVE_REF = b2test.ref_usable(REF)
CODECS = {"blosclz": 0, "lz4": 1, "zstd": 5}
FILTERS = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}
MARKER = 0x42324E44


def value_of(dtype, n):
    """The values every vector dataset holds (exact in every type)."""
    i = np.arange(n, dtype=np.int64)
    if np.dtype(dtype).kind == "f":
        return (((i * 13) % 1000) * 0.125 - 50.0).astype(dtype)
    return (((i // 3) * 13) % 120 + i % 5).astype(dtype)


def cd_of(ds):
    return list(ds.id.get_create_plist().get_filter(0)[2])


def chunk_raw(ds, i):
    return ds.id.read_direct_chunk(ds.id.get_chunk_info(i).chunk_offset)


def expected_cd(name, ds, layout_1d):
    """cd_values the writer stores for the dataset named name."""
    m = re.match(r"r1_(\w+?)_(\w+?)_(\d)_(\w+)$", name)
    if m:
        dt, codec, clevel, flt = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        user = [clevel, FILTERS[flt], CODECS[codec]]
    else:  # r1_f4_no_values: the filter's defaults where it fills them
        dt, user = "f4", [5, 1, 0] if layout_1d else []
    chunk = ds.chunks[0]
    cd = [2 if layout_1d else 1, 0, np.dtype(dt).itemsize, chunk * np.dtype(dt).itemsize] + user
    return (cd + [1, chunk]) if layout_1d else cd, dt


def read_vectors():
    nds = 0
    for fn, layout_1d in (("h6_rank1_hdf5plugin.h5", False), ("h7_rank1_b2nd.h5", True)):
        path = os.path.join(DATA, fn)
        with h5py.File(path, "r") as f:
            names = sorted(f)
            check(len(names) == 10, "%s: %d datasets" % (fn, len(names)))
            for k in names:
                ds = f[k]
                nds += 1
                tag = "%s:%s" % (fn, k)
                want_cd, dt = expected_cd(k, ds, layout_1d)
                check(cd_of(ds) == want_cd, "%s: cd_values %s, expected %s" % (tag, cd_of(ds), want_cd))
                want = value_of(dt, ds.shape[0])
                check(ds.dtype == want.dtype, "%s: dtype %s" % (tag, ds.dtype))
                try:
                    got = ds[()]
                    check(got.tobytes() == want.tobytes(), "%s: h5py values differ" % tag)
                except OSError as e:
                    check(False, "%s: h5py read failed: %s" % (tag, e))
                got, rep = b2h5.read(ds, threads=2, report=True)
                check(got.tobytes() == want.tobytes(), "%s: b2blosc.h5.read values differ (%s)"
                      % (tag, rep.get("path")))
                got = b2h5.read(ds, np.s_[17:ds.shape[0] - 5], threads=2)
                check(got.tobytes() == want[17:-5].tobytes(), "%s: b2blosc.h5.read box" % tag)
                for i in range(ds.id.get_num_chunks()):
                    mask, raw = chunk_raw(ds, i)
                    if mask:  # no user values in the classic layout: stored raw
                        check(not layout_1d and k == "r1_f4_no_values", "%s chunk %d raw" % (tag, i))
                        continue
                    check(hc.frame_len(raw) == len(raw) and hc.is_b2nd_frame(raw) == layout_1d,
                          "%s chunk %d: b2nd frame %s" % (tag, i, hc.is_b2nd_frame(raw)))
        r = b2test.run_b2(["slice", path + ":/r1_f8_lz4_9_bitshuffle", "3:1690"])
        check(r.returncode == 0 and r.stdout == value_of("f8", 1700)[3:1690].tobytes(),
              "%s: b2 slice (exit %d, %r)" % (fn, r.returncode, r.stderr[:200]))
        r = b2test.run_b2(["info", "--json", path + ":/r1_u2_zstd_9_bitshuffle"])
        p = json.loads(r.stdout)["datasets"][0]["blosc2_params"] if r.returncode == 0 else {}
        check(p.get("revision") == (2 if layout_1d else 1) and
              p.get("rank", 0) == (1 if layout_1d else 0) and
              p.get("chunkshape", []) == ([700] if layout_1d else []),
              "%s: b2 info params %s" % (fn, p))
        r = b2test.run_b2(["verify", path])
        check(r.returncode == 0 and b"10 Blosc2 datasets" in r.stdout, "%s: b2 verify %r" % (fn, r.stdout))
    return nds


def rewrite(tmp):
    """Each vector dataset rewritten through our filter with its stored cd_values."""
    same = raw = 0
    for fn in ("h6_rank1_hdf5plugin.h5", "h7_rank1_b2nd.h5"):
        path = os.path.join(tmp, fn)
        shutil.copy(os.path.join(DATA, fn), path)
        with h5py.File(path, "a") as f:
            for k in sorted(f):
                ds = f[k]
                n = ds.id.get_num_chunks()
                old = [chunk_raw(ds, i) for i in range(n)]
                data = ds[()]
                ds[...] = data
                f.flush()
                check(ds[()].tobytes() == data.tobytes(), "%s:%s rewritten: values" % (fn, k))
                for i in range(n):
                    new = chunk_raw(ds, i)
                    if new == old[i]:
                        same += 1
                    elif new[0] == 1:
                        raw += 1  # never: every chunk is a frame, as the peers store it
                        check(False, "%s:%s chunk %d stored raw" % (fn, k, i))
                    else:
                        check(False, "%s:%s chunk %d differs from the peer's (mask %d/%d, %d/%d "
                              "bytes)" % (fn, k, i, old[i][0], new[0], len(old[i][1]), len(new[1])))
    print("rewritten chunks: %d byte-identical to the peers', %d stored raw by us" % (same, raw))
    check(same >= 50, "%d byte-identical chunks" % same)


def write(tmp):
    path = os.path.join(tmp, "ours.h5")
    a = value_of("i4", 5000)
    with h5py.File(path, "w") as f:
        f.create_dataset("classic", data=a, chunks=(1024,), **b2blosc.Blosc2(cname="zstd"))
        f.create_dataset("sums", data=a, chunks=(1024,),
                         **b2blosc.Blosc2(cname="lz4", checksums=True))
        f.create_dataset("blocks", data=a, chunks=(1024,),
                         **b2blosc.Blosc2(cname="zstd", blockshape=(256,), use_dict=True))
        f.create_dataset("asked", data=a, chunks=(1024,), compression=32026,
                         compression_opts=(0, 0, 0, 0, 5, 1, 5, 1))
    with h5py.File(path, "r") as f:
        check(cd_of(f["classic"]) == [1, 0, 4, 4096, 5, 1, 5], "Blosc2() 1-D: %s" % cd_of(f["classic"]))
        check(cd_of(f["asked"]) == [2, 0, 4, 4096, 5, 1, 5, 1, 1024], "asked: %s" % cd_of(f["asked"]))
        cd = cd_of(f["sums"])
        check(cd[:12] == [2, 0, 4, 4096, 5, 1, 1, 1, 1024, MARKER, 1, 4] and cd[15] == 2,
              "checksums 1-D: %s" % cd)
        check(b2blosc.Blosc2.from_dataset(f["sums"]).get_config().get("checksums") is True,
              "from_dataset: checksums")
        check(b2blosc.Blosc2.from_dataset(f["blocks"]).get_config().get("blockshape") == (256,),
              "from_dataset: blockshape %s" % b2blosc.Blosc2.from_dataset(f["blocks"]).get_config())
        for k in ("classic", "sums", "blocks", "asked"):
            ds = f[k]
            check(ds[()].tobytes() == a.tobytes(), "%s: values" % k)
            check(b2h5.read(ds, threads=2).tobytes() == a.tobytes(), "%s: b2blosc.h5.read" % k)
            for i in range(ds.id.get_num_chunks()):
                mask, raw = chunk_raw(ds, i)
                check(mask == 0 and hc.is_b2nd_frame(raw) == (k != "classic"),
                      "%s chunk %d: mask %d, b2nd %s" % (k, i, mask, hc.is_b2nd_frame(raw)))
                if k == "sums":
                    check(b"b2.checksums" in raw, "sums chunk %d holds its checksums" % i)
    # a damaged checksummed 1-D chunk fails to read through our plugin
    with h5py.File(path, "a") as f:
        ds = f["sums"]
        mask, raw = chunk_raw(ds, 1)
        bad = bytearray(raw)
        hl = int.from_bytes(raw[11:15], "big")
        bad[hl + 40] ^= 0x10  # inside the chunk's first block
        ds.id.write_direct_chunk((1024,), bytes(bad), mask)
    with h5py.File(path, "r") as f:
        try:
            f["sums"][()]
            check(False, "a damaged checksummed chunk read without an error")
        except OSError as e:
            check("checksum" in str(e) or "decompression failed" in str(e), "damaged: %s" % e)
    if not HAVE_REF:
        print("SKIP (reference readers): libH5Zblosc2.so not found in %s" % REF)
        return
    ref = hc.read_with(REF, path)
    print("the reference plugin on our layouts: %s" % ref)
    check(ref.get("classic") == hc.sha256(a.tobytes()), "the reference reads the classic layout")
    for k in ("asked", "blocks"):
        check(str(ref.get(k, "")).startswith("error") and "too small" in str(ref.get(k)),
              "the reference refuses the one-dimensional layout (%s): %s" % (k, ref.get(k)))
    ref = hc.read_with(REF, os.path.join(DATA, "h6_rank1_hdf5plugin.h5"))
    check(all(len(str(v)) == 64 for v in ref.values()) and len(ref) == 10,
          "the reference reads h6: %s" % ref)


def main():
    tmp = b2test.scratch_dir("h5rank1_")
    nds = read_vectors()
    rewrite(tmp)
    write(tmp)
    print("%d vector datasets; %d checks, %d failures" % (nds, check.count, len(check.failures)))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())

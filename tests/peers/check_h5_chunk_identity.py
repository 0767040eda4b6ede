# SPDX-License-Identifier: BSD-3-Clause
"""Our stored chunks against hdf5plugin 7.1's, byte for byte (issue 37, 2.2).

check_h5_chunk_identity.py [WORK]: three phases, each in its own process:
  hp:   `import hdf5plugin` writes the grid with hdf5plugin.Blosc2(**kw);
  ours: `import b2blosc` (hdf5plugin never imported) writes the same data with
        b2blosc.Blosc2(**kw), the same keywords;
  cmp:  neither imported, no filter on HDF5_PLUGIN_PATH: every chunk of both
        files through ds.id.read_direct_chunk, compared byte for byte.
Grid: ranks 1-4 (edge chunks), cnames blosclz/lz4/lz4hc/zlib/zstd, filters
none/shuffle/bitshuffle, clevels 0/1/5/9, dtypes uint8/int32/float64, and
compressible and random data. Every differing chunk pair is classed by the
first place it differs (filter mask, frame header, chunk header field, codec
streams, frame trailer) and the counts are printed per class. Identity is
asserted where the codec cannot be the reason: blosclz (the same code in
both), clevel 0 (no codec runs), and lz4 (1.9.4 and 1.10 agree, found here)."""
import itertools
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

CNAMES = ("blosclz", "lz4", "lz4hc", "zlib", "zstd")
FILTERS = {"none": 0, "shuffle": 1, "bitshuffle": 2}
CLEVELS = (0, 1, 5, 9)
DTYPES = ("uint8", "int32", "float64")
KINDS = ("ramp", "random")
# (shape, chunks): edge chunks in every dimension; chunks of several blocks
SHAPES = {1: ((25007,), (10000,)), 2: ((150, 170), (64, 80)),
          3: ((40, 30, 20), (16, 12, 20)), 4: ((9, 10, 11, 12), (4, 5, 6, 7))}
# Blosc2 chunk header fields (doc/format/chunk.md), offsets in the chunk
FIELDS = ((0, 1, "version"), (1, 2, "versionlz"), (2, 3, "flags"), (3, 4, "typesize"),
          (4, 8, "nbytes"), (8, 12, "blocksize"), (12, 16, "cbytes"), (16, 22, "filters"),
          (22, 23, "compcode"), (23, 24, "compcode_meta"), (24, 30, "filters_meta"),
          (30, 31, "flags2"), (31, 32, "blosc2_flags"))


def grid():
    for rank, cn, fl, cl, dt, kind in itertools.product(SHAPES, CNAMES, FILTERS, CLEVELS,
                                                        DTYPES, KINDS):
        yield "r%d_%s_%s_c%d_%s_%s" % (rank, cn, fl, cl, dt, kind), rank, cn, fl, cl, dt, kind


def data_of(name, rank, dt, kind, seed):
    shape = SHAPES[rank][0]
    if kind == "ramp":
        return pc.make_data(shape, dt, seed)
    n = int(np.prod(shape)) * np.dtype(dt).itemsize
    raw = np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
    return raw.view(dt).reshape(shape)


def write(work, who):
    import h5py
    if who == "hp":
        import hdf5plugin
        B = hdf5plugin.Blosc2
        assert "b2blosc" not in sys.modules
    else:
        import b2blosc
        assert "hdf5plugin" not in sys.modules
        assert b2blosc.get_config().get("registered") == "b2blosc", b2blosc.get_config()
        B = b2blosc.Blosc2
    n = 0
    with h5py.File(os.path.join(work, who + ".h5"), "w") as f:
        for seed, (name, rank, cn, fl, cl, dt, kind) in enumerate(grid()):
            data = data_of(name, rank, dt, kind, seed)
            ds = f.create_dataset(name, data=data, chunks=SHAPES[rank][1],
                                  **B(cname=cn, clevel=cl, filters=FILTERS[fl]))
            assert ds[...].tobytes() == data.tobytes(), "%s: %s reads back other values" % (who, name)
            n += 1
    print("%s wrote %d datasets (HDF5 %s)" % (who, n, h5py.version.hdf5_version))
    return 0


def frame_parts(b):
    """(header, chunk, trailer) of a one-chunk frame (doc/format/frame.md)."""
    hl = int.from_bytes(b[11:15], "big")
    cb = int.from_bytes(b[hl + 12:hl + 16], "little") if len(b) >= hl + 16 else 0
    return b[:hl], b[hl:hl + cb], b[hl + cb:]


def diff_class(a, b, cname, clevel):
    """Why two stored chunks differ: the chunk first (a frame header differing
    only follows from another chunk size), then the frame around it."""
    ha, ca, ta = frame_parts(a)
    hb, cb, tb = frame_parts(b)
    fields = [nm for lo, hi, nm in FIELDS if ca[lo:hi] != cb[lo:hi] and nm != "cbytes"]
    if fields:
        return "chunk header " + "+".join(fields)
    if ca != cb:
        kind = "memcpy" if ca[2] & 0x2 else "streams"
        return "%s %s, %s" % (cname, kind, "other sizes" if len(ca) != len(cb) else "same sizes")
    if ha != hb:
        diffs = [i for i in range(min(len(ha), len(hb))) if ha[i] != hb[i]]
        return "frame header (bytes %s)" % (diffs[:1] or "length")
    return "frame trailer"


def must_match(cname, clevel, kind, hp_chunk):
    """Where the codec cannot be why chunks differ: the same blosclz code in
    both, clevel 0 (no codec runs); and lz4, whose 1.9.4 (Debian's, ours) and
    1.10 (hdf5plugin's) fast compressors give the same bytes here (found so:
    3240 of 3240 chunks identical in both envs)."""
    return cname in ("blosclz", "lz4") or clevel == 0


def compare(work):
    assert "hdf5plugin" not in sys.modules and "b2blosc" not in sys.modules
    import h5py
    t = pc.Tally("chunk identity, hdf5plugin 7.1 vs ours (HDF5 %s)" % h5py.version.hdf5_version)
    table = {}   # (cname, filter, rank, clevel) -> [same, different]
    reasons = {}  # reason -> count
    examples = {}
    with h5py.File(os.path.join(work, "hp.h5"), "r") as fh, \
            h5py.File(os.path.join(work, "ours.h5"), "r") as fo:
        for name, rank, cn, fl, cl, dt, kind in grid():
            dh, do = fh[name], fo[name]
            cdh, cdo = pc.dataset_cd_values(dh), pc.dataset_cd_values(do)
            t.check(cdh == cdo, "cd_values equal", "%s: %s vs ours %s" % (name, cdh, cdo))
            shape, chunks = SHAPES[rank]
            for off in itertools.product(*[range(0, s, c) for s, c in zip(shape, chunks)]):
                mh, bh = dh.id.read_direct_chunk(off)
                mo, bo = do.id.read_direct_chunk(off)
                t.check(mh == 0 and mo == 0, "both store frames (mask 0)",
                        "%s %s: masks %d/%d" % (name, off, mh, mo))
                same = mh == mo and bh == bo
                row = table.setdefault((cn, fl, rank, cl), [0, 0])
                row[0 if same else 1] += 1
                if not same:
                    why = "mask" if mh != mo else diff_class(bh, bo, cn, cl)
                    reasons[why] = reasons.get(why, 0) + 1
                    examples.setdefault(why, "%s %s" % (name, off))
                if must_match(cn, cl, kind, bh):
                    t.check(same, "identical: blosclz, lz4 or clevel 0",
                            "%s %s differs: %s" % (name, off, why if not same else ""))
                else:
                    t.check(True, "compared, codec may differ (%s)" % cn)
    print("\nper cname, filter, rank, clevel: identical / different chunks")
    for (cn, fl, rank, cl), (s, d) in sorted(table.items()):
        print("  %-8s %-10s rank %d clevel %d  %4d / %4d" % (cn, fl, rank, cl, s, d))
    for cn in CNAMES:
        s = sum(v[0] for k, v in table.items() if k[0] == cn)
        d = sum(v[1] for k, v in table.items() if k[0] == cn)
        print("TOTAL %-8s identical %5d different %5d" % (cn, s, d))
    print("\nwhy chunks differ (count, first example):")
    for why, n in sorted(reasons.items(), key=lambda x: -x[1]):
        print("  %6d  %-50s %s" % (n, why, examples[why]))
    tot = sum(v[0] + v[1] for v in table.values())
    t.check(tot > 0, "chunks compared", "none")
    print("compared %d chunk pairs" % tot)
    return t.summary()


def main():
    if len(sys.argv) == 3 and sys.argv[1] in ("hp", "ours"):
        return write(sys.argv[2], sys.argv[1])
    if len(sys.argv) == 3 and sys.argv[1] == "cmp":
        return compare(sys.argv[2])
    work = sys.argv[1] if len(sys.argv) > 1 else pc.work_dir("peers_h5_chunk_identity_")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = pc.clean_env(HDF5_PLUGIN_PATH=pc.empty_plugin_dir(work))
    print("work folder %s" % work)
    for phase in ("hp", "ours"):
        if pc.run_phase(__file__, phase, work, env):
            return 1
    return 1 if pc.run_phase(__file__, "cmp", work, env) else 0


if __name__ == "__main__":
    sys.exit(main())

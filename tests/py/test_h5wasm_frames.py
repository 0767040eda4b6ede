# SPDX-License-Identifier: BSD-3-Clause
"""Our frames as HDF5 chunks, read by the reference filter (h5wasm-plugins'
Blosc2 filter in WebAssembly): frames built with libb2 (ctypes, libb2_ctypes.py)
holding several chunks, fixed metalayers, vlmetalayers, special-value chunks
(zeros, NaN), arrays written by orthogonal selections and arrays made by
b2_nd_concatenate (chunk grids aligned or not, in place or into a new array),
b2_nd_expand_dims and a rechunking b2_nd_copy are stored with direct chunk
writes (filter mask 0) in datasets
created with filter 32026, then read back by h5wasm and by h5py through our
plugin, compared by SHA-256 with the data they encode.

b2nd frames (an array shaped like the HDF5 chunk, itself cut into several
b2nd chunks and blocks) are decoded whole by the reference. Plain frames are
decoded as their chunk 0 only (doc/format/hdf5-filter.md §5), so there chunk 0
holds the HDF5 chunk and later chunks are extra content a reader must skip."""
import itertools
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import h5wasm_common as hw  # noqa: E402
import libb2_ctypes as lb  # noqa: E402

h5py, np, PLUGIN_DIR = hc.setup()
LIB = lb.load()
NODE = hw.node_dir()

HISTORY = ("written by libb2's test_h5wasm_frames.py; " * 40).encode()
CAL = struct.pack("<4d", 1.5, -2.0, 0.25, 273.15)


def chunk_grid(shape, chunks):
    return itertools.product(*(range(0, s, c) for s, c in zip(shape, chunks)))


def padded(shape, chunks):
    return tuple(-(-s // c) * c for s, c in zip(shape, chunks))


def values(shape, dtype, seed):
    """Smooth-ish deterministic values of dtype over shape (compressible, not constant)."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.float64)
    v = 50 * np.sin(i / (7.0 + seed)) + (i % (13 + seed))
    return v.astype(dtype).reshape(shape)


def write_direct(f, name, full, shape, chunks, opts, make_frame):
    """Dataset name of shape (holding full[:shape]) with filter 32026 whose every
    chunk is make_frame(chunk array, chunk index) written directly."""
    ds = f.create_dataset(name, shape=shape, dtype=full.dtype, chunks=chunks,
                          compression=hc.FILTER_ID, compression_opts=opts)
    for k, off in enumerate(chunk_grid(shape, chunks)):
        block = np.ascontiguousarray(full[tuple(slice(o, o + c) for o, c in zip(off, chunks))])
        ds.id.write_direct_chunk(off, make_frame(block, k), filter_mask=0)
    return hc.sha256(np.ascontiguousarray(full[tuple(slice(0, s) for s in shape)]).tobytes())


def build(path):
    """Write the datasets; returns {name: sha256 of the expected values}."""
    want = {}
    with h5py.File(path, "w") as f:
        # b2nd frames, several b2nd chunks and blocks per HDF5 chunk, user
        # metalayers and vlmetalayers; blocks and chunks not dividing anything
        for name, shape, chunks, dt, b2chunk, b2block, codec, filt, opts in [
            ("nd_multi_f4_2d", (150, 130), (64, 64), "<f4", (24, 40), (10, 16), "zstd", "shuffle",
             (0, 0, 0, 0, 5, 1, 5)),
            ("nd_multi_i2_3d", (20, 30, 40), (10, 16, 16), "<i2", (4, 7, 16), (3, 5, 6), "lz4", "bitshuffle",
             (0, 0, 0, 0, 5, 2, 1)),
            ("nd_multi_u1_4d", (9, 10, 11, 12), (5, 6, 7, 8), "|u1", (2, 3, 4, 5), (2, 2, 3, 3), "blosclz",
             "delta", (0, 0, 0, 0, 9, 3, 0)),
            ("nd_multi_f8_2d_lz4hc", (70, 33), (35, 33), "<f8", (35, 11), (35, 11), "lz4hc", "shuffle",
             (0, 0, 0, 0, 9, 1, 2)),
        ]:
            full = values(padded(shape, chunks), dt, len(want))
            ts = full.dtype.itemsize
            meta = [("units", b"kelvin"), ("calib", CAL)]
            vlmeta = [("history", HISTORY), ("author", b"libb2"), ("empty", b"")]

            def frame(block, k, b2chunk=b2chunk, b2block=b2block, codec=codec, filt=filt, ts=ts,
                      meta=meta, vlmeta=vlmeta):
                cp = LIB.cparams(codec, 5 + k % 5, ts, filt)
                return LIB.b2nd_frame(block, b2chunk, b2block, cp, meta=meta, vlmeta=vlmeta[:1 + k % 3])
            want[name] = write_direct(f, name, full, shape, chunks, opts, frame)

        # b2nd frames with special chunks: zeros/NaN arrays where only a box
        # (different for each HDF5 chunk, sometimes empty) holds values
        for name, shape, chunks, dt, b2chunk, b2block, fill in [
            ("nd_zeros_f8_2d", (96, 100), (48, 50), "<f8", (16, 16), (8, 8), lb.FILL_ZEROS),
            ("nd_zeros_i4_3d", (12, 20, 30), (6, 10, 30), "<i4", (3, 4, 8), (2, 3, 5), lb.FILL_ZEROS),
            ("nd_nan_f4_2d", (80, 90), (40, 45), "<f4", (10, 12), (5, 5), lb.FILL_NANS),
            ("nd_nan_f8_3d", (8, 9, 10), (8, 9, 5), "<f8", (3, 3, 3), (2, 2, 2), lb.FILL_NANS),
        ]:
            full = values(padded(shape, chunks), dt, len(want))
            bg = 0 if fill == lb.FILL_ZEROS else np.nan
            boxes = []
            for k, off in enumerate(chunk_grid(shape, chunks)):
                if k % 4 == 3:
                    box = None  # all special
                else:
                    start = [(k + i) % max(1, c // 2) for i, c in enumerate(chunks)]
                    stop = [min(c, s + c // 2 + k % 3) for s, c in zip(start, chunks)]
                    box = (start, stop)
                sl = tuple(slice(o, o + c) for o, c in zip(off, chunks))
                sub = full[sl].copy()
                mask = np.ones(chunks, bool)
                if box:
                    mask[tuple(slice(a, b) for a, b in zip(*box))] = False
                sub[mask] = bg
                full[sl] = sub
                boxes.append(box)
            ts = full.dtype.itemsize

            def frame(block, k, b2chunk=b2chunk, b2block=b2block, fill=fill, ts=ts):
                cp = LIB.cparams("zstd", 5, ts, "shuffle")
                return LIB.b2nd_frame(block, b2chunk, b2block, cp, fill=fill, box=boxes[k],
                                      vlmeta=[("note", b"special chunks")])
            want[name] = write_direct(f, name, full, shape, chunks, (0, 0, 0, 0, 5, 1, 5), frame)

        # b2nd frames written by orthogonal selections (b2_nd_set_orthogonal_selection)
        # over a zero-filled array: index lists in any order with negative indices,
        # so some b2nd chunks stay special and the others are rewritten
        for name, shape, chunks, dt, b2chunk, b2block in [
            ("nd_select_f8_2d", (60, 70), (30, 35), "<f8", (10, 12), (5, 5)),
            ("nd_select_i2_3d", (10, 12, 14), (5, 12, 14), "<i2", (3, 4, 5), (2, 3, 2)),
        ]:
            full = values(padded(shape, chunks), dt, len(want))
            rng = np.random.default_rng(len(want))
            sels = []
            for k, off in enumerate(chunk_grid(shape, chunks)):
                sl = tuple(slice(o, o + c) for o, c in zip(off, chunks))
                sub = np.zeros(chunks, dtype=full.dtype)
                lists = [[int(i) - (c if rng.integers(0, 2) else 0)
                          for i in rng.choice(c, int(rng.integers(1, c // 2 + 2)), replace=False)]
                         for c in chunks]
                vals = np.ascontiguousarray(full[sl][np.ix_(*lists)])
                sub[np.ix_(*lists)] = vals
                full[sl] = sub
                sels.append([(lists, vals.tobytes())])
            ts = full.dtype.itemsize

            def frame(block, k, b2chunk=b2chunk, b2block=b2block, ts=ts, sels=sels):
                cp = LIB.cparams("lz4", 5, ts, "shuffle")
                return LIB.b2nd_frame(block, b2chunk, b2block, cp, fill=lb.FILL_ZEROS, selections=sels[k])
            want[name] = write_direct(f, name, full, shape, chunks, (0, 0, 0, 0, 5, 1, 1), frame)

        # b2nd frames made by operations on other arrays: b2_nd_concatenate of
        # the HDF5 chunk's two halves along an axis (the cut on a b2nd chunk
        # boundary with equal shapes: chunks copied compressed; elsewhere:
        # decoded and rewritten), in place on the first half or into a new
        # array; b2_nd_expand_dims (unit dimensions inserted); a rechunking
        # b2_nd_copy
        for name, shape, chunks, dt, b2chunk, b2block, op in [
            ("nd_concat_aligned_f8_2d", (90, 80), (40, 80), "<f8", (20, 16), (5, 8), ("concat", 0, 20, False)),
            ("nd_concat_aligned_inplace_i4_3d", (12, 30, 20), (6, 30, 20), "<i4", (3, 10, 8), (3, 5, 4),
             ("concat", 1, 10, True)),
            ("nd_concat_unaligned_f4_2d", (70, 66), (35, 66), "<f4", (12, 20), (6, 7), ("concat", 1, 25, False)),
            ("nd_concat_unaligned_inplace_i2_2d", (50, 40), (25, 40), "<i2", (10, 16), (4, 8),
             ("concat", 0, 13, True)),
            ("nd_expand_f8_3d", (1, 60, 50), (1, 30, 50), "<f8", (12, 20), (6, 10), ("expand_dims", (0,))),
            ("nd_expand_i4_4d", (40, 1, 36, 1), (20, 1, 36, 1), "<i4", (8, 12), (4, 6), ("expand_dims", (1, -1))),
            ("nd_rechunk_f4_2d", (100, 90), (50, 90), "<f4", (25, 30), (5, 10), ("copy", (13, 40), (7, 8))),
            ("nd_rechunk_u1_3d", (16, 20, 24), (8, 20, 24), "|u1", (4, 5, 6), (2, 5, 3), ("copy", (8, 7, 24), (3, 7, 5))),
        ]:
            full = values(padded(shape, chunks), dt, len(want))
            ts = full.dtype.itemsize

            def frame(block, k, b2chunk=b2chunk, b2block=b2block, op=op, ts=ts):
                cp = LIB.cparams("zstd" if k % 2 else "lz4", 5, ts, "shuffle")
                if op[0] == "concat":
                    _, axis, cut, inplace = op
                    lo = np.ascontiguousarray(block[(slice(None),) * axis + (slice(0, cut),)])
                    hi = np.ascontiguousarray(block[(slice(None),) * axis + (slice(cut, None),)])
                    parts = [LIB.b2nd_frame(x, b2chunk, b2block, cp) for x in (lo, hi)]
                    return LIB.b2nd_op_frame("concat", parts, axis=axis, inplace=inplace)
                if op[0] == "expand_dims":
                    flat = np.ascontiguousarray(block.reshape([n for n in block.shape if n != 1]))
                    src = LIB.b2nd_frame(flat, b2chunk, b2block, cp)
                    return LIB.b2nd_op_frame("expand_dims", [src], axes=op[1])
                src = LIB.b2nd_frame(block, b2chunk, b2block, cp)
                return LIB.b2nd_op_frame("copy", [src], chunkshape=op[1], blockshape=op[2])
            want[name] = write_direct(f, name, full, shape, chunks, (0, 0, 0, 0, 5, 1, 5), frame)

        # plain frames: chunk 0 holds the HDF5 chunk (normal or special), then
        # further chunks the reference does not read; metalayers and vlmetalayers
        for name, shape, chunks, dt, kind, codec, filt in [
            ("plain_multi_i4_1d", (10000,), (3000,), "<i4", None, "zstd", "shuffle"),
            ("plain_multi_f8_1d", (2500,), (1000,), "<f8", None, "lz4", "bitshuffle"),
            ("plain_multi_u1_2d", (40, 50), (20, 25), "|u1", None, "blosclz", "none"),
            ("plain_zeros_f4_1d", (5000,), (2000,), "<f4", lb.SPECIAL_ZEROS, "zstd", "shuffle"),
            ("plain_nan_f8_1d", (3000,), (1000,), "<f8", lb.SPECIAL_NAN, "lz4", "shuffle"),
            ("plain_nan_f4_2d", (30, 40), (15, 40), "<f4", lb.SPECIAL_NAN, "blosclz", "delta"),
        ]:
            full = values(padded(shape, chunks), dt, len(want))
            if kind is not None:
                full[...] = 0 if kind == lb.SPECIAL_ZEROS else np.nan
            ts = full.dtype.itemsize

            def frame(block, k, kind=kind, codec=codec, filt=filt, ts=ts):
                cp = LIB.cparams(codec, 5, ts, filt)
                raw = block.tobytes()
                extra = [bytes(reversed(raw)), raw[: len(raw) // 3 or 1]][: 1 + k % 2]
                special = (kind, block.size, len(raw)) if kind is not None else None
                return LIB.schunk_frame(cp, ([] if special else [raw]) + extra, special=special,
                                        meta=[("units", b"m/s")], vlmeta=[("history", HISTORY)])
            want[name] = write_direct(f, name, full, shape, chunks, (0, 0, 0, 0, 5, 1, 5), frame)
    return want


def main():
    C = hc.Counter("h5wasm frames")
    tmp = b2test.scratch_dir("b2h5frames_")
    path = os.path.join(tmp, "frames.h5")
    want = build(path)
    nchunks = 0
    with h5py.File(path, "r") as f:
        for name, digest in sorted(want.items()):
            ds = f[name]
            nchunks += ds.id.get_num_chunks()
            try:
                got = hc.sha256(np.ascontiguousarray(ds[()]).tobytes())
            except OSError as e:
                C.ok(False, "h5py (our plugin) %s: read failed: %s" % (name, e))
                continue
            C.ok(got == digest, "h5py (our plugin) %s: values differ" % name)
    got, err = hw.read_all(NODE, path)
    if C.ok(got is not None, "h5wasm failed: %s" % err):
        hw.compare(C, got, want, "h5wasm")
    print("%d datasets, %d chunks written directly as libb2 frames; read by h5py (our plugin) and h5wasm"
          % (len(want), nchunks))
    os.remove(path)
    os.rmdir(tmp)
    C.finish()


main()

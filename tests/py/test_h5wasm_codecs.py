# SPDX-License-Identifier: BSD-3-Clause
"""Codec x filter matrix through our plugin, decoded by the reference filter
(h5wasm-plugins' Blosc2 filter in WebAssembly): blosclz, lz4, lz4hc and zstd
(the wasm build has no zlib) x no filter, shuffle, bitshuffle and delta, each
for a 2-D float32 dataset (b2nd frames) and a 1-D int16 dataset (plain frames),
clevels 1/5/9 in turn. The filter is mandatory so every chunk is a frame; the
chunk header of the first chunk is checked to carry the codec and filter asked
for. Read back by h5wasm and by h5py (our plugin), compared by SHA-256."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import h5wasm_common as hw  # noqa: E402

h5py, np, PLUGIN_DIR = hc.setup()
NODE = hw.node_dir()

CODECS = [("blosclz", 0), ("lz4", 1), ("lz4hc", 2), ("zstd", 5)]
FILTERS = [("none", 0), ("shuffle", 1), ("bitshuffle", 2), ("delta", 3)]
LAYOUTS = [("f4_2d", "<f4", (90, 140), (40, 64)), ("i2_1d", "<i2", (20011,), (4096,))]


def data_for(dt, shape):
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.float64)
    v = 100 * np.sin(i / 300.0) + (i % 17)
    return v.astype(dt).reshape(shape)


def first_chunk_header(raw):
    """(compcode, filter in slot 5) of the first Blosc2 chunk in a frame: the
    chunks section starts right after the header (header_len, BE32 at offset 11)."""
    hl = int.from_bytes(raw[11:15], "big")
    if hl + 32 > len(raw):
        return None
    c = raw[hl:hl + 32]
    return c[22], c[16 + 5]


def main():
    C = hc.Counter("h5wasm codecs")
    tmp = b2test.scratch_dir("b2h5codecs_")
    path = os.path.join(tmp, "codecs.h5")
    want = {}
    k = 0
    with h5py.File(path, "w") as f:
        for cname, ccode in CODECS:
            for fname, fcode in FILTERS:
                for lname, dt, shape, chunks in LAYOUTS:
                    clevel = (1, 5, 9)[k % 3]
                    k += 1
                    name = "%s_%s_%s_c%d" % (cname, fname, lname, clevel)
                    data = data_for(dt, shape)
                    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
                    dcpl.set_chunk(chunks)
                    dcpl.set_filter(hc.FILTER_ID, 0, (0, 0, 0, 0, clevel, fcode, ccode))
                    ds = h5py.Dataset(h5py.h5d.create(f.id, name.encode(), h5py.h5t.py_create(np.dtype(dt)),
                                                      h5py.h5s.create_simple(shape), dcpl=dcpl))
                    ds[...] = data
                    want[name] = hc.sha256(data.tobytes())
                    mask, raw = ds.id.read_direct_chunk((0,) * len(shape))
                    hdr = first_chunk_header(raw) if mask == 0 and hc.frame_len(raw) == len(raw) else None
                    C.ok(hdr == (ccode, fcode), "%s: first chunk (mask %d) has codec/filter %s, want %s"
                         % (name, mask, hdr, (ccode, fcode)))
                    C.ok(hc.is_b2nd_frame(raw) == (len(shape) > 1), "%s: wrong frame kind" % name)
    with h5py.File(path, "r") as f:
        for name, digest in sorted(want.items()):
            C.ok(hc.sha256(np.ascontiguousarray(f[name][()]).tobytes()) == digest,
                 "h5py (our plugin) %s: values differ" % name)
    got, err = hw.read_all(NODE, path)
    if C.ok(got is not None, "h5wasm failed: %s" % err):
        hw.compare(C, got, want, "h5wasm")
    print("%d datasets: %d codecs x %d filters x %d layouts, written by our plugin, read by h5wasm and h5py"
          % (len(want), len(CODECS), len(FILTERS), len(LAYOUTS)))
    os.remove(path)
    os.rmdir(tmp)
    C.finish()


main()

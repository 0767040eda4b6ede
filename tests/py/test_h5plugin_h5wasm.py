# SPDX-License-Identifier: BSD-3-Clause
"""Interop with h5wasm + h5wasm-plugins (the HDFGroup Blosc2 filter compiled to
WebAssembly, versions pinned in tests/node/package-lock.json), both ways:
h5wasm writes datasets with filter 32026 and h5py reads them through our plugin;
h5py writes through our plugin and h5wasm reads them. Data are compared by
sha256. The node packages are installed offline from their packed tarballs
into $B2_BUILD_DIR/h5wasm (h5wasm_common.node_dir)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import h5wasm_common as hw  # noqa: E402

h5py, np, PLUGIN_DIR = hc.setup()


def run_node(d, *args):
    r = subprocess.run(["node", "h5wasm_interop.mjs"] + list(args), cwd=d, timeout=300,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        # emscripten dumps its whole JS source on a crash: keep the telling lines
        lines = [ln[:300] for ln in r.stderr.decode(errors="replace").splitlines()
                 if ln.startswith(("Aborted", "Error", "RuntimeError", "TypeError")) or "HDF5" in ln]
        return None, "\n".join(lines[:12]) or "node exited %d" % r.returncode
    return json.loads(r.stdout.decode().strip().splitlines()[-1]), None


SAME = [0, 0]


def same_chunks(ds, tmp, name):
    """Re-encode ds with its own cd_values through our filter (mandatory, as
    h5wasm stores it) and count chunks byte-identical to h5wasm's (reported only:
    the wasm build's codec libraries may differ from ours)."""
    vals = ds.id.get_create_plist().get_filter(0)[2]
    opts = (0, vals[1], 0, 0) + tuple(vals[4:7])
    with h5py.File(os.path.join(tmp, "re_%s.h5" % name), "w") as g:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk(ds.chunks)
        dcpl.set_filter(hc.FILTER_ID, 0, opts)
        nd = h5py.Dataset(h5py.h5d.create(g.id, b"d", ds.id.get_type(),
                                          h5py.h5s.create_simple(ds.shape), dcpl=dcpl))
        nd[...] = ds[()]
        g.flush()
        for info in ds.iter_chunks():
            off = tuple(sl.start for sl in info)
            SAME[0] += ds.id.read_direct_chunk(off) == nd.id.read_direct_chunk(off)
            SAME[1] += 1


def main():
    d = hw.node_dir("h5wasm", ("h5wasm_interop.mjs",))
    C = hc.Counter("h5plugin h5wasm")
    tmp = b2test.scratch_dir("b2h5wasm_")
    # h5wasm writes, we read
    wf = os.path.join(tmp, "from_wasm.h5")
    written, err = run_node(d, "write", wf)
    if C.ok(written is not None, "h5wasm write failed: %s" % err):
        with h5py.File(wf, "r") as f:
            for name, digest in sorted(written.items()):
                ds = f[name]
                try:
                    got = hc.sha256(np.ascontiguousarray(ds[()]).tobytes())
                except OSError as e:
                    C.ok(False, "%s: read failed: %s" % (name, e))
                    continue
                C.ok(got == digest, "%s written by h5wasm reads back differently" % name)
                mask, raw = ds.id.read_direct_chunk((0,) * ds.ndim)
                C.ok(mask == 0 and hc.frame_len(raw) == len(raw),
                     "%s: first chunk is not a frame (mask %d)" % (name, mask))
                same_chunks(ds, tmp, name)
    # we write, h5wasm reads (optional filter as h5py adds it, and mandatory)
    of = os.path.join(tmp, "from_libb2.h5")
    want = {}
    with h5py.File(of, "w") as f:
        cases = [("f4_2d", (120, 90), (50, 40), "<f4", (0, 0, 0, 0, 5, 1, 5)),
                 ("i4_1d", (30001,), (4096,), "<i4", (0, 0, 0, 0, 1, 2, 1)),
                 ("u2_3d", (20, 30, 40), (7, 8, 9), "<u2", (0, 0, 0, 0, 9, 0, 0)),
                 ("f8_2d_blocks", (101, 57), (25, 20), "<f8", (0, 2048, 0, 0, 9, 3, 5)),
                 ("i1_1d", (9999,), (1000,), "|i1", (0, 0, 0, 0, 5, 1, 2)),
                 ("f4_4d", (6, 7, 8, 9), (3, 4, 5, 9), "<f4", (0, 0, 0, 0, 5, 2, 0))]
        # No rank above 8: like the reference, we record ranks 9..16 in cd_values and
        # store b2nd frames, which the c-blosc2 2.x build inside h5wasm-plugins refuses
        # (it refuses the reference's own rank-9 files the same way).
        for name, shape, chunks, dt, opts in cases:
            n = int(np.prod(shape))
            data = ((np.arange(n) * 7) % 251).astype(dt).reshape(shape)
            f.create_dataset(name, data=data, chunks=chunks, compression=hc.FILTER_ID,
                             compression_opts=opts)
            want[name] = hc.sha256(data.tobytes())
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk(chunks)
            dcpl.set_filter(hc.FILTER_ID, 0, opts)
            tid = h5py.h5t.py_create(np.dtype(dt))
            m = h5py.Dataset(h5py.h5d.create(f.id, (name + "_mandatory").encode(), tid,
                                             h5py.h5s.create_simple(shape), dcpl=dcpl))
            m[...] = data
            want[name + "_mandatory"] = want[name]
    got, err = run_node(d, "read", of)
    if C.ok(got is not None, "h5wasm read failed: %s" % err):
        for name, digest in sorted(want.items()):
            g = got.get(name)
            C.ok(g is not None and g["sha256"] == digest,
                 "%s written by libb2 reads back differently in h5wasm: %s" % (name, g))
    print("h5wasm -> libb2: %d datasets (re-encoded chunks byte-identical to h5wasm's: %d of %d);"
          " libb2 -> h5wasm: %d datasets" % (len(written or {}), SAME[0], SAME[1], len(want)))
    C.finish()


main()

# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.codecs against numcodecs, zarr 3.1, imagecodecs and python-blosc2
(issue 38), in env hdf5-2.0.

check_zarr_codecs.py [WORK]:
  interop   one plain Blosc2 chunk each way: our numcodecs codec's output is
            decoded by imagecodecs.blosc2_decode and blosc2.decompress2, and
            ours decodes imagecodecs.blosc2_encode's and blosc2.compress2's:
            blosclz/lz4/lz4hc/zlib/zstd x nofilter/shuffle/bitshuffle/delta x
            typesizes 1, 2, 4, 8, 16 x clevels 0, 1, 5, 9, odd sizes; empty input
            every way; numcodecs.Blosc's Blosc1 chunks read by ours. Chunks
            byte-identical to blosc2.compress2's are counted.
  config    get_config/from_config, pickle, numcodecs.get_codec through the
            entry point (in a fresh process that never imported b2blosc), and
            every bad setting refused with a ValueError naming the valid ones.
  zarr      zarr v3 arrays with Blosc2Zarr (several dtypes, edge chunks): the
            metadata's codec entry (name, typesize from the dtype), a read in a
            fresh process (the codec found through zarr's entry point), every
            chunk file decoded by imagecodecs and python-blosc2, and chunks
            replaced by imagecodecs' and python-blosc2's own, read back by zarr
            through our codec. A zarr v2 array with the numcodecs codec too.
Prints counts per category; exits 1 on any failure."""
import json
import os
import pickle
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402

CNAMES = ("blosclz", "lz4", "lz4hc", "zlib", "zstd")
FILTERS = ("nofilter", "shuffle", "bitshuffle", "delta")
TYPESIZES = (1, 2, 4, 8, 16)
CLEVELS = (0, 1, 5, 9)
SIZES = (1, 7, 999, 4097, 65539, 262147)  # items; odd byte counts for every typesize
_UINT = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}


def data_for(ts, nitems, seed):
    """nitems items of ts bytes, compressible, as an array of that itemsize."""
    base = pc.make_data((nitems,), "f8" if ts >= 8 else "i4", seed)
    if ts == 16:
        return (base + 1j * base[::-1]).astype("c16")
    raw = np.ascontiguousarray(base.astype("<f8" if ts == 8 else "<i4"))
    return raw.view("u1").reshape(nitems, -1)[:, :ts].copy().view(_UINT[ts]).reshape(nitems)


def imagecodecs_case(ours, ic, raw, what):
    """Ours reads imagecodecs' chunk right, or the chunk itself is wrong: every
    decoder (python-blosc2's c-blosc2, imagecodecs' own) gets what ours gets and
    not the data. imagecodecs 2026.3.6 records typesize 8 for any uint8 array
    or bytes (blosc2_encode's fast path ignores the itemsize), and c-blosc2's
    DELTA with a size that is no multiple of the typesize writes a chunk that
    no decoder reads back: a PEER BUG line, counted apart."""
    import blosc2
    import imagecodecs
    got = ours.decode(ic).tobytes()
    if got == raw:
        return True
    theirs = bytes(blosc2.decompress2(ic))
    own = bytes(imagecodecs.blosc2_decode(ic))
    if got == theirs == own:
        print("PEER BUG imagecodecs.blosc2_encode %s: typesize byte %d, its chunk reads back "
              "wrong in c-blosc2 and imagecodecs too (ours agrees with them)" % (what, ic[3]))
        _PEER_BUGS.append(what)
        return True
    return False


_PEER_BUGS = []


def check_interop(t, codecs_mod):
    import blosc2
    import imagecodecs
    bl_codec = {n: getattr(blosc2.Codec, n.upper()) for n in CNAMES}
    bl_filter = {"nofilter": blosc2.Filter.NOFILTER, "shuffle": blosc2.Filter.SHUFFLE,
                 "bitshuffle": blosc2.Filter.BITSHUFFLE, "delta": blosc2.Filter.DELTA}
    same = total = 0
    k = 0
    for cname in CNAMES:
        for filt in FILTERS:
            for ts in TYPESIZES:
                for clevel in CLEVELS:
                    nitems = SIZES[k % len(SIZES)]
                    k += 1
                    a = data_for(ts, nitems, k)
                    raw = a.tobytes()
                    what = "%s/%s/ts%d/c%d/%d B" % (cname, filt, ts, clevel, len(raw))
                    ours = codecs_mod.Blosc2(cname=cname, clevel=clevel, filters=filt)
                    enc = ours.encode(a)
                    t.check(enc[3] == min(ts, 255), "ours: header typesize from the array",
                            what + ": typesize byte %d" % enc[3])
                    t.attempt("ours -> imagecodecs.blosc2_decode", what,
                              lambda: bytes(imagecodecs.blosc2_decode(enc)) == raw)
                    t.attempt("ours -> blosc2.decompress2", what,
                              lambda: bytes(blosc2.decompress2(enc)) == raw)
                    ic = imagecodecs.blosc2_encode(a, level=clevel, compressor=cname,
                                                   shuffle=filt)
                    t.attempt("imagecodecs.blosc2_encode -> ours", what,
                              lambda: imagecodecs_case(ours, ic, raw, what))
                    bc = blosc2.compress2(raw, codec=bl_codec[cname], clevel=clevel, typesize=ts,
                                          filters=[blosc2.Filter.NOFILTER] * 5 + [bl_filter[filt]],
                                          filters_meta=[0] * 6,
                                          splitmode=blosc2.SplitMode.FORWARD_COMPAT_SPLIT,
                                          nthreads=1)
                    t.attempt("blosc2.compress2 -> ours", what,
                              lambda: ours.decode(bc).tobytes() == raw)
                    out = np.empty(len(raw) + 5, np.uint8)
                    t.attempt("ours decode(out=) of blosc2's chunk", what,
                              lambda: ours.decode(bc, out=out) is out and
                              out[:len(raw)].tobytes() == raw)
                    total += 1
                    same += bytes(bc) == bytes(enc)
    # empty input, every way
    for cname in CNAMES:
        ours = codecs_mod.Blosc2(cname=cname)
        enc = ours.encode(b"")
        t.attempt("empty: ours -> ours", cname, lambda: ours.decode(enc).nbytes == 0)
        t.attempt("empty: ours -> blosc2.decompress2", cname,
                  lambda: bytes(blosc2.decompress2(enc)) == b"")
        bc = blosc2.compress2(b"", codec=bl_codec[cname])
        t.attempt("empty: blosc2.compress2 -> ours", cname, lambda: ours.decode(bc).nbytes == 0)
        ic = imagecodecs.blosc2_encode(b"", compressor=cname)
        t.attempt("empty: imagecodecs.blosc2_encode -> ours", cname,
                  lambda: ours.decode(ic).nbytes == 0)
        try:
            got = bytes(imagecodecs.blosc2_decode(enc))
            t.check(got == b"", "empty: ours -> imagecodecs.blosc2_decode", cname)
        except Exception as e:
            t.check(False, "empty: ours -> imagecodecs.blosc2_decode", "%s: %s" % (cname, e))
    # Blosc1 chunks (numcodecs.Blosc, c-blosc 1.x) read by ours; the other way
    # round c-blosc 1.x refuses Blosc2 chunks (format version 5), as designed
    import numcodecs
    for cname in CNAMES:
        for shuffle in (0, 1, 2):
            for ts in (1, 4, 8):
                a = data_for(ts, 30001, ts + shuffle)
                enc = numcodecs.Blosc(cname=cname, clevel=5, shuffle=shuffle).encode(a)
                t.attempt("numcodecs.Blosc (Blosc1) -> ours", "%s/%d/ts%d" % (cname, shuffle, ts),
                          lambda: codecs_mod.Blosc2().decode(enc).tobytes() == a.tobytes())
    print("interop: %d of %d chunks byte-identical to blosc2.compress2's (same settings)"
          % (same, total), flush=True)
    print("interop: %d imagecodecs chunks no decoder reads back (PEER BUG lines above)"
          % len(_PEER_BUGS), flush=True)


def check_config(t, codecs_mod, work):
    import numcodecs
    C = codecs_mod.Blosc2
    variants = [dict(), dict(cname="zstd", clevel=1, filters="bitshuffle", typesize=4,
                             blocksize=65536, splitmode="always", nthreads=2),
                dict(filters=["shuffle", "bytedelta"]), dict(filters=[["trunc_prec", 12], 1]),
                dict(filters=2, splitmode=3), dict(filters="noshuffle", cname="LZ4HC")]
    a = pc.make_data((5001,), "f4", 3)
    for kw in variants:
        c = C(**kw)
        cfg = c.get_config()
        t.check(cfg["id"] == "b2blosc.blosc2" and json.loads(json.dumps(cfg)) == cfg,
                "config: JSON, with the id", repr(cfg))
        c2 = C.from_config({k: v for k, v in cfg.items() if k != "id"})
        t.check(c2.get_config() == cfg, "config: from_config(get_config())", repr(kw))
        c3 = numcodecs.get_codec(cfg)
        t.check(type(c3) is C and c3.get_config() == cfg, "config: numcodecs.get_codec", repr(kw))
        c4 = pickle.loads(pickle.dumps(c))
        t.attempt("config: pickle", repr(kw), lambda: c4.get_config() == cfg and
                  c4.encode(a) == c.encode(a))
        if "trunc_prec" not in repr(kw):
            t.attempt("config: round trip", repr(kw), lambda: c.decode(c.encode(a)).tobytes()
                      == a.tobytes())
    bad = [(dict(cname="snappy"), "blosclz, lz4"), (dict(clevel=10), "0..9"),
           (dict(clevel=True), "0..9"), (dict(filters="foo"), "BITSHUFFLE"),
           (dict(filters=9), "BITSHUFFLE"), (dict(filters="trunc_prec"), "precision"),
           (dict(filters=["shuffle"] * 7), "at most 6"), (dict(filters=[["x", 1]]), "unknown"),
           (dict(filters=[("shuffle", 1, 2)]), "[name, meta]"), (dict(typesize=0), "1.."),
           (dict(blocksize=-1), "0 (automatic)"), (dict(splitmode="sometimes"), "always"),
           (dict(nthreads=0), "1..1024")]
    for kw, needle in bad:
        try:
            C(**kw)
            t.check(False, "config: bad setting refused", "%r accepted" % (kw,))
        except ValueError as e:
            t.check(needle in str(e), "config: bad setting refused", "%r: %s" % (kw, e))
    try:
        C.from_config({"cname": "lz4", "level": 3})
        t.check(False, "config: unknown key refused", "accepted")
    except ValueError as e:
        t.check("valid keys" in str(e), "config: unknown key refused", str(e))
    for junk in (b"", b"x" * 15, b"\x05\x01" + b"\xff" * 40):
        try:
            C().decode(junk)
            t.check(False, "config: junk refused by decode", repr(junk[:8]))
        except ValueError as e:
            t.check(True, "config: junk refused by decode", str(e))
    enc = C().encode(a)
    for bad_out in (np.empty(10, np.uint8), np.empty(a.nbytes, np.uint8)[::2]):
        try:
            C().decode(enc, out=bad_out)
            t.check(False, "config: bad out refused", "accepted")
        except ValueError as e:
            t.check(True, "config: bad out refused", str(e))
    # the entry point alone, in a process that never imported b2blosc
    code = ("import sys, numcodecs, numpy as np\n"
            "c = numcodecs.get_codec({'id': 'b2blosc.blosc2', 'cname': 'zstd'})\n"
            "assert 'b2blosc' not in sys.modules or type(c).__module__.startswith('b2blosc')\n"
            "a = np.arange(1000, dtype='i8')\n"
            "assert np.array_equal(c.decode(c.encode(a)).view('i8'), a)\n"
            "print(type(c).__module__, type(c).__name__)\n")
    r = subprocess.run([sys.executable, "-c", code], env=pc.clean_env(), capture_output=True,
                       text=True, timeout=120)
    t.check(r.returncode == 0 and "b2blosc" in r.stdout, "config: numcodecs entry point",
            r.stdout + r.stderr[-500:])


ZARR_CASES = [("f4", (1000, 1001), (300, 256)), ("i2", (777,), (100,)), ("u1", (50, 60, 7), (16, 16, 7)),
              ("f8", (333, 9), (64, 9)), ("c8", (401,), (128,)), ("i8", (5, 7), (5, 7))]


def zarr_write(t, codecs_mod, work):
    import zarr
    man = []
    for i, (dt, shape, chunks) in enumerate(ZARR_CASES):
        cname = CNAMES[i % 5]
        filt = FILTERS[i % 4]
        a = pc.make_data(shape, dt, 100 + i)
        path = os.path.join(work, "v3_%d.zarr" % i)
        z = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dt, fill_value=0,
                              compressors=[codecs_mod.Blosc2Zarr(cname=cname, filters=filt)])
        z[...] = a
        np.save(path + ".npy", a)
        meta = json.load(open(os.path.join(path, "zarr.json")))
        ent = [c for c in meta["codecs"] if c["name"] == "b2blosc.blosc2"]
        want = {"cname": cname, "clevel": 5, "filters": filt, "typesize": np.dtype(dt).itemsize,
                "blocksize": 0, "splitmode": "forward_compat", "nthreads": 1}
        t.check(len(ent) == 1 and ent[0]["configuration"] == want, "zarr v3: metadata entry",
                "%s: %r" % (path, ent))
        t.check(np.array_equal(zarr.open_array(path, mode="r")[...], a), "zarr v3: read back",
                path)
        man.append((path, dt, list(chunks)))
    # zarr v2 with the numcodecs codec
    a = pc.make_data((999, 13), "f8", 7)
    path = os.path.join(work, "v2.zarr")
    z = zarr.create_array(path, shape=a.shape, chunks=(100, 13), dtype="f8", zarr_format=2,
                          compressors=codecs_mod.Blosc2(cname="zstd", clevel=3))
    z[...] = a
    np.save(path + ".npy", a)
    meta = json.load(open(os.path.join(path, ".zarray")))
    t.check(meta["compressor"]["id"] == "b2blosc.blosc2", "zarr v2: .zarray compressor",
            repr(meta["compressor"]))
    man.append((path, "f8", [100, 13]))
    pc.save_json(os.path.join(work, "zarr.json"), man)
    return man


def zarr_chunk_files(path):
    out = []
    for root, _dirs, files in os.walk(path):
        for f in files:
            if not f.startswith(".") and f not in ("zarr.json",):
                out.append(os.path.join(root, f))
    return sorted(out)


def zarr_peers(t, work, man):
    """Every chunk file through imagecodecs and python-blosc2; then chunks
    replaced by theirs, read by zarr through our codec."""
    import blosc2
    import imagecodecs
    import zarr
    for path, dt, chunks in man:
        nbytes = int(np.prod(chunks)) * np.dtype(dt).itemsize
        files = zarr_chunk_files(path)
        t.check(len(files) > 0, "zarr: chunk files found", path)
        for f in files:
            enc = open(f, "rb").read()
            ref = bytes(blosc2.decompress2(enc))
            t.check(len(ref) == nbytes, "zarr chunk -> blosc2.decompress2 (size)", f)
            t.attempt("zarr chunk -> imagecodecs.blosc2_decode", f,
                      lambda: bytes(imagecodecs.blosc2_decode(enc)) == ref)
            # theirs in place of ours: zarr must read the same values
            i = files.index(f)
            new = (imagecodecs.blosc2_encode(ref, compressor="zstd", shuffle="bitshuffle")
                   if i % 2 else blosc2.compress2(ref, typesize=np.dtype(dt).itemsize,
                                                  codec=blosc2.Codec.LZ4HC))
            with open(f, "wb") as fh:
                fh.write(new)
        a = np.load(path + ".npy")
        t.attempt("zarr reads imagecodecs'/python-blosc2's chunks through ours", path,
                  lambda: np.array_equal(zarr.open_array(path, mode="r")[...], a))


def fresh_read(t, work):
    """A new process, clean environment, no import of b2blosc: zarr and
    numcodecs find our codecs through their entry points."""
    code = ("import sys, json, numpy as np, zarr\n"
            "man = json.load(open(sys.argv[1]))\n"
            "for path, dt, chunks in man:\n"
            "    a = np.load(path + '.npy')\n"
            "    z = zarr.open_array(path, mode='r')\n"
            "    ok = np.array_equal(z[...], a)\n"
            "    print('OK' if ok else 'BAD', path, [type(c).__name__ for c in z.compressors])\n")
    r = subprocess.run([sys.executable, "-c", code, os.path.join(work, "zarr.json")],
                       env=pc.clean_env(), capture_output=True, text=True, timeout=300)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith(("OK", "BAD"))]
    t.check(r.returncode == 0, "zarr: fresh process (entry points)", r.stderr[-800:])
    for ln in lines:
        t.check(ln.startswith("OK") and ("Blosc2Zarr" in ln or "Blosc2" in ln),
                "zarr: fresh process (entry points)", ln)
    t.check(len(lines) == len(ZARR_CASES) + 1, "zarr: fresh process (entry points)",
            "%d arrays read" % len(lines))


def main():
    import b2blosc.codecs as codecs_mod
    work = sys.argv[1] if len(sys.argv) > 1 else pc.work_dir("zarr_codecs")
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    t = pc.Tally("b2blosc.codecs against numcodecs, zarr, imagecodecs, python-blosc2")
    check_interop(t, codecs_mod)
    check_config(t, codecs_mod, work)
    man = zarr_write(t, codecs_mod, work)
    fresh_read(t, work)
    zarr_peers(t, work, man)
    return t.summary()


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""`b2 info|verify|slice|convert` on HDF5 files, for the wheel's console script.

The wheel's b2 program has no libhdf5 (see _cli.py), so these commands run here
on h5py's HDF5 and b2blosc.h5's direct reader. They follow the program's
options, output and exit status (0 success, 1 unreadable or corrupt input,
2 bad arguments); convert always decodes and compresses again (the program's
raw chunk moves need its HDF5 C calls)."""
import json
import os
import subprocess
import sys

from ._cli import is_hdf5_file, operands, program, split_dataset


CODEC_NAMES = {0: "blosclz", 1: "lz4", 2: "lz4hc", 4: "zlib", 5: "zstd"}


class UsageError(Exception):
    """Bad arguments: exit status 2."""


class DataError(Exception):
    """Unreadable or corrupt input, or an output that cannot be written: exit 1."""


def _h5py():
    try:
        import h5py
    except ImportError as e:
        raise DataError("HDF5 files need h5py in this Python (pip install h5py): %s" % e) from None
    import b2blosc  # noqa: F401  (registers filter 32026 with h5py's HDF5)
    return h5py


def _options(args, flags, valued):
    """({option: value or True}, operands); unknown options are usage errors."""
    opts, it = {}, iter(args)
    for a in it:
        if a in flags:
            opts[a] = True
        elif a in valued:
            v = next(it, None)
            if v is None:
                raise UsageError("option %s needs a value" % a)
            opts[a] = v
        elif a.startswith("-") and a != "-":
            raise UsageError("unknown option %s (this b2 serves HDF5 files from Python: "
                             "options %s)" % (a, ", ".join(sorted(set(flags) | set(valued)))))
    return opts, operands(args)


def _int_option(opts, name, default, lo=0):
    v = opts.get(name)
    if v is None:
        return default
    try:
        n = int(v)
    except ValueError:
        raise UsageError("%s takes an integer, not %r" % (name, v)) from None
    if n < lo:
        raise UsageError("%s must be at least %d" % (name, lo))
    return n


def _by_program(command, flags, path):
    """Exit status of the package's b2 program run on a file that is not HDF5."""
    sys.stdout.flush()
    return subprocess.call([program(), command] + flags + [path])


def blosc2_datasets(f):
    """Every dataset of an open h5py.File using filter 32026, in name order."""
    import h5py
    from . import FILTER_ID
    found = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.chunks is not None:
            if obj.id.get_create_plist().get_filter_by_id(FILTER_ID) is not None:
                found.append(obj)
    f.visititems(visit)
    return sorted(found, key=lambda d: d.name)


CD_NAMES = ("revision", "blocksize", "typesize", "chunk_bytes", "clevel", "filter", "codec")


def blosc2_params(cd):
    """The filter's cd_values by name, as the program's `info --json` gives them:
    the 7 classic values, then rank and chunk shape when the writer stored them."""
    p = dict(zip(CD_NAMES, cd))
    if len(cd) > 7 and cd[7] > 0:
        p["rank"] = cd[7]
        p["chunkshape"] = list(cd[8:8 + cd[7]])
    if "codec" in p:
        p["codec_name"] = CODEC_NAMES.get(p["codec"], str(p["codec"]))
    return p


def _dataset_info(ds):
    from . import FILTER_ID
    plist = ds.id.get_create_plist()
    flags, cd_values, _name = plist.get_filter_by_id(FILTER_ID)
    nchunks = ds.id.get_num_chunks()
    stored = sum(ds.id.get_chunk_info(i).size for i in range(nchunks))
    return {"name": ds.name, "shape": list(ds.shape), "dtype": str(ds.dtype),
            "chunks": list(ds.chunks), "cd_values": list(cd_values),
            "blosc2_params": blosc2_params(cd_values),
            "nfilters": plist.get_nfilters(), "nchunks": nchunks, "stored_bytes": stored,
            "nbytes": int(ds.size) * ds.dtype.itemsize}


def cmd_info(args):
    opts, files = _options(args, ("--json",), ())
    if not files:
        raise UsageError("no FILE given (see 'b2 info --help')")
    status = 0
    for spec in files:
        path, name = split_dataset(spec)
        if not is_hdf5_file(path):  # the program describes everything else
            status = max(status, _by_program("info", ["--json"] if "--json" in opts else [], spec))
            continue
        with _h5py().File(path, "r") as f:
            if name is not None and name not in f:
                raise DataError("%s: no dataset %s" % (path, name))
            infos = [_dataset_info(d) for d in blosc2_datasets(f)
                     if name is None or d.name == f[name].name]
        if "--json" in opts:
            print(json.dumps({"file": path, "kind": "hdf5", "datasets": infos}))
            continue
        print("%s: HDF5 file, %d Blosc2 dataset%s" % (path, len(infos), "" if len(infos) == 1 else "s"))
        for i in infos:
            ratio = i["nbytes"] / i["stored_bytes"] if i["stored_bytes"] else 0.0
            print("  dataset %s  shape (%s)  %s  chunks (%s)  filter 32026 of %d" % (
                i["name"], ", ".join(map(str, i["shape"])), i["dtype"],
                ", ".join(map(str, i["chunks"])), i["nfilters"]))
            print("    cd_values %s" % " ".join(map(str, i["cd_values"])))
            print("    %d chunks stored, %d bytes, %d uncompressed, ratio %.2f" % (
                i["nchunks"], i["stored_bytes"], i["nbytes"], ratio))
    return status


def cmd_verify(args):
    """Decode every chunk of every 32026 dataset through the direct reader."""
    from . import h5 as b2h5
    opts, files = _options(args, ("-q", "--quiet"), ("--threads",))
    threads = _int_option(opts, "--threads", None, 1)
    quiet = "-q" in opts or "--quiet" in opts
    status = 0
    for path in files:
        if not is_hdf5_file(path):
            status = max(status, _by_program("verify", ["-q"] if quiet else [], path))
            continue
        ndata = nchunks = bad = 0
        with _h5py().File(path, "r") as f:
            for ds in blosc2_datasets(f):
                ndata += 1
                nchunks += ds.id.get_num_chunks()
                bad += _verify_dataset(b2h5, ds, path, threads)
        if bad:
            status = 1
        if not quiet:
            print("%s: %s (hdf5, %d Blosc2 dataset%s, %d chunk%s%s)" % (
                path, "BAD" if bad else "ok", ndata, _s(ndata), nchunks, _s(nchunks),
                ", %d bad" % bad if bad else "; decoded, no checksums to check"))
    return status


def _verify_dataset(b2h5, ds, path, threads):
    """Read the dataset chunk row by chunk row; each failure is reported."""
    rows = ds.chunks[0] if ds.ndim else 1
    bad = 0
    for start in range(0, ds.shape[0] if ds.ndim else 1, rows):
        key = (slice(start, start + rows),) if ds.ndim else Ellipsis
        try:
            b2h5.read(ds, key, threads=threads)
        except Exception as e:  # noqa: BLE001  (every failure is a bad chunk row, reported)
            bad += 1
            sys.stderr.write("b2: %s: %s rows %d..: %s\n" % (path, ds.name, start, e))
    return bad


def parse_box(spec, shape):
    """NumPy key of a slice SPEC (b2 slice --help): START:STOP, I or [I,J,..]
    per dimension, comma-separated; dimensions left out are whole."""
    parts, depth, cur = [], 0, ""
    for ch in spec:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    if len(parts) > len(shape):
        raise UsageError("slice %r has %d dimensions, the dataset %d" % (spec, len(parts), len(shape)))
    key = []
    for p, n in zip(parts, shape):
        p = p.strip()
        try:
            if p.startswith("["):
                key.append([int(x) % n if -n <= int(x) < n else _out_of_range(x, n)
                            for x in p.strip("[]").split(",")])
            elif ":" in p:
                a, b = p.split(":", 1)
                key.append(slice(int(a) if a else None, int(b) if b else None))
            else:
                i = int(p) + (n if int(p) < 0 else 0)
                key.append(slice(i, i + 1) if 0 <= i < n else _out_of_range(p, n))
        except ValueError:
            raise UsageError("cannot parse index %r in %r (integers)" % (p, spec)) from None
    return tuple(key)


def _s(n):
    """The plural ending for n things: "1 chunk", "2 chunks"."""
    return "" if n == 1 else "s"


def _out_of_range(i, n):
    raise UsageError("index %s out of range for a dimension of extent %d" % (i, n))


def _select(ds, key, threads, report):
    """The box as a NumPy array, and the reader's report (or None)."""
    from . import h5 as b2h5
    if any(isinstance(k, list) for k in key):  # orthogonal: the enclosing box, then ix_
        import numpy as np
        box = tuple(slice(min(k), max(k) + 1) if isinstance(k, list) else k for k in key)
        data, rep = _select(ds, box, threads, report)
        sel = [np.asarray(k) - min(k) if isinstance(k, list) else np.arange(n)
               for k, n in zip(key, data.shape)]
        return data[np.ix_(*sel)], rep
    if b2h5.is_blosc2(ds):
        if report:
            return b2h5.read(ds, key, threads=threads, report=True)
        return b2h5.read(ds, key, threads=threads), None
    return ds[key], {"path": "h5dread", "reason": "not a Blosc2 dataset"}


def _report(spec, r):
    """--report: the program's line (how the box was read)."""
    path = {"direct": "direct", "h5dread": "H5Dread", "mixed": "mixed"}.get(r.get("path"), "empty box")
    reason = " (%s)" % r["reason"] if r.get("reason") else ""
    sys.stderr.write("%s: %s%s; %d chunks direct, %d through H5Dread, %d file bytes read by the "
                     "direct path, %d blocks decoded\n" % (
                         spec, path, reason, r.get("chunks_direct", 0), r.get("chunks_h5dread", 0),
                         r.get("bytes_read", 0), r.get("blocks_decoded", 0)))


def cmd_slice(args):
    opts, ops = _options(args, ("--report", "-f", "--force"), ("-o", "--threads"))
    if len(ops) != 2:
        raise UsageError("usage: b2 slice FILE.h5:/DATASET SPEC [-o OUT] [--threads N] [--report]")
    path, name = split_dataset(ops[0])
    if name is None:
        raise UsageError("name the dataset: %s:/DATASET" % path)
    threads = _int_option(opts, "--threads", None, 1)
    if "-o" not in opts and not ("-f" in opts or "--force" in opts) and sys.stdout.isatty():
        # as the program: binary data on a terminal are garbage
        raise UsageError("not writing binary data to a terminal (redirect it, use -o OUT, or -f to force)")
    with _h5py().File(path, "r") as f:
        if name not in f:
            raise DataError("%s: no dataset %s" % (path, name))
        ds = f[name]
        data, rep = _select(ds, parse_box(ops[1], ds.shape), threads, "--report" in opts)
    if rep is not None:
        _report(ops[0], rep if isinstance(rep, dict) else rep.as_dict())
    raw = __import__("numpy").ascontiguousarray(data).tobytes()
    if "-o" in opts:
        _write_atomic(opts["-o"], raw)
    else:
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
    return 0


def _write_atomic(path, raw):
    tmp = "%s.%d.b2tmp" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise DataError("cannot write %s: %s" % (path, e)) from None


CONVERT_VALUED = ("--chunks", "--blocks", "--threads", "--codec", "--clevel", "--filter", "--blocksize")


def _shape_option(opts, name):
    v = opts.get(name)
    if v is None:
        return None
    try:
        return tuple(int(x) for x in v.split(","))
    except ValueError:
        raise UsageError("%s takes C0,C1,.. integers, not %r" % (name, v)) from None


def cmd_convert(args):
    opts, ops = _options(args, ("--force", "--recompress", "-q", "--quiet"), CONVERT_VALUED)
    if len(ops) != 2:
        raise UsageError("usage: b2 convert [options] SRC DST (one of them FILE.h5:/DATASET)")
    src, dst = ops
    if split_dataset(src)[1] is not None and is_hdf5_file(split_dataset(src)[0]):
        done = _h5_to_b2nd(src, dst, opts)
    else:
        done = _b2nd_to_h5(src, dst, opts)
    if not ("-q" in opts or "--quiet" in opts):
        print("b2 convert: %s -> %s: %s" % (src, dst, done))
    return 0


def _compression(opts, cname, clevel, filters):
    from ._names import filter_by_name
    cname = opts.get("--codec", cname)
    clevel = _int_option(opts, "--clevel", clevel)
    if "--filter" in opts:
        f = filter_by_name(opts["--filter"])
        filters = f if f is not None else _int_option(opts, "--filter", 0)
    return cname, clevel, filters


def _h5_to_b2nd(src, dst, opts):
    import b2blosc
    from . import h5 as b2h5
    path, name = split_dataset(src)
    if os.path.exists(dst) and "--force" not in opts:
        raise DataError("%s: exists already (--force replaces it)" % dst)
    with _h5py().File(path, "r") as f:
        if name not in f:
            raise DataError("%s: no dataset %s" % (path, name))
        ds = f[name]
        threads = _int_option(opts, "--threads", None, 1)
        data = b2h5.read(ds, threads=threads) if b2h5.is_blosc2(ds) else ds[()]
        chunks = _shape_option(opts, "--chunks") or ds.chunks
    cname, clevel, filters = _compression(opts, "lz4", 5, b2blosc.Blosc2.SHUFFLE)
    b2blosc.save(data, dst, chunks=chunks, blocks=_shape_option(opts, "--blocks"),
                 cname=cname, clevel=clevel, filters=filters)
    return "%d items, every chunk compressed again (the wheel's b2 has no raw chunk moves)" % data.size


def _b2nd_to_h5(src, dst, opts):
    import b2blosc
    path, name = split_dataset(dst)
    if name is None:
        raise UsageError("one of SRC and DST must be FILE.h5:/DATASET")
    arr = b2blosc.open(src)
    data = arr[...]
    cp = arr.cparams
    cname, clevel, filters = _compression(opts, cp.get("cname", "lz4"), cp.get("clevel", 5),
                                          b2blosc.Blosc2.SHUFFLE)
    chunks = _shape_option(opts, "--chunks") or tuple(arr.chunks)
    h5py = _h5py()
    with h5py.File(path, "a") as f:
        if name in f:
            if "--force" not in opts:
                raise DataError("%s: dataset %s exists already (--force replaces it)" % (path, name))
            del f[name]
        f.create_dataset(name, data=data, chunks=chunks,
                         compression=b2blosc.Blosc2(cname=cname, clevel=clevel, filters=filters))
    return "%d items, every chunk compressed again" % data.size


COMMANDS = {"info": cmd_info, "verify": cmd_verify, "slice": cmd_slice, "convert": cmd_convert}


def run(command, args):
    """Run one command; errors become b2's messages and exit statuses."""
    try:
        return COMMANDS[command](args)
    except UsageError as e:
        sys.stderr.write("b2 %s: %s\n" % (command, e))
        return 2
    except (DataError, OSError, ValueError, KeyError) as e:
        sys.stderr.write("b2 %s: %s\n" % (command, e))
        return 1

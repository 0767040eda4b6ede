# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.Blosc2's cd_values through our plugin and through the reference
plugin ($B2_REF_DIR/libH5Zblosc2.so, c-blosc2 3.3: the filter PyTables and
hdf5plugin ship). Registered only where configure finds the reference (see
tests/CMakeLists.txt), so it never skips:
  * Chunks: for several cd_values, the same arrays written through our plugin
    and through the reference plugin, each in its own process; both files read
    back through our plugin to the written data, and the stored chunks compared
    byte for byte (as test_h5plugin_interop.py does where the reference stores a
    frame smaller than the chunk; where its frame is not smaller, ours stores
    the chunk raw, as h5py adds the filter as optional). TRUNC_PREC (filter 4,
    no precision): both store the chunks raw (filter mask 1), exactly.
  * register(): with the reference filter on HDF5_PLUGIN_PATH, `import b2blosc`
    keeps it, register(force=True) puts ours in its place."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PDIR = hc.setup()
os.environ["B2_H5_PLUGIN"] = os.path.join(PDIR, hc.PLUGIN_NAME)
b2test.use_source_package()
import b2blosc  # noqa: E402

check = b2test.Checks()
tmp = b2test.scratch_dir("ref_pypkg_blosc2_")

# ---- 1. chunks through our plugin and through the reference plugin ----
REF = os.path.join(os.environ["B2_REF_DIR"], "libH5Zblosc2.so")
CDS = [(0, 0, 0, 0, 5, 1, 1), (0, 0, 0, 0, 9, 2, 5), (0, 0, 0, 0, 1, 0, 0), (0, 0, 0, 0, 5, 3, 4),
       (0, 0, 0, 0, 5, 1, 2), (0, 65536, 0, 0, 5, 1, 1), (0, 0, 0, 0, 3, 2, 1), (0, 0, 0, 0, 5, 4, 1)]
WRITER = r'''
import sys, numpy as np, h5py
path, cds = sys.argv[1], eval(sys.argv[2])
assert h5py.h5z.filter_avail(32026), "filter 32026 not available"
rng = np.random.default_rng(7)
arrays = {"f32": np.cumsum(rng.normal(size=(200, 300)), axis=0).astype(np.float32),
          "i32": (np.arange(40 * 50 * 60, dtype=np.int32).reshape(40, 50, 60) // 7),
          "f64_1d": np.sin(np.arange(50000) / 300.0)}
chunks = {"f32": (100, 150), "i32": (20, 25, 30), "f64_1d": (20000,)}
with h5py.File(path, "w") as f:
    for i, cd in enumerate(cds):
        for k, v in arrays.items():
            f.create_dataset("%s_%d" % (k, i), data=v, chunks=chunks[k], compression=32026,
                             compression_opts=cd)
'''
refdir = os.path.join(tmp, "refplugin")
os.mkdir(refdir)
os.symlink(REF, os.path.join(refdir, "libH5Zblosc2.so"))  # alone in its folder
files = {}
# drop=(): Python subprocesses keep a sanitizer build's LD_PRELOAD (our plugin is instrumented)
for who, pdir in (("ours", PDIR), ("ref", refdir)):
    files[who] = os.path.join(tmp, "chunks_%s.h5" % who)
    r = subprocess.run([sys.executable, "-c", WRITER, files[who], repr(CDS)],
                       env=b2test.clean_env(drop=(), HDF5_PLUGIN_PATH=pdir), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    check(r.returncode == 0, "%s plugin wrote the datasets: %s" % (who, r.stdout[-2000:]))
same = total = raw = kept_raw = deflated = 0
zlib_libdeflate = b2test.zlib_own_bytes()
with h5py.File(files["ours"], "r") as fo, h5py.File(files["ref"], "r") as fr:
    for name in sorted(fo):
        do, dr = fo[name], fr[name]
        check(np.array_equal(do[...], dr[...]), "%s: ours and the reference's decode equal" % name)
        ncd = CDS[int(name.rsplit("_", 1)[1])]
        for j in range(do.id.get_num_chunks()):
            off = do.id.get_chunk_info(j).chunk_offset
            mo, bo = do.id.read_direct_chunk(off)
            mr, br = dr.id.read_direct_chunk(off)
            total += 1
            if ncd[5] == 4:  # TRUNC_PREC: no precision in cd_values, both store raw
                ok = mo == mr == 1 and bo == br
                raw += ok
                check(ok, "%s chunk %s: TRUNC_PREC stored raw by both (masks %d %d)" % (name, off, mo, mr))
                continue
            nbytes = int(np.prod(do.chunks)) * do.dtype.itemsize
            # incompressible chunks too: both store the frame (filter mask 0)
            kept_raw += mr == 0 and len(br) >= nbytes
            check(mo == mr == 0, "%s chunk %s: both filtered (masks %d %d)" % (name, off, mo, mr))
            if ncd[6] == 4 and zlib_libdeflate:
                # zlib through libdeflate (the default): other bytes, the same data
                # (checked above); B2_ZLIB_ENCODER=zlib builds compare bytes
                deflated += 1
                continue
            same += bo == br
            check(bo == br, "%s chunk %s (cd_values %s): %d vs %d bytes, byte-identical %s"
                  % (name, off, ncd, len(bo), len(br), bo == br))
print("chunks compared: %d; byte-identical to the reference: %d; TRUNC_PREC raw in both: %d; "
      "of those compared, frames not smaller than the chunk: %d; "
      "zlib through libdeflate (data compared only): %d"
      % (total, same, raw, kept_raw, deflated))

# ---- 2. register(force=...) with the reference filter already on HDF5_PLUGIN_PATH ----
# Only our filter reads B2_H5_MEMORY_LIMIT (on every call): under a 4k limit it
# refuses a 1 MiB chunk, the reference reads it. That tells the two apart
# (both store the same frames, incompressible chunks included).
FORCE = r'''
import os, sys, h5py, numpy as np
assert h5py.h5z.filter_avail(32026)
import b2blosc
print("CONFIG", b2blosc.get_config()["registered"])
a = np.arange(1 << 17, dtype="f8")  # one 1 MiB chunk (as check_hdf5plugin_suite's probe)
def write_read(path):
    """Mask of the stored chunk, data read back, and that under a 4k limit (the
    file reopened, so the chunk goes through the filter, not HDF5's cache)."""
    with h5py.File(path, "w") as f:
        f.create_dataset("d", data=a, chunks=a.shape, compression=b2blosc.Blosc2("blosclz", 1, 0))
    with h5py.File(path, "r") as f:
        d = f["d"]
        mask, ok = d.id.read_direct_chunk((0,))[0], np.array_equal(d[...], a)
    os.environ["B2_H5_MEMORY_LIMIT"] = "4k"
    try:
        with h5py.File(path, "r") as f:
            lim = np.array_equal(f["d"][...], a)
    except OSError:
        lim = "refused"
    del os.environ["B2_H5_MEMORY_LIMIT"]
    return mask, ok, lim
print("BEFORE %s %s %s" % write_read(sys.argv[1] + ".before"))
print("FORCE", b2blosc.register(force=True), b2blosc.get_config()["registered"])
print("AFTER %s %s %s" % write_read(sys.argv[1] + ".after"))
print("KEEP", b2blosc.register(force=False))
'''
r = subprocess.run([sys.executable, "-c", FORCE, os.path.join(tmp, "force.h5")],
                   env=b2test.clean_env(drop=(), HDF5_PLUGIN_PATH=refdir,
                                        PYTHONPATH=os.path.join(b2test.REPO, "python"),
                                        B2_H5_PLUGIN=os.path.join(PDIR, hc.PLUGIN_NAME)),
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
print(r.stdout, end="")
check(r.returncode == 0 and "CONFIG kept" in r.stdout and "BEFORE 0 True True" in r.stdout,
      "import b2blosc keeps the reference filter found on HDF5_PLUGIN_PATH")
check("FORCE True b2blosc" in r.stdout and "AFTER 0 True refused" in r.stdout and "KEEP False" in r.stdout,
      "register(force=True) replaces it with ours; register(force=False) keeps what is there")

print("ref_pypkg_blosc2: %d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

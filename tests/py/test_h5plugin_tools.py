# SPDX-License-Identifier: BSD-3-Clause
"""The HDF5 and netCDF command-line tools with our plugin (HDF5_PLUGIN_PATH):
h5repack -f UD=32026,... compresses an uncompressed file and h5diff finds no
difference; h5repack -f NONE undoes it; h5dump prints the filtered data exactly
as the uncompressed data and names the filter; nccopy -F applies filter 32026
to a netCDF-4 variable and ncdump prints the same data as the source."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402

h5py, np, PLUGIN_DIR = hc.setup()
C = hc.Counter("h5plugin tools")
ENV = dict(os.environ, HDF5_PLUGIN_PATH=PLUGIN_DIR)


def run(args):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, timeout=120)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def data_part(dump):
    """h5dump/ncdump output without the lines that name the file or describe storage."""
    keep = []
    for line in dump.splitlines():
        s = line.strip()
        if s.startswith(("HDF5 \"", "netcdf ")):
            continue
        keep.append(line)
    return "\n".join(keep)


def make_plain(path):
    with h5py.File(path, "w") as f:
        f["f4_2d"] = (np.sin(np.arange(120 * 77) / 50.0) * 1000).astype("<f4").reshape(120, 77)
        f["i4_1d"] = (np.arange(30011) // 7).astype("<i4")
        f["u2_3d"] = (np.arange(20 * 30 * 11) % 1000).astype("<u2").reshape(20, 30, 11)
        f["f8_be"] = np.linspace(0, 1, 5000).astype(">f8")
        f.create_group("g")["i1"] = (np.arange(4000) % 7 - 3).astype("i1")


def filtered_chunks(path):
    """(datasets with filter 32026, of which stored at least one frame)."""
    nf = nfr = 0
    with h5py.File(path, "r") as f:
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        for n in names:
            ds = f[n]
            dcpl = ds.id.get_create_plist()
            ids = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
            if hc.FILTER_ID not in ids:
                continue
            nf += 1
            mask, raw = ds.id.read_direct_chunk((0,) * len(ds.shape))
            if mask == 0 and hc.frame_len(raw) == len(raw):
                nfr += 1
    return nf, nfr


def h5_tools(tmp):
    for t in ("h5repack", "h5diff", "h5dump"):
        if not shutil.which(t):
            hc.skip("%s not installed" % t)
    src, dst, back = (os.path.join(tmp, n) for n in ("plain.h5", "b2.h5", "back.h5"))
    make_plain(src)
    for spec in ("UD=32026,0,7,0,0,0,0,5,1,1", "UD=32026,1,7,0,0,0,0,9,2,5"):
        rc, out, err = run(["h5repack", "-f", spec, src, dst])
        if not C.ok(rc == 0, "h5repack -f %s exited %d: %s" % (spec, rc, err.strip())):
            continue
        nf, nfr = filtered_chunks(dst)
        C.ok(nf == 5 and nfr == 5, "%s: %d datasets filtered, %d with frames (want 5, 5)"
             % (spec, nf, nfr))
        rc, out, err = run(["h5diff", "-v", src, dst])
        C.ok(rc == 0, "h5diff after -f %s exited %d: %s" % (spec, rc, (out + err)[-300:]))
        rc, d0, err0 = run(["h5dump", src])
        rc1, d1, err1 = run(["h5dump", dst])
        C.ok(rc == 0 and rc1 == 0 and data_part(d0) == data_part(d1),
             "h5dump of the %s copy prints different data (rc %d/%d) %s" % (spec, rc, rc1, err1[-200:]))
        rc, hdr, err = run(["h5dump", "-p", "-H", "-d", "/f4_2d", dst])
        C.ok(rc == 0 and "FILTER_ID 32026" in hdr and "COMMENT blosc2" in hdr,
             "h5dump -p -H does not show filter 32026 / blosc2: %s" % (hdr + err)[-400:])
        rc, out, err = run(["h5repack", "-f", "NONE", dst, back])
        C.ok(rc == 0, "h5repack -f NONE exited %d: %s" % (rc, err.strip()))
        rc, out, err = run(["h5diff", src, back])
        C.ok(rc == 0, "h5diff after -f NONE exited %d: %s" % (rc, (out + err)[-300:]))
        nf, nfr = filtered_chunks(back)
        C.ok(nf == 0, "-f NONE left %d datasets with the filter" % nf)


CDL = """netcdf a {
dimensions:
  x = %d ; y = %d ; t = UNLIMITED ;
variables:
  float v(x, y) ;
  int w(t) ;
  double z(x) ;
data:
  v = %s ;
  w = %s ;
  z = %s ;
}
"""


def nc_tools(tmp):
    tools = ("ncgen", "nccopy", "ncdump")
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        print("netCDF part skipped: %s not installed" % ", ".join(missing))
        return
    nx, ny, nt = 40, 30, 500
    v = ", ".join("%g" % (((i * 37) % 1000) / 8.0) for i in range(nx * ny))
    w = ", ".join(str(i // 3) for i in range(nt))
    z = ", ".join("%g" % (i * 0.25) for i in range(nx))
    cdl = os.path.join(tmp, "a.cdl")
    with open(cdl, "w") as f:
        f.write(CDL % (nx, ny, v, w, z))
    a, b = os.path.join(tmp, "a.nc"), os.path.join(tmp, "b.nc")
    rc, out, err = run(["ncgen", "-4", "-o", a, cdl])
    if not C.ok(rc == 0, "ncgen exited %d: %s" % (rc, err.strip())):
        return
    rc, out, err = run(["nccopy", "-4", "-F", "v,32026,0,0,0,0,5,1,1", "-F", "w,32026,0,0,0,0,1,2,5",
                        a, b])
    if not C.ok(rc == 0, "nccopy -F exited %d: %s" % (rc, err.strip())):
        return
    rc, meta, err = run(["ncdump", "-s", "-h", b])
    C.ok(rc == 0 and meta.count('_Filter = "32026,') == 2,
         "ncdump -s does not show filter 32026 on v and w: %s" % (meta + err)[-500:])
    rc0, d0, e0 = run(["ncdump", a])
    rc1, d1, e1 = run(["ncdump", b])
    C.ok(rc0 == 0 and rc1 == 0 and data_part(d0) == data_part(d1),
         "ncdump prints different data after nccopy -F (rc %d/%d): %s" % (rc0, rc1, e1[-300:]))
    nf, nfr = filtered_chunks(b)
    C.ok(nf == 2 and nfr == 2, "netCDF file: %d variables filtered, %d with frames (want 2, 2)"
         % (nf, nfr))


def main():
    tmp = b2test.scratch_dir("b2h5tools_")
    h5_tools(tmp)
    nc_tools(tmp)
    C.finish()


main()

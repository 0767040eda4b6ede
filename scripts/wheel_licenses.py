#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""wheel_licenses.py REPAIRED.whl OUTDIR: copy a wheel auditwheel repaired into
OUTDIR with the licence text of every library it bundled.

auditwheel copies the shared libraries into b2blosc.libs/ and records, in its
SBOM (dist-info/sboms/auditwheel.cdx.json), the Debian package each came from.
Each package's /usr/share/doc/PKG/copyright (Debian's machine-readable licence
file) goes to dist-info/licenses/bundled/PKG.copyright, with an index naming
the bundled file, package and version; RECORD is written again. A bundled
library whose package has no licence file fails the build."""
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile


def packages_of(sbom_json):
    """{Debian package: version} of the SBOM's deb components."""
    sbom = json.loads(sbom_json)
    out = {}
    for c in sbom.get("components", []):
        m = re.match(r"pkg:deb/[^/]+/([^@]+)@([^?#]+)", c.get("purl", ""))
        if m:
            out[m.group(1)] = c.get("version", m.group(2))
    return out


def owner(libname):
    """Debian package of a bundled file (libzstd-6bb594bb.so.1.5.4 -> libzstd1)."""
    plain = re.sub(r"-[0-9a-f]{8}(\.so)", r"\1", libname)
    r = subprocess.run(["dpkg", "-S", "*/" + plain], capture_output=True, text=True)
    pkgs = {line.split(":")[0] for line in r.stdout.splitlines() if line}
    return plain, sorted(pkgs)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main(src, outdir):
    zin = zipfile.ZipFile(src)
    names = zin.namelist()
    distinfo = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
    pkgs = packages_of(zin.read(distinfo + "/sboms/auditwheel.cdx.json"))
    files = {n: zin.read(n) for n in names if not n.endswith("/") and n != distinfo + "/RECORD"}
    index = ["Libraries bundled in b2blosc.libs/ by auditwheel, their Debian package and",
             "version, and the licence file (Debian's copyright file of that package).", ""]
    for lib in sorted(n for n in names if n.startswith("b2blosc.libs/") and not n.endswith("/")):
        plain, owners = owner(os.path.basename(lib))
        owners = [p.split(":")[0] for p in owners if p.split(":")[0] in pkgs]
        if len(owners) != 1:
            sys.exit("wheel_licenses: %s (%s): no single Debian package in the SBOM owns it: %s"
                     % (lib, plain, owners))
        index.append("%s  %s  %s %s  licenses/bundled/%s.copyright"
                     % (os.path.basename(lib), plain, owners[0], pkgs[owners[0]], owners[0]))
    for pkg in sorted(pkgs):
        path = os.path.realpath("/usr/share/doc/%s/copyright" % pkg)
        if not os.path.isfile(path):
            sys.exit("wheel_licenses: no licence file %s for bundled package %s" % (path, pkg))
        with open(path, "rb") as f:
            files["%s/licenses/bundled/%s.copyright" % (distinfo, pkg)] = f.read()
    files["%s/licenses/bundled/INDEX" % distinfo] = ("\n".join(index) + "\n").encode()
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, os.path.basename(src))
    record = [record_line(n, d) for n, d in files.items()] + [distinfo + "/RECORD,,"]
    with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as zout:
        for n in names:
            if n in files:
                info = zin.getinfo(n)
                zout.writestr(info, files.pop(n))
        for n, d in sorted(files.items()):  # the licence files
            zout.writestr(n, d)
        zout.writestr(distinfo + "/RECORD", "\n".join(record) + "\n")
    os.replace(out + ".tmp", out)
    print("\n".join(index))
    print("wheel_licenses: %d licence files added, wheel %s" % (len(pkgs), out))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: wheel_licenses.py REPAIRED.whl OUTDIR")
    main(sys.argv[1], sys.argv[2])

# SPDX-License-Identifier: BSD-3-Clause
"""The Debian package (cmake/B2Package.cmake): configure a packaging tree of the
sources with -DCMAKE_INSTALL_PREFIX=/usr (Release, no tests), build it, run
`cpack -G DEB`, then check

  * the man page tools/b2.1: groff renders it without warnings, and it covers
    every subcommand and every long option the built b2's --help texts name;
  * `dpkg-deb --contents`: library, headers in usr/include/b2blosc/, pkg-config
    and CMake files, static libraries, the HDF5 plugin in exactly the default
    plugin directory of the system's HDF5 (read from h5py with
    HDF5_PLUGIN_PATH unset) and a relative symlink to it in the Open MPI HDF5's
    (hdf5/openmpi/plugins), usr/bin/b2 and its man page, a DEP-5 copyright file
    (BSD-3-Clause, LICENSE's text) and changelog.Debian.gz in
    usr/share/doc/libb2blosc, nothing outside usr/ and nothing in a
    non-multiarch libdir; lintian (when installed) reports no error or warning;
  * `dpkg-deb -I`: package name and version, Depends naming liblz4, libzstd,
    libdeflate0, msgpack, libhdf5 and libc, every name a package dpkg knows here;
  * `apt-get install -s ./FILE.deb` (a simulation): apt resolves it, removing
    nothing;
  * `dpkg -x` into a scratch root: the extracted b2 --version and a round trip,
    the extracted libb2blosc.so.1 through ctypes, a program compiled with the
    extracted b2blosc.pc (linked to the shared and to the static library), and
    h5py writing and reading a dataset with filter 32026 with HDF5_PLUGIN_PATH
    set to the extracted plugin directory (the scratch root cannot be HDF5's
    default path), checking the plugin that process mapped is the extracted
    one; then, as root, in a private mount namespace with the extracted plugin
    directory bind-mounted over HDF5's default one, h5py with HDF5_PLUGIN_PATH
    unset;
  * examples/h5_dataset.c built the plugin way against each HDF5 flavour whose
    pkg-config module is installed (hdf5-serial, hdf5-openmpi): its default
    plugin directory (H5PLget) is the package's, and the program finds the
    extracted plugin (LD_DEBUG=files shows which file that flavour's libhdf5
    loaded) through HDF5_PLUGIN_PATH set to that flavour's directory, and, as
    root in a private mount namespace with the extracted usr/lib/<triplet>/hdf5
    bind-mounted over the system's, with HDF5_PLUGIN_PATH unset. The Open MPI
    build runs as a singleton (no MPI_Init, no mpirun).

The package is never installed into the system. Needs cmake/cpack, dpkg-dev
(dpkg-shlibdeps, dpkg-architecture) and groff; skips (77) when one is missing.
Not registered in sanitizer builds (tests/CMakeLists.txt): it builds its own
uninstrumented tree."""
import ctypes
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test as bt  # noqa: E402

PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
MAN = os.path.join(bt.REPO, "tools", "b2.1")

check = bt.Checks()
failures = check.failures


def clean_env(**extra):
    return bt.clean_env(("LD_PRELOAD", "HDF5_PLUGIN_PATH", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH"),
                        **extra)


def run(cmd, env=None, cwd=None, timeout=300, what=None):
    p = subprocess.run(cmd, cwd=cwd, env=env or clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    out = p.stdout.decode(errors="replace")
    if p.returncode != 0:
        print("FAIL: %s (exit %d):\n%s" % (what or " ".join(cmd), p.returncode, out[-4000:]))
        failures.append(what or " ".join(cmd))
    return p.returncode == 0, out


def project_version():
    return bt.version_macros()[0]


def multiarch():
    for cmd in (["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], ["gcc", "-print-multiarch"]):
        try:
            t = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=clean_env()).stdout.decode().strip()
        except OSError:
            continue
        if t:
            return t
    return None


def hdf5_default_plugin_dirs():
    """HDF5's plugin search path with HDF5_PLUGIN_PATH unset, as h5py sees it."""
    code = ("import h5py.h5pl as p\n"
            "for i in range(p.size()): print(p.get(i).decode())\n")
    p = subprocess.run([PY, "-c", code], env=clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        bt.skip("h5py not usable by %s: %s" % (PY, p.stderr.decode(errors="replace")[-300:]))
    dirs = []
    for line in p.stdout.decode().splitlines():
        dirs += [d.rstrip("/") for d in line.split(":") if d]
    return dirs


def check_man(b2):
    """The man page renders cleanly and names every subcommand and long option."""
    p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", MAN], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=clean_env())
    err = p.stderr.decode(errors="replace").strip()
    check(p.returncode == 0 and not err, "groff -man -ww renders tools/b2.1 cleanly: %s" % err)
    if shutil.which("man"):
        p = subprocess.run(["man", "--warnings", "-l", MAN], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=clean_env(MANWIDTH="80", MAN_KEEP_FORMATTING="0"))
        err = p.stderr.decode(errors="replace").strip()
        check(p.returncode == 0 and not err, "man --warnings -l tools/b2.1: %s" % err)
    with open(MAN) as f:
        src = f.read().replace("\\-", "-")
    top = subprocess.run([b2, "--help"], stdout=subprocess.PIPE).stdout.decode()
    cmds = re.findall(r"^  ([a-z]+) ", top.split("commands:")[1], re.M)
    check(len(cmds) >= 8, "b2 --help lists the commands (%s)" % cmds)
    for c in cmds:
        check(re.search(r'^\.SS "b2 %s\b' % c, src, re.M), "man page has a section for b2 %s" % c)
        h = subprocess.run([b2, c, "--help"], stdout=subprocess.PIPE).stdout.decode()
        for opt in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", h))):
            check(opt in src, "man page names option %s of b2 %s" % (opt, c))
    check("--version" in src, "man page names --version")


def packaging_tree(tmp):
    """A built tree configured for packaging: $B2_BUILD_DIR when it already has
    prefix /usr and no sanitizers, else a fresh one in tmp."""
    bd = os.environ.get("B2_BUILD_DIR")
    if bd and os.path.isfile(os.path.join(bd, "CMakeCache.txt")):
        with open(os.path.join(bd, "CMakeCache.txt")) as f:
            cache = f.read()
        if (re.search(r"^CMAKE_INSTALL_PREFIX:PATH=/usr/?$", cache, re.M)
                and not re.search(r"^B2_SANITIZE:BOOL=ON$", cache, re.M)):
            print("using the build tree %s (prefix /usr)" % bd)
            return bd
    build = os.path.join(tmp, "build")
    t0 = time.time()
    ok, _ = run(["cmake", "-S", bt.REPO, "-B", build, "-DCMAKE_INSTALL_PREFIX=/usr",
                 "-DCMAKE_BUILD_TYPE=Release", "-DB2_BUILD_TESTS=OFF"], what="configure packaging tree")
    if ok:
        ok, _ = run(["cmake", "--build", build, "-j2"], timeout=600, what="build packaging tree")
    print("packaging tree configured and built in %.1f s" % (time.time() - t0))
    return build if ok else None


def contents(deb):
    """{path: mode string} and {symlink path: its target} of the package."""
    ok, out = run(["dpkg-deb", "--contents", deb], what="dpkg-deb --contents")
    paths, links = {}, {}
    for line in out.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 6:
            continue
        name, _, target = parts[5].partition(" -> ")
        name = re.sub(r"^\./", "", name).rstrip("/")
        if name and name != ".":
            paths[name] = parts[0]
            if target:
                links[name] = target
    return paths, links


def hdf5_flavours():
    """{flavour: pkg-config module} of Debian's HDF5 builds whose -dev package is
    installed: serial (libhdf5-dev) and Open MPI (libhdf5-openmpi-dev)."""
    found = {}
    if shutil.which("pkg-config"):
        for flavour in ("serial", "openmpi"):
            mod = "hdf5-" + flavour
            if subprocess.run(["pkg-config", "--exists", mod], env=clean_env()).returncode == 0:
                found[flavour] = mod
    return found


PLUGIN_DIRS_C = r'''
#include <hdf5.h>
#include <stdio.h>
int main(void)
{
    unsigned n = 0;
    char buf[4096];
    if (H5PLsize(&n) < 0) return 1;
    for (unsigned i = 0; i < n; i++) {
        if (H5PLget(i, buf, sizeof buf) < 0) return 1;
        printf("%s\n", buf);
    }
    return 0;
}
'''


def check_example_flavours(tmp, root, triplet, can_mount):
    """examples/h5_dataset.c built the plugin way (links only libhdf5) against each
    installed HDF5 flavour: it finds filter 32026 in the extracted package through
    HDF5_PLUGIN_PATH set to that flavour's plugin directory, and (root, private
    mount namespace, the extracted usr/lib/<triplet>/hdf5 bind-mounted over the
    system's) with HDF5_PLUGIN_PATH unset. Checks through LD_DEBUG=files which
    plugin file the flavour's libhdf5 loaded."""
    cc = shutil.which("cc") or shutil.which("gcc")
    flavours = hdf5_flavours()
    if not check(cc and "serial" in flavours, "cc and pkg-config hdf5-serial (libhdf5-dev) found"):
        return
    if "openmpi" not in flavours:
        print("NOTE: no pkg-config hdf5-openmpi (libhdf5-openmpi-dev): the Open MPI HDF5 was not tried")
    src = os.path.join(bt.REPO, "examples", "h5_dataset.c")
    pl_src = os.path.join(tmp, "plugin_dirs.c")
    with open(pl_src, "w") as f:
        f.write(PLUGIN_DIRS_C)
    sys_hdf5 = "/usr/lib/%s/hdf5" % triplet
    for flavour, mod in sorted(flavours.items()):
        ok, flags = run(["pkg-config", "--cflags", "--libs", mod], what="pkg-config " + mod)
        if not ok:
            continue
        pdir_rel = "usr/lib/%s/hdf5/%s/plugins" % (triplet, flavour)
        # that flavour's default plugin directory is the one the package fills
        pl = os.path.join(tmp, "plugin_dirs_" + flavour)
        if run([cc, pl_src, "-o", pl] + flags.split(), what="compile H5PLget lister with " + mod)[0]:
            ok, out = run([pl], env=clean_env(), what="default plugin path of " + mod)
            dirs = [d.rstrip("/") for line in out.splitlines() for d in line.split(":") if d]
            check(("/" + pdir_rel) in dirs, "%s's default plugin path %s holds /%s" % (mod, dirs, pdir_rel))
        exe = os.path.join(tmp, "h5_dataset_plugin_" + flavour)
        if not run([cc, "-O2", "-DB2_EXAMPLE_USE_PLUGIN", src, "-o", exe] + flags.split(),
                   what="compile examples/h5_dataset.c (plugin route) with " + mod)[0]:
            continue
        lib = "libhdf5_%s.so" % flavour

        def loaded(out, want_dir):
            got = sorted(set(re.findall(r"file=(\S*/libH5Zb2\.so) \[\d+\];\s+dynamically loaded by (\S+)",
                                        out)))
            return len(got) == 1 and got[0][0] == want_dir + "/libH5Zb2.so" \
                and os.path.basename(got[0][1]).startswith(lib), got

        pdir = os.path.join(root, pdir_rel)
        ok, out = run([exe, os.path.join(tmp, "ex_%s.h5" % flavour)],
                      env=clean_env(HDF5_PLUGIN_PATH=pdir, LD_DEBUG="files"),
                      what="h5_dataset_plugin (%s) with HDF5_PLUGIN_PATH=%s" % (mod, pdir))
        good, got = loaded(out, pdir)
        print("h5_dataset_plugin (%s), HDF5_PLUGIN_PATH=%s: loaded %s" % (mod, pdir, got))
        check(ok and "h5_dataset: OK" in out and good,
              "h5_dataset_plugin linked with %s finds the extracted plugin through "
              "HDF5_PLUGIN_PATH (loaded %s)" % (mod, got))
        if can_mount:
            script = 'mount --bind "$1" "$2" && exec "$3" "$4"'
            ok, out = run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                           os.path.join(root, "usr", "lib", triplet, "hdf5"), sys_hdf5, exe,
                           os.path.join(tmp, "ex_default_%s.h5" % flavour)],
                          env=clean_env(LD_DEBUG="files"),
                          what="h5_dataset_plugin (%s), HDF5_PLUGIN_PATH unset" % mod)
            good, got = loaded(out, "/" + pdir_rel)
            print("h5_dataset_plugin (%s), HDF5_PLUGIN_PATH unset: loaded %s" % (mod, got))
            check(ok and "h5_dataset: OK" in out and good,
                  "h5_dataset_plugin linked with %s finds the plugin in /%s without "
                  "HDF5_PLUGIN_PATH (loaded %s)" % (mod, pdir_rel, got))


def main():
    for tool in ("cmake", "cpack", "dpkg-deb", "dpkg-shlibdeps", "groff"):
        if not shutil.which(tool):
            bt.skip("%s not found (packages cmake, dpkg-dev, groff-base)" % tool)
    b2_built = bt.b2_bin()
    triplet = multiarch()
    if not triplet:
        bt.skip("no multiarch triplet (dpkg-architecture or gcc -print-multiarch)")
    version = project_version()
    libdir = "usr/lib/" + triplet
    plugin_dir = libdir + "/hdf5/serial/plugins"
    mpi_plugin_dir = libdir + "/hdf5/openmpi/plugins"  # Debian's Open MPI HDF5 looks here
    docdir = "usr/share/doc/libb2blosc"

    check_man(b2_built)

    # The plugin directory in the package is the one HDF5 searches by default.
    defaults = hdf5_default_plugin_dirs()
    check("/" + plugin_dir in defaults,
          "the package's plugin directory /%s is HDF5's default plugin path %s" % (plugin_dir, defaults))

    tmp = tempfile.mkdtemp(prefix="b2pkg-")
    try:
        build = packaging_tree(tmp)
        if not build:
            return
        out_dir = os.path.join(tmp, "deb")
        t0 = time.time()
        ok, out = run(["cpack", "-G", "DEB", "-B", out_dir], cwd=build, what="cpack -G DEB")
        print("cpack -G DEB took %.1f s" % (time.time() - t0))
        debs = glob.glob(os.path.join(out_dir, "*.deb"))
        if not check(ok and len(debs) == 1, "cpack made one .deb (%s)" % debs):
            return
        deb = debs[0]
        print("package: %s (%d bytes)" % (os.path.basename(deb), os.path.getsize(deb)))
        check(re.match(r"libb2blosc_%s-\d+_[a-z0-9]+\.deb$" % re.escape(version), os.path.basename(deb)),
              "file name libb2blosc_%s-<release>_<arch>.deb" % version)

        # ---- what the package holds ----
        paths, links = contents(deb)
        headers = [os.path.basename(h) for h in glob.glob(os.path.join(bt.REPO, "libb2", "include", "b2blosc", "*.h"))]
        headers.append("b2_h5filter.h")
        want = ["usr/bin/b2", "usr/share/man/man1/b2.1.gz",
                libdir + "/libb2blosc.so", libdir + "/libb2blosc.so.1", libdir + "/libb2blosc.so.%s" % version,
                libdir + "/libb2blosc.a", libdir + "/libb2blosc_h5filter.a",
                libdir + "/pkgconfig/b2blosc.pc", libdir + "/pkgconfig/b2blosc_h5filter.pc",
                libdir + "/cmake/b2blosc/b2bloscConfig.cmake",
                libdir + "/cmake/b2blosc/b2bloscConfigVersion.cmake",
                libdir + "/cmake/b2blosc/b2bloscTargets.cmake",
                plugin_dir + "/libH5Zb2.so", mpi_plugin_dir + "/libH5Zb2.so",
                docdir + "/copyright", docdir + "/changelog.Debian.gz",
                "usr/lib/python3/dist-packages/b2blosc_h5.py"] + \
            ["usr/lib/python3/dist-packages/b2blosc/%s.py" % m
             for m in ("__init__", "_filters", "_loader", "_libb2", "_version", "array", "h5")] + \
            ["usr/include/b2blosc/" + h for h in headers]
        for w in want:
            check(w in paths, "package holds /%s" % w)
        check(paths.get("usr/bin/b2", "").startswith("-rwx"), "usr/bin/b2 is executable")
        # one plugin file; the Open MPI flavour's directory has a relative symlink to it
        check(paths.get(plugin_dir + "/libH5Zb2.so", "").startswith("-") and plugin_dir + "/libH5Zb2.so" not in links,
              "/%s/libH5Zb2.so is a regular file" % plugin_dir)
        mlink = links.get(mpi_plugin_dir + "/libH5Zb2.so")
        check(mlink == "../../serial/plugins/libH5Zb2.so",
              "/%s/libH5Zb2.so is a relative symlink to the serial one (-> %s)" % (mpi_plugin_dir, mlink))
        check(sum(1 for p in paths if p.endswith("/libH5Zb2.so") and p not in links) == 1,
              "the package holds one plugin file")
        stray = [p for p in paths if not (p == "usr" or p.startswith("usr/"))
                 or p.startswith("usr/local") or re.match(r"usr/lib/[^/]*\.(so|a)", p)
                 or p.startswith("usr/lib/hdf5") or p.startswith("usr/lib/cmake")
                 or p.startswith("usr/lib/pkgconfig")
                 or (p.startswith("usr/lib/python3") and p != "usr/lib/python3"
                     and not p.startswith("usr/lib/python3/dist-packages"))]
        check(not stray, "nothing outside /usr or in a non-multiarch libdir: %s" % stray)

        # ---- control fields ----
        ok, info = run(["dpkg-deb", "-I", deb], what="dpkg-deb -I")
        print(info)
        fields = {}
        for key in ("Package", "Version", "Depends", "Architecture"):
            fields[key] = subprocess.run(["dpkg-deb", "-f", deb, key], stdout=subprocess.PIPE,
                                         env=clean_env()).stdout.decode().strip()
        check(fields["Package"] == "libb2blosc", "Package: libb2blosc (%s)" % fields["Package"])
        check(fields["Version"].startswith(version + "-"), "Version %s-<release> (%s)" % (version, fields["Version"]))
        deps = fields["Depends"]
        names = [re.split(r"[\s(]", alt.strip())[0] for d in deps.split(",") for alt in d.split("|")]
        for lib in ("liblz4", "libzstd", "libdeflate0", "libmsgpackc", "libhdf5", "libc6"):
            check(any(n.startswith(lib) for n in names), "Depends names %s*: %s" % (lib, deps))
        for n in names:
            q = subprocess.run(["dpkg-query", "-W", n], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=clean_env())
            check(q.returncode == 0, "dependency %s is a package dpkg knows here" % n)

        for member, want_re in (("shlibs", r"^libb2blosc 1 libb2blosc \(>= %s-" % re.escape(version)),
                                ("triggers", r"^activate-noawait ldconfig$")):
            m = subprocess.run(["dpkg-deb", "-I", deb, member], stdout=subprocess.PIPE,
                               env=clean_env()).stdout.decode()
            check(re.search(want_re, m, re.M), "control member %s matches %s: %r" % (member, want_re, m))

        # apt accepts the package here: dependencies resolvable, nothing removed.
        # A simulation only (-s): the package is never installed into this system.
        if shutil.which("apt-get"):
            ok, out = run(["apt-get", "install", "-s", "--no-install-recommends", "./" + os.path.basename(deb)],
                          cwd=out_dir, what="apt-get install -s ./%s" % os.path.basename(deb))
            check(ok and re.search(r"^Inst libb2blosc ", out, re.M) and re.search(r"\b0 to remove\b", out),
                  "apt-get -s would install libb2blosc and remove nothing:\n" + out[-1500:])

        # ---- extracted into a scratch root ----
        root = os.path.join(tmp, "root")
        ok, _ = run(["dpkg", "-x", deb, root], what="dpkg -x")
        if not ok:
            return
        rlib = os.path.join(root, libdir)
        # the packaged b2blosc.open/save find the packaged C library
        libb2_py = os.path.join(root, "usr", "lib", "python3", "dist-packages", "b2blosc", "_libb2.py")
        m = re.search(r'^_INSTALLED_LIB = "([^"]*)"', open(libb2_py).read(), re.M) \
            if os.path.isfile(libb2_py) else None
        check(m is not None and m.group(1) == "/%s/libb2blosc.so.1" % libdir,
              "b2blosc._libb2 names the packaged library (%s)" % (m.group(1) if m else "no _INSTALLED_LIB"))

        # Debian's machine-readable copyright file (DEP-5) with the licence's full text
        cpath = os.path.join(root, docdir, "copyright")
        ctext = open(cpath).read() if os.path.isfile(cpath) else ""
        with open(os.path.join(bt.REPO, "LICENSE")) as f:
            lic = f.read()
        check(ctext.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"),
              "copyright is in DEP-5 format: %r" % ctext[:100])
        check(re.search(r"^Files: \*\nCopyright: .*The libb2 authors\nLicense: BSD-3-Clause$", ctext, re.M),
              "copyright: Files: * / Copyright: The libb2 authors / License: BSD-3-Clause")
        body = re.search(r"^License: BSD-3-Clause\n((?: .*\n)+)\Z", ctext, re.M)
        norm = lambda t: " ".join(t.replace("\n .\n", "\n").split())  # noqa: E731
        check(body and norm(body.group(1)) in norm(lic) and "Redistribution and use" in body.group(1)
              and "SUCH DAMAGE" in body.group(1),
              "copyright holds LICENSE's full BSD-3-Clause text")
        check(paths.get(docdir + "/copyright", "").startswith("-rw-r--r--"), "copyright is mode 644")
        ok, chlog = run(["sh", "-c", 'gzip -dc "$1" | head -1', "sh", os.path.join(root, docdir, "changelog.Debian.gz")],
                        what="read changelog.Debian.gz")
        check(chlog.startswith("libb2blosc (%s) " % fields["Version"]),
              "changelog.Debian.gz names version %s: %r" % (fields["Version"], chlog[:80]))

        # lintian (when installed): no error, and only the warnings that come with
        # one CPack-made package holding both the run-time library and its
        # development files (Debian would split libb2blosc0 / libb2blosc-dev), CPack's
        # own ldconfig calls in postinst/postrm, and a changelog closing no ITP bug.
        if shutil.which("lintian"):
            ok, out = run(["lintian", "--tag-display-limit", "0", deb], what="lintian")
            print("lintian:\n" + out.strip())
            known = ("link-to-shared-library-in-wrong-package", "package-name-doesnt-match-sonames",
                     "maintscript-calls-ldconfig", "initial-upload-closes-no-bugs")
            tags = re.findall(r"^([EW]): libb2blosc[^:]*: (\S+)", out, re.M)
            bad = [t for t in tags if t[0] == "E" or t[1] not in known]
            check(ok and not bad, "lintian reports no error and no unexpected warning: %s" % bad)
        else:
            print("NOTE: lintian not installed: the package was not linted")
        renv = clean_env(LD_LIBRARY_PATH=rlib)
        rb2 = os.path.join(root, "usr", "bin", "b2")
        ok, out = run([rb2, "--version"], env=renv, what="extracted b2 --version")
        check(out.strip().startswith("b2 (libb2) %s, SIMD kernels: " % version),
              "b2 --version says %s: %r" % (version, out.strip()))
        raw = os.path.join(tmp, "data.raw")
        with open(raw, "wb") as f:
            f.write(b"".join(i.to_bytes(4, "little") for i in range(100000)))
        fr = os.path.join(tmp, "data.b2frame")
        back = os.path.join(tmp, "back.raw")
        if run([rb2, "compress", "--codec", "zstd", "--typesize", "4", raw, fr], env=renv)[0] \
                and run([rb2, "decompress", fr, back], env=renv)[0]:
            check(open(back, "rb").read() == open(raw, "rb").read(), "extracted b2 compress/decompress round trip")
            check(os.path.getsize(fr) < os.path.getsize(raw) // 4, "the frame is compressed")

        lib = ctypes.CDLL(os.path.join(rlib, "libb2blosc.so.1"))
        lib.b2_version.restype = ctypes.c_char_p
        check(lib.b2_version().decode() == version, "extracted libb2blosc.so.1: b2_version() == %s" % version)

        cc = shutil.which("cc") or shutil.which("gcc")
        if check(cc is not None and shutil.which("pkg-config"), "cc and pkg-config found"):
            penv = clean_env(PKG_CONFIG_PATH=os.path.join(rlib, "pkgconfig"))
            ok, flags = run(["pkg-config", "--cflags", "--libs", "b2blosc"], env=penv, what="pkg-config b2blosc")
            incs = [os.path.normpath(f[2:]) for f in flags.split() if f.startswith("-I")]
            check(os.path.join(root, "usr", "include", "b2blosc") in incs,
                  "extracted b2blosc.pc points into the extracted root: %s" % flags.strip())
            src = os.path.join(tmp, "v.c")
            with open(src, "w") as f:
                f.write('#include <stdio.h>\n#include <string.h>\n#include "b2_common.h"\n'
                        'int main(void){ puts(b2_version()); return strcmp(b2_version(), "%s") != 0; }\n'
                        % version)
            exe = os.path.join(tmp, "v")
            if ok and run([cc, src, "-o", exe] + flags.split(), env=penv, what="compile with the extracted b2blosc.pc")[0]:
                ok, out = run([exe], env=renv, what="program linked to the extracted libb2blosc.so")
                check(ok and out.strip() == version, "linked program prints %s: %r" % (version, out.strip()))
                # and with the static library, its dependencies from pkg-config --static
                ok, sflags = run(["pkg-config", "--static", "--libs", "b2blosc"], env=penv,
                                 what="pkg-config --static b2blosc")
                sflags = [f for f in sflags.split() if f != "-lb2blosc"]
                exe_s = exe + "_static"
                cflags = [f for f in flags.split() if f.startswith("-I")]
                if ok and run([cc, src, "-o", exe_s] + cflags + [os.path.join(rlib, "libb2blosc.a")] + sflags,
                              env=penv, what="link the extracted libb2blosc.a")[0]:
                    ok, out = run([exe_s], env=clean_env(), what="program linked to the extracted libb2blosc.a")
                    check(ok and out.strip() == version, "statically linked program prints %s" % version)

        # h5py with the extracted plugin
        pdir = os.path.join(root, plugin_dir)
        code = r'''
import sys, numpy as np, h5py
path, pdir = sys.argv[1], sys.argv[2]
assert h5py.h5z.filter_avail(32026), "filter 32026 not available"
a = (np.arange(64 * 256 * 256, dtype=np.float32).reshape(64, 256, 256) % 1000) * 0.25
with h5py.File(path, "w") as f:
    f.create_dataset("x", data=a, chunks=(8, 256, 256), compression=32026)
with h5py.File(path, "r") as f:
    d = f["x"]
    ids = [d.id.get_create_plist().get_filter(i)[0] for i in range(d.id.get_create_plist().get_nfilters())]
    assert ids == [32026], ids
    assert np.array_equal(d[...], a), "data differ"
    stored = d.id.get_storage_size()
    raw = d.id.read_direct_chunk((0, 0, 0))[1]
maps = [l.split()[-1] for l in open("/proc/self/maps") if l.rstrip().endswith("libH5Zb2.so")]
print("stored %d of %d bytes; plugin mapped from %s" % (stored, a.nbytes, sorted(set(maps))))
assert stored < a.nbytes // 4, "not compressed"
assert raw[2:10] == b"b2frame\0" or raw[0] in (2, 3, 4, 5), "chunk is not Blosc2"
assert sorted(set(maps)) == [pdir + "/libH5Zb2.so"], maps
sys.path.insert(0, sys.argv[3])  # the packaged Python module finds the plugin by itself
import b2blosc.h5 as b2h5
with h5py.File(path, "r") as f:
    part, rep = b2h5.read_slice(f["x"], (slice(3, 9), slice(100, 110), 7), report=True)
    assert rep["path"] == "direct", rep
    assert np.array_equal(part, a[3:9, 100:110, 7]), "module read differs"
import os, b2blosc
os.environ["B2_LIBB2"] = sys.argv[4]  # the extracted library (the package names /usr/lib's)
b2 = path + ".b2nd"
b2blosc.save(a[:4], b2, chunks=(2, 64, 64)).close()
with b2blosc.open(b2) as arr:
    assert np.array_equal(arr[1:3, 5:9, 200:], a[1:3, 5:9, 200:]), "b2blosc.open differs"
print("h5py OK")
'''
        pydir = os.path.join(root, "usr", "lib", "python3", "dist-packages")
        h5 = os.path.join(tmp, "pkg.h5")
        extracted_lib = os.path.join(root, libdir, "libb2blosc.so.1")
        ok, out = run([PY, "-c", code, h5, pdir, pydir, extracted_lib], env=clean_env(HDF5_PLUGIN_PATH=pdir),
                      what="h5py with the extracted plugin")
        print(out.strip())
        check(ok and "h5py OK" in out, "h5py writes and reads filter 32026 through the extracted plugin")

        # Without HDF5_PLUGIN_PATH: in a private mount namespace (root only), the
        # extracted plugin directory is bind-mounted over HDF5's default one, as if
        # the package were installed; the system itself never sees it.
        sysdir = "/" + plugin_dir
        can_mount = (os.geteuid() == 0 and shutil.which("unshare") and shutil.which("mount")
                     and os.path.isdir(sysdir)
                     and subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0)
        if can_mount:
            script = 'mount --bind "$1" "$2" && exec "$3" -c "$4" "$5" "$2" "$6" "$7"'
            ok, out = run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                           pdir, sysdir, PY, code, os.path.join(tmp, "default.h5"), pydir, extracted_lib],
                          env=clean_env(),
                          what="h5py with the plugin in HDF5's default directory, HDF5_PLUGIN_PATH unset")
            print(out.strip())
            check(ok and "h5py OK" in out,
                  "h5py finds filter 32026 in %s without HDF5_PLUGIN_PATH" % sysdir)
        else:
            print("NOTE: not root or no mount namespaces: the plugin was not tried in %s" % sysdir)

        # examples/h5_dataset_plugin linked with the serial and with the Open MPI HDF5
        check_example_flavours(tmp, root, triplet, can_mount)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    if failures:
        print("FAIL: %d of %d checks failed" % (len(failures), check.count))
        sys.exit(1)
    print("test_package: OK (%d checks)" % check.count)

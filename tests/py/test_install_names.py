# SPDX-License-Identifier: BSD-3-Clause
"""Installed names coexist with the system: install libb2 from the build tree into
a temporary prefix next to Debian's libb2-dev (BLAKE2, in /usr) and check that

  - no installed file has a path BLAKE2's packages (libb2-dev, libb2-1) or
    c-blosc2 (libblosc2, blosc2.h, b2nd.h, blosc2.pc, Blosc2 CMake files) use;
  - every exported symbol of our shared and static libraries and of the plugin's
    non-HDF5 entry points starts with b2_ (so none starts with blosc or b2nd_),
    and the shared library exports exactly the B2_API functions of the installed
    headers, stable and experimental (a function moved between headers without
    its definition seeing the new header would lose its export);
  - one program links and runs both BLAKE2's libb2 and ours (pkg-config libb2
    b2blosc), each doing real work;
  - the shared library binds its own symbols: with a library that defines
    b2_chunk_compress_bound() (returning 0) loaded first, b2_schunk_append_buffer
    still gets the real bound internally and appends, while the program's own
    call reaches the interposer.

Needs B2_BUILD_DIR, cmake, cc, pkg-config, nm and Debian's libb2-dev (scripts/setup.sh
installs it); skips (77) when one is missing, and CI fails on skips."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test as bt  # noqa: E402

SAN_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]

# Paths (relative to the prefix, multiarch libdir folded into lib/) that c-blosc2
# installs: its libraries, headers, pkg-config and CMake package.
CBLOSC2 = re.compile(r"^(lib/libblosc2\.(so|a)(\.[0-9.]+)?|include/(blosc2\.h|b2nd\.h|blosc2/.*)|"
                     r"lib/pkgconfig/blosc2\.pc|lib/cmake/[Bb]losc2/.*)$")

check = bt.Checks()
failures = check.failures


def norm(rel):
    """Fold lib/<multiarch>/ into lib/ so a /usr install and a prefix compare."""
    return re.sub(r"^lib/[a-z0-9_]+-linux-gnu[a-z]*/", "lib/", rel)


env_clean = bt.clean_env


def run(cmd, env, **kw):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    out = p.stdout.decode(errors="replace")
    if not check(p.returncode == 0, "%s exited %d" % (" ".join(cmd), p.returncode)):
        print(out[-3000:])
    return p.returncode == 0, out


def exported(path, dynamic):
    """Defined global symbols of a shared object (dynamic) or an archive."""
    args = ["nm", "-D", "--defined-only", path] if dynamic else ["nm", "-g", "--defined-only", path]
    out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    syms = []
    for line in out.splitlines():
        f = line.split()
        # sanitizer builds add their own bookkeeping symbols (__odr_asan.*, __asan_*)
        if len(f) == 3 and f[1] not in ("U", "w", "v") and not f[2].startswith("__"):
            syms.append(f[2])
    return syms


def installed_api(prefix):
    """Names of the B2_API functions the installed library headers declare."""
    names = set()
    for h in glob.glob(os.path.join(prefix, "include", "b2blosc", "b2_*.h")):
        text = open(h).read()
        for m in re.finditer(r"^\s*B2_API\b[^;(]*?\b(b2_\w+)\s*\(", text, re.M):
            names.add(m.group(1))
    return names


BOTH_C = r"""
#include <blake2.h>
#include <b2_chunk.h>
#include <b2_nd.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    /* BLAKE2b-512("abc"), RFC 7693 appendix A */
    static const char want[] = "ba80a53f981c4d0d6a2797b69f12f6e9";
    unsigned char h[64];
    char hex[65];
    if (blake2b(h, "abc", NULL, 64, 3, 0) != 0) return 1;
    for (int i = 0; i < 16; i++) sprintf(hex + 2 * i, "%02x", h[i]);
    if (strcmp(hex, want)) { printf("blake2b: %s\n", hex); return 2; }

    int32_t src[4096], back[4096];
    for (int i = 0; i < 4096; i++) src[i] = i * 7;
    b2_cparams p;
    b2_cparams_init(&p);
    p.typesize = 4;
    b2_cctx *c = b2_cctx_new(&p);
    b2_dctx *d = b2_dctx_new(1);
    static unsigned char chunk[sizeof src + 64];
    int n = b2_chunk_compress(c, src, sizeof src, chunk, sizeof chunk);
    int m = n > 0 ? b2_chunk_decompress(d, chunk, (size_t)n, back, sizeof back) : n;
    b2_cctx_free(c);
    b2_dctx_free(d);
    if (m != (int)sizeof src || memcmp(src, back, sizeof src)) { printf("b2: %d %d\n", n, m); return 3; }
    printf("both: OK blake2b %s..., b2 %s chunk %d -> %d bytes\n", want, b2_version(), m, n);
    return 0;
}
"""

INTERPOSE_C = r"""
#include <stddef.h>
/* Same name as libb2blosc's function, wrong answer: a library built with
 * -Bsymbolic never calls this one for its own internal uses. */
size_t b2_chunk_compress_bound(size_t nbytes) { (void)nbytes; return 0; }
"""

BIND_C = r"""
#include <b2_frame.h>
#include <b2_chunk.h>
#include <stdio.h>

int main(void)
{
    static double x[10000];
    for (int i = 0; i < 10000; i++) x[i] = i * 0.5;
    size_t mine = b2_chunk_compress_bound(sizeof x); /* the interposer's 0 */
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE; /* no source: a new frame in memory, default cparams */
    b2_schunk *s = NULL;
    if (b2_schunk_open_with(&o, &s) < 0) s = NULL;
    int64_t r = s ? b2_schunk_append_buffer(s, x, (int32_t)sizeof x) : -1;
    int64_t n = s ? b2_schunk_nchunks(s) : -1;
    b2_schunk_free(s);
    printf("program sees bound %zu; append -> %lld, %lld chunk(s)\n", mine, (long long)r, (long long)n);
    if (mine != 0) return 4;       /* interposer not first: the test proves nothing */
    return r >= 0 && n == 1 ? 0 : 5;
}
"""


def main():
    build = os.environ.get("B2_BUILD_DIR")
    if not build or not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        bt.skip("B2_BUILD_DIR is not a configured build tree")
    for tool in ("cmake", "cc", "pkg-config", "nm", "dpkg-query"):
        if not shutil.which(tool):
            bt.skip("%s not found" % tool)
    env = env_clean()
    debian = subprocess.run(["dpkg-query", "-L", "libb2-dev", "libb2-1"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    if debian.returncode != 0 or not os.path.isfile("/usr/include/blake2.h"):
        bt.skip("Debian's libb2-dev (BLAKE2) is not installed (apt-get install libb2-dev)")
    theirs = {norm(os.path.relpath(p, "/usr")) for p in debian.stdout.decode().split()
              if p.startswith("/usr/") and not os.path.isdir(p)}
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        sanitize = re.search(r"^B2_SANITIZE:BOOL=(ON|TRUE|1)$", f.read(), re.M) is not None
    cflags = ["-O1", "-g"] + (SAN_FLAGS if sanitize else [])

    tmp = tempfile.mkdtemp(prefix="b2names-")
    try:
        prefix = os.path.join(tmp, "usr")
        ok, _ = run(["cmake", "--install", build, "--prefix", prefix], env)
        if not ok:
            return 1
        ours = []
        for root, _, files in os.walk(prefix):
            for name in files:
                ours.append(norm(os.path.relpath(os.path.join(root, name), prefix)))
        print("installed %d files; BLAKE2's packages have %d" % (len(ours), len(theirs)))
        check(len(ours) >= 10, "install holds the library, headers and package files: %s" % ours)
        shared = sorted(set(ours) & theirs)
        check(not shared, "files shared with Debian's libb2-dev/libb2-1: %s" % shared)
        clash = [p for p in ours if CBLOSC2.match(p)]
        check(not clash, "files with c-blosc2's names: %s" % clash)
        for p in ours:
            if p.startswith("include/"):
                check(p.startswith("include/b2blosc/"), "header outside include/b2blosc/: %s" % p)

        # ---- exported symbols ----
        libdir = os.path.dirname(glob.glob(os.path.join(prefix, "lib*", "**", "libb2blosc.so"),
                                           recursive=True)[0])
        for lib, dyn in (("libb2blosc.so", True), ("libb2blosc.a", False),
                         ("libb2blosc_h5filter.a", False)):
            path = os.path.join(libdir, lib)
            if not os.path.exists(path):
                check(lib == "libb2blosc_h5filter.a", "%s installed" % lib)
                continue
            syms = exported(path, dyn)
            bad = [s for s in syms if not s.startswith("b2_")]
            check(len(syms) > 50 or "h5filter" in lib, "%s exports its API (%d symbols)" % (lib, len(syms)))
            check(not bad, "%s exports names without the b2_ prefix: %s" % (lib, bad[:20]))
            if lib == "libb2blosc.so":
                declared = installed_api(prefix)
                check(set(syms) == declared,
                      "libb2blosc.so exports exactly the installed headers' B2_API functions "
                      "(exported, not declared: %s; declared, not exported: %s)"
                      % (sorted(set(syms) - declared)[:20], sorted(declared - set(syms))[:20]))
            print("%s: %d exported symbols, all b2_*" % (lib, len(syms)))
        for plugin in glob.glob(os.path.join(prefix, "**", "libH5Zb2.so"), recursive=True):
            syms = exported(plugin, True)
            bad = [s for s in syms if not s.startswith("b2_") and not s.startswith("H5PLget_plugin_")]
            check(not bad, "plugin exports more than its entry points: %s" % bad)
            check(set(syms) >= {"H5PLget_plugin_type", "H5PLget_plugin_info"}, "plugin entry points: %s" % syms)

        # ---- one program, both libraries ----
        pcdir = os.path.join(libdir, "pkgconfig")
        penv = env_clean(PKG_CONFIG_PATH=pcdir)
        pc = subprocess.run(["pkg-config", "--cflags", "--libs", "libb2", "b2blosc"], env=penv,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        flags = pc.stdout.decode().split()
        if not check(pc.returncode == 0 and "-lb2" in flags and "-lb2blosc" in flags,
                     "pkg-config libb2 b2blosc: %s" % " ".join(flags)):
            return 1
        src = os.path.join(tmp, "both.c")
        with open(src, "w") as f:
            f.write(BOTH_C)
        exe = os.path.join(tmp, "both")
        ok, _ = run(["cc"] + cflags + ["-o", exe, src] + flags, env)
        renv = env_clean(LD_LIBRARY_PATH=libdir)
        if ok:
            needed = subprocess.run(["readelf", "-d", exe], stdout=subprocess.PIPE).stdout.decode()
            check("libb2.so.1" in needed and "libb2blosc.so.1" in needed,
                  "the program needs both libb2.so.1 and libb2blosc.so.1")
            ok, out = run([exe], renv)
            check(ok and "both: OK" in out, "BLAKE2 and libb2blosc in one program: %s" % out.strip())
            print(out.strip())

        # ---- symbol binding ----
        isrc, bsrc = os.path.join(tmp, "interpose.c"), os.path.join(tmp, "bind.c")
        with open(isrc, "w") as f:
            f.write(INTERPOSE_C)
        with open(bsrc, "w") as f:
            f.write(BIND_C)
        ilib, bexe = os.path.join(tmp, "libinterpose.so"), os.path.join(tmp, "bind")
        ok1, _ = run(["cc"] + cflags + ["-shared", "-fPIC", "-o", ilib, isrc], env)
        ok2, _ = run(["cc"] + cflags + ["-I", os.path.join(prefix, "include", "b2blosc"), "-o", bexe, bsrc,
                      "-L" + tmp, "-linterpose", "-L" + libdir, "-lb2blosc"], env)
        if ok1 and ok2:
            ok, out = run([bexe], env_clean(LD_LIBRARY_PATH=tmp + os.pathsep + libdir))
            check(ok, "libb2blosc calls its own b2_chunk_compress_bound despite an interposer: %s"
                  % out.strip())
            print(out.strip())
        dyn = subprocess.run(["readelf", "-d", os.path.join(libdir, "libb2blosc.so")],
                             stdout=subprocess.PIPE).stdout.decode()
        check("SYMBOLIC" in dyn, "libb2blosc.so is linked with -Bsymbolic")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("%d checks, %d failures" % (check.count, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

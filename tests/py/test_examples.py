# SPDX-License-Identifier: BSD-3-Clause
"""Install libb2 from the build directory into a temporary prefix, then build the
programs in examples/ against that installation the two documented ways -- with
pkg-config (examples/Makefile) and with find_package(b2blosc) (examples/CMakeLists.txt,
shared and static) -- and run every program, checking its exit code and its final
"<name>: OK" line; h5_parallel (MPI) too where Debian's parallel HDF5 and mpirun are. Also checks what the installation holds and what pkg-config says, and builds the
b2 program from tools/b2/ against the installation alone.

Needs B2_BUILD_DIR (a configured and built tree), cmake, make and pkg-config; skips
(77) when one is missing. In a sanitizer build (B2_SANITIZE=ON in the cache) the
examples are compiled with the same sanitizers, as the installed library needs."""
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

EXAMPLES = os.path.join(bt.REPO, "examples")
BASIC = ["chunk_roundtrip", "frame_file", "frame_user_io", "frame_mmap", "frame_checksums", "metalayers", "b2nd_array", "user_plugins"]
SAN_FLAGS = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

check = bt.Checks()
failures = check.failures


def read_cache(build):
    cache = {}
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                cache[m.group(1)] = m.group(2)
    return cache


clean_env = bt.clean_env


def run(cmd, env, cwd=None, timeout=300):
    """Run a build command; on failure print its output and record it."""
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    out = p.stdout.decode(errors="replace")
    if not check(p.returncode == 0, "%s exited %d" % (" ".join(cmd), p.returncode)):
        print(out[-4000:])
    return p.returncode == 0, out


def run_example(exe, args, env, cwd, want_ok=True):
    """Run one example program; it must exit 0 and end with '<name>: OK'."""
    name = os.path.basename(exe)
    p = subprocess.run([exe] + args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    out = p.stdout.decode(errors="replace")
    label = "%s (%s)" % (name, os.path.basename(os.path.dirname(exe)))
    if want_ok:
        base = name
        for suffix in ("_static", "_plugin"):  # variants of one source file
            base = base[:-len(suffix)] if base.endswith(suffix) else base
        ok = p.returncode == 0 and ("%s: OK" % base) in out
        if not check(ok, "%s exited %d" % (label, p.returncode)):
            print(out[-4000:])
        else:
            print("  ran %-40s ok" % label)
    else:
        # must fail for the expected reason, not for any other
        if not check(p.returncode == 1 and "not found" in out,
                     "%s: exit %d, want 1 with 'not found'" % (label, p.returncode)):
            print(out[-4000:])
        else:
            print("  ran %-40s failed as expected (no plugin)" % label)
    return out


def parallel_example(tmp, make, cmake, cm_args, make_cmd, pkgconfig, penv, env, renv, sanitize):
    """h5_parallel.c built with the Makefile (pkg-config hdf5-openmpi) and with CMake
    (-DHDF5_PREFER_PARALLEL=ON), each run with 2 MPI ranks on the installed plugin.
    Left out, saying why, without Debian's parallel HDF5 or mpirun, and in sanitizer
    builds (MPI's own allocations are not ours to leak-check). Returns the runs made."""
    mpirun = bt.mpirun_command(2)
    if sanitize or mpirun is None or subprocess.run(
            [pkgconfig, "--exists", "hdf5-openmpi"], env=penv).returncode != 0:
        print("note: h5_parallel left out (%s)" % ("sanitizer build" if sanitize else
              "no mpirun" if mpirun is None else "pkg-config has no hdf5-openmpi"))
        return 0
    mk_dir = os.path.join(tmp, "make")
    run(make_cmd + ["h5_parallel"], env, cwd=mk_dir)
    cm_dir = os.path.join(tmp, "cmake-mpi")
    ok, out = run([cmake, "-S", EXAMPLES, "-B", cm_dir, "-DHDF5_PREFER_PARALLEL=ON"] + cm_args, env)
    if ok:
        run([cmake, "--build", cm_dir, "--target", "h5_parallel"], env)
    ran = 0
    for exe in (os.path.join(mk_dir, "h5_parallel"), os.path.join(cm_dir, "h5_parallel")):
        if not check(os.path.isfile(exe), "%s was built" % exe):
            continue
        work = tempfile.mkdtemp(prefix="run-mpi-", dir=tmp)
        p = subprocess.run(mpirun + [exe, os.path.join(work, "par.h5")], cwd=work, env=renv,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        out = p.stdout.decode(errors="replace")
        label = "h5_parallel (%s, 2 ranks)" % os.path.basename(os.path.dirname(exe))
        if check(p.returncode == 0 and "h5_parallel: OK" in out, "%s exited %d" % (label, p.returncode)):
            print("  ran %-40s ok" % label)
        else:
            print(out[-4000:])
        ran += 1
    return ran


def build_b2_installed(tmp, cc, cflags, ldflags, pc, renv):
    """The b2 program compiled from tools/b2/ against the installed library (its
    public headers and pkg-config flags only, HDF5 left out) must print what the
    in-tree b2 prints for a reference frame."""
    srcs = sorted(glob.glob(os.path.join(bt.REPO, "tools", "b2", "*.c")))
    exe = os.path.join(tmp, "b2-installed")
    cmd = ([cc] + cflags.split() + pc("--cflags", "b2blosc") + srcs + ["-o", exe]
           + ldflags.split() + pc("--static", "--libs", "b2blosc"))
    ok, out = run(cmd, renv)
    if not check(ok, "b2 builds against the installed libb2 alone"):
        return
    frame = os.path.join(bt.interop_dir(), "frames", "f01_basic_file.b2frame")
    got = subprocess.run([exe, "info", "--json", frame], env=renv, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=60)
    want = subprocess.run([bt.b2_bin(), "info", "--json", frame], env=renv,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    check(got.returncode == 0 and got.stdout == want.stdout and got.stdout,
          "installed-library b2 info matches the in-tree b2 (rc %d): %s" %
          (got.returncode, got.stderr.decode(errors="replace")[-300:]))
    print("b2 built from tools/b2/ against the installed library: info output identical")


def main():
    build = os.environ.get("B2_BUILD_DIR")
    if not build or not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        bt.skip("B2_BUILD_DIR is not set to a configured build directory")
    cache = read_cache(build)
    cmake = cache.get("CMAKE_COMMAND") or shutil.which("cmake")
    cc = cache.get("CMAKE_C_COMPILER") or shutil.which("cc")
    make = shutil.which("make")
    pkgconfig = shutil.which("pkg-config") or shutil.which("pkgconf")
    for tool, path in (("cmake", cmake), ("C compiler", cc), ("make", make),
                       ("pkg-config", pkgconfig)):
        if not path or not os.access(path, os.X_OK):
            bt.skip("%s not found" % tool)
    sanitize = cache.get("B2_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE", "YES")
    cflags = "-O1 -g -Wall -Wextra -Werror"
    ldflags = ""
    if sanitize:
        cflags += " " + SAN_FLAGS
        ldflags = SAN_FLAGS
        if "clang" in os.path.basename(os.path.realpath(cc)):
            # the library uses clang's shared ASan runtime (CMakeLists.txt): so must they
            rt = subprocess.run([cc, "--print-runtime-dir"], stdout=subprocess.PIPE,
                                universal_newlines=True).stdout.strip()
            ldflags += " -shared-libasan -Wl,-rpath," + rt
        print("sanitizer build: examples compiled with " + SAN_FLAGS)

    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="b2examples-")
    try:
        prefix = os.path.join(tmp, "prefix")
        env = clean_env()
        ok, _ = run([cmake, "--install", build, "--prefix", prefix], env)
        if not ok:
            return 1

        # ---- what the installation holds ----
        pcs = glob.glob(os.path.join(prefix, "lib*", "pkgconfig", "b2blosc.pc")) + \
            glob.glob(os.path.join(prefix, "lib*", "*", "pkgconfig", "b2blosc.pc"))
        if not check(len(pcs) == 1, "b2blosc.pc installed once (found %d)" % len(pcs)):
            return 1
        pcdir = os.path.dirname(pcs[0])
        libdir = os.path.dirname(pcdir)
        print("installed into %s (libdir %s)" % (prefix, os.path.relpath(libdir, prefix)))
        for h in ("b2_common.h", "b2_chunk.h", "b2_frame.h", "b2_nd.h", "b2_plugin.h"):
            check(os.path.isfile(os.path.join(prefix, "include", "b2blosc", h)), "header %s installed" % h)
        for lib in ("libb2blosc.so", "libb2blosc.a"):
            check(os.path.exists(os.path.join(libdir, lib)), "%s installed" % lib)
        check(os.path.isfile(os.path.join(libdir, "cmake", "b2blosc", "b2bloscConfig.cmake")),
              "b2bloscConfig.cmake installed")

        plugin_built = os.path.isfile(os.path.join(build, "h5plugin", "libH5Zb2.so"))
        found = glob.glob(os.path.join(prefix, "**", "libH5Zb2.so"), recursive=True)
        plugins = [p for p in found if not os.path.islink(p)]
        if plugin_built:
            check(len(plugins) == 1, "libH5Zb2.so installed once (found %d)" % len(plugins))
            # and, beside the default hdf5/serial/plugins, a symlink to it where
            # Debian's Open MPI HDF5 looks
            links = [p for p in found if os.path.islink(p)]
            if plugins and plugins[0].endswith("/hdf5/serial/plugins/libH5Zb2.so"):
                check([os.path.relpath(p, libdir) for p in links] == ["hdf5/openmpi/plugins/libH5Zb2.so"]
                      and os.path.realpath(links[0]) == os.path.realpath(plugins[0]),
                      "hdf5/openmpi/plugins/libH5Zb2.so links to the plugin (%s)" % links)
            check(os.path.isfile(os.path.join(prefix, "include", "b2blosc", "b2_h5filter.h")),
                  "b2_h5filter.h installed")
            check(os.path.isfile(os.path.join(libdir, "libb2blosc_h5filter.a")),
                  "libb2blosc_h5filter.a installed")
            check(os.path.isfile(os.path.join(pcdir, "b2blosc_h5filter.pc")),
                  "b2blosc_h5filter.pc installed")
        else:
            print("note: the HDF5 plugin is not in this build; HDF5 examples skipped")

        # ---- pkg-config answers (relocated prefix included) ----
        penv = clean_env(PKG_CONFIG_PATH=pcdir)
        pc = lambda *a: subprocess.run([pkgconfig] + list(a), env=penv, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT).stdout.decode().split()
        version, vstring = bt.version_macros()
        check(vstring == version, "B2_VERSION_STRING %s matches the numeric macros (%s)" % (vstring, version))
        check(pc("--modversion", "b2blosc") == [version],
              "pkg-config --modversion b2blosc: %s, want %s" % (pc("--modversion", "b2blosc"), version))
        flags = pc("--cflags", "--libs", "b2blosc")
        incs = [os.path.realpath(f[2:]) for f in flags if f.startswith("-I")]
        libdirs = [os.path.realpath(f[2:]) for f in flags if f.startswith("-L")]
        check(os.path.realpath(os.path.join(prefix, "include", "b2blosc")) in incs,
              "pkg-config --cflags points into the prefix: %s" % flags)
        check(os.path.realpath(libdir) in libdirs and "-lb2blosc" in flags,
              "pkg-config --libs: %s" % flags)
        sflags = pc("--static", "--libs", "b2blosc")
        # zlib only when it encodes (B2_ZLIB_ENCODER=zlib); libdeflate always decodes
        zlib = () if bt.zlib_own_bytes() else ("-lz",)
        for need in ("-lb2blosc", "-llz4", "-lzstd", "-ldeflate", "-lmsgpackc", "-lm") + zlib:
            check(need in sflags, "pkg-config --static --libs b2blosc has %s: %s" % (need, sflags))
        check(not set(sflags[1:]) & {"-llz4", "-lzstd", "-lmsgpackc"} & set(flags),
              "private deps stay out of plain --libs: %s" % flags)
        hdf5_pc = subprocess.run([pkgconfig, "--exists", "hdf5"], env=penv).returncode == 0
        if plugin_built:
            hf = pc("--libs", "b2blosc_h5filter")
            check("-lb2blosc_h5filter" in hf and "-lb2blosc" in hf, "pkg-config --libs b2blosc_h5filter: %s" % hf)

        # ---- build with the Makefile (pkg-config) ----
        mk_dir = os.path.join(tmp, "make")
        os.makedirs(mk_dir)
        targets = list(BASIC) + ["chunk_roundtrip_static"]
        if plugin_built and hdf5_pc:
            targets += ["h5_dataset", "h5_dataset_plugin"]
        elif plugin_built:
            print("note: pkg-config has no hdf5 module: Makefile HDF5 examples not built")
        run([make, "-f", os.path.join(EXAMPLES, "Makefile"), "-j2", "CC=" + cc,
             "CFLAGS=" + cflags, "LDFLAGS=" + ldflags, "PKG_CONFIG=" + pkgconfig,
             "PKG_CONFIG_PATH=" + pcdir] + targets, env, cwd=mk_dir)

        # ---- build with CMake (find_package), shared, then static ----
        cm_args = ["-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_C_COMPILER=" + cc,
                   "-DCMAKE_BUILD_TYPE=", "-DCMAKE_C_FLAGS=" + cflags,
                   "-DCMAKE_EXE_LINKER_FLAGS=" + ldflags]
        builds = {}
        for kind, static in (("cmake-shared", "OFF"), ("cmake-static", "ON")):
            d = os.path.join(tmp, kind)
            ok, out = run([cmake, "-S", EXAMPLES, "-B", d, "-DLIBB2_EXAMPLES_STATIC=" + static]
                          + cm_args, env)
            if not ok:
                continue
            if plugin_built:
                check("libb2 was installed without" not in out,
                      "%s: find_package(b2blosc) has b2blosc::h5filter" % kind)
            tg = BASIC if static == "OFF" else ["chunk_roundtrip", "b2nd_array"]
            h5_here = "HDF5 not found" not in out
            if plugin_built and h5_here:
                tg = tg + (["h5_dataset", "h5_dataset_plugin"] if static == "OFF" else ["h5_dataset"])
            builds[kind] = tg
            run([cmake, "--build", d, "-j2", "--target"] + tg, env)
        # the static builds must not need libb2blosc.so at run time
        for exe in (os.path.join(mk_dir, "chunk_roundtrip_static"),
                    os.path.join(tmp, "cmake-static", "chunk_roundtrip")):
            if os.path.isfile(exe):
                needed = subprocess.run(["readelf", "-d", exe], stdout=subprocess.PIPE,
                                        env=env).stdout.decode() if shutil.which("readelf") else ""
                check("libb2blosc.so" not in needed, "%s links libb2 statically" % exe)
        print("built in %.1f s" % (time.time() - t0))

        # ---- run everything ----
        renv = clean_env(LD_LIBRARY_PATH=libdir + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""),
                         HDF5_PLUGIN_PATH="/nonexistent")
        if sanitize:
            renv["ASAN_OPTIONS"] = "abort_on_error=0:detect_leaks=1"
            renv["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        plugdir = os.path.dirname(plugins[0]) if plugins else ""
        ran = 0
        dirs = [("make", targets)] + [(k, v) for k, v in builds.items()]
        for d, progs in dirs:
            for prog in progs:
                exe = os.path.join(tmp, d, prog)
                if not check(os.path.isfile(exe), "%s/%s was built" % (d, prog)):
                    continue
                work = os.path.join(tmp, "run-%s-%s" % (d, prog))
                os.makedirs(work)
                e = dict(renv)
                if prog == "h5_dataset_plugin":
                    # without the plugin directory the filter must be missing ...
                    run_example(exe, [], e, work, want_ok=False)
                    e["HDF5_PLUGIN_PATH"] = plugdir  # ... and with it, found
                out = run_example(exe, [os.path.join(work, "out.dat")], e, work)
                ran += 1
                if prog == "h5_dataset" and d == "make":
                    check("registered statically" in out, "h5_dataset used b2_h5_register")
        build_b2_installed(tmp, cc, cflags, ldflags, pc, renv)
        if plugin_built:
            ran += parallel_example(tmp, make, cmake, cm_args, [
                make, "-f", os.path.join(EXAMPLES, "Makefile"), "CC=" + cc, "CFLAGS=" + cflags,
                "LDFLAGS=" + ldflags, "PKG_CONFIG=" + pkgconfig, "PKG_CONFIG_PATH=" + pcdir],
                pkgconfig, penv, env, dict(renv, HDF5_PLUGIN_PATH=plugdir), sanitize)
        print("%d example runs, %d checks, %d failures, %.1f s" %
              (ran, check.count, len(failures), time.time() - t0))
        return 1 if failures else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

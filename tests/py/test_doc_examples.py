# SPDX-License-Identifier: BSD-3-Clause
"""Every code block of README.md and doc/ runs or compiles, or says why not.

Fenced blocks are found in README.md and doc/**/*.md and handled by the first
word of their info string:
  c       a whole program (it has main) is compiled against the built library,
          linked with its rpath and run: exit 0. A block marked
          <!-- c-fragment: DECLS --> on the line before it is compiled only,
          as the body of a function taking DECLS (its #include lines stay at
          the top). <!-- file: NAME --> also writes the block to NAME in the
          page's folder, for the shell blocks after it.
  python  run in order, each in its own process, in one scratch folder per page
          (a block may use a file an earlier one wrote), with python/ on
          PYTHONPATH, the built plugin and library (B2_H5_PLUGIN, B2_LIBB2), an
          empty HDF5_PLUGIN_PATH and warnings as errors. A block importing a
          module this Python lacks (xarray, h5netcdf, zarr) is skipped, saying so.
  sh      run with bash -e -o pipefail in the same folder, with the build tree
          there as build/ (so build/tools/b2 is the built program), b2 and
          python3 (this Python) on PATH and HOME a scratch folder; exit 0. In sanitizer builds (B2_SANITIZED)
          shell blocks are counted, not run: they start uninstrumented programs
          (h5dump, cc) on instrumented libraries.
  text, json, toml and blocks without a language are samples and layouts, not
          code: counted. {toctree} and {eval-rst} are the site's directives
          (doc/index.md, doc/python-api.md): counted. Any other language fails
          the test.
A block of code marked <!-- skip: REASON --> on the line before it is not run;
the test counts and lists these with their reasons, so nothing is left out
silently. Pages have one fixture: doc/hdf5.md's blocks read run.h5 (a 2000x2000
float64 dataset grid/t, 500x500 chunks, lz4), made before its first block.
The counts at the end say how many blocks were compiled, run and skipped."""
import collections
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import pyarray_common as pc  # noqa: E402

REPO = b2test.REPO
BUILD = os.environ.get("B2_BUILD_DIR")
if not BUILD or not os.path.isdir(BUILD):
    b2test.skip("B2_BUILD_DIR is not a build tree")
PLUGIN = os.path.join(hc.plugin_dir(), hc.PLUGIN_NAME)
LIBB2 = pc.package_library()
B2 = b2test.b2_bin()
SANITIZED = os.environ.get("B2_SANITIZED") == "1"
SAN_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"] if SANITIZED else []
OPTIONAL = ("xarray", "h5netcdf", "zarr")
TEXT = {"", "text", "json", "toml"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
MARK = re.compile(r"^<!--\s*(skip|c-fragment|file):\s*(.*?)\s*-->\s*$")
FIXTURES = {
    os.path.join("doc", "hdf5.md"):
        "import numpy as np, h5py, b2blosc\n"
        "with h5py.File('run.h5', 'w') as f:\n"
        "    f.create_dataset('grid/t', data=np.random.rand(2000, 2000), chunks=(500, 500),\n"
        "                     compression=b2blosc.Blosc2('lz4'))\n",
}

check = b2test.Checks()
tmp = b2test.scratch_dir("doc_examples_")
counts = collections.Counter()
skipped = []


def pages():
    yield "README.md"
    for d, dirs, names in os.walk(os.path.join(REPO, "doc")):
        dirs[:] = sorted(x for x in dirs if not x.startswith(("_", ".")))
        for n in sorted(names):
            if n.endswith(".md"):
                yield os.path.relpath(os.path.join(d, n), REPO)


def blocks(text):
    """(line, language, marker kind, marker value, code) of each fenced block."""
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.match(before)
        lang = (m.group(1).split() or [""])[0]
        yield line, lang, mark.group(1) if mark else None, mark.group(2) if mark else None, m.group(2)


def env_for(home):
    env = b2test.clean_env(drop=("LD_PRELOAD",), PYTHONPATH=pc.SOURCE_PYTHONPATH,
                           B2_H5_PLUGIN=PLUGIN, B2_LIBB2=LIBB2, HOME=home,
                           HDF5_PLUGIN_PATH=os.path.join(tmp, "no_plugins"))
    env["PATH"] = os.path.join(tmp, "bin") + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    if os.environ.get("LD_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    return env


def run(cmd, what, cwd, env, timeout=300):
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=timeout)
    return r.returncode, r.stdout


def compile_c(code, where, cwd, env, fragment=None):
    src = os.path.join(cwd, "block_%d.c" % counts["c_seen"])
    counts["c_seen"] += 1
    if fragment is not None:
        inc = [ln for ln in code.splitlines() if ln.startswith("#include")]
        body = [ln for ln in code.splitlines() if not ln.startswith("#include")]
        code = "\n".join(["#include <b2_h5filter.h>"] + inc +
                         ["void fragment(%s);" % (fragment or "void"),
                          "void fragment(%s)" % (fragment or "void"), "{"] + body + ["}", ""])
    with open(src, "w") as f:
        f.write(code)
    inc = ["-I" + os.path.join(REPO, "libb2", "include", "b2blosc"),
           "-I" + os.path.join(REPO, "h5plugin"), "-I/usr/include/hdf5/serial"]
    warn = ["-Wall", "-Werror", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
            "-Wno-unused-parameter"]
    if fragment is not None:
        rc, out = run(["cc", "-std=c11", "-c"] + warn + inc + SAN_FLAGS + [src, "-o", src + ".o"],
                      where, cwd, env)
        if check(rc == 0, "%s: the C fragment does not compile:\n%s" % (where, out)):
            counts["c compiled"] += 1
        return
    exe = src[:-2]
    libdir = os.path.join(BUILD, "libb2")
    rc, out = run(["cc", "-std=c11"] + warn + inc + SAN_FLAGS +
                  [src, "-o", exe, "-L" + libdir, "-lb2blosc", "-Wl,-rpath," + libdir], where, cwd, env)
    if not check(rc == 0, "%s: the C program does not build:\n%s" % (where, out)):
        return
    rc, out = run([exe], where, cwd, env)
    if check(rc == 0, "%s: the C program exits %d:\n%s" % (where, rc, out)):
        counts["c compiled and run"] += 1
        print("  %s: ran: %s" % (where, out.strip().replace("\n", " | ")[:160]))


def run_python(code, where, cwd, env):
    rc, out = run([sys.executable, "-W", "error", "-c", code], where, cwd, env)
    missing = re.search(r"No module named '(%s)'" % "|".join(OPTIONAL), out)
    if rc and missing:
        counts["python skipped (no %s here)" % missing.group(1)] += 1
        print("  %s: skipped: this Python has no %s" % (where, missing.group(1)))
        return
    if check(rc == 0, "%s: the Python block exits %d:\n%s\n%s" % (where, rc, code, out)):
        counts["python run"] += 1


def run_sh(code, where, cwd, env):
    if SANITIZED:
        counts["sh not run (sanitizer build)"] += 1
        return
    rc, out = run(["bash", "-e", "-o", "pipefail", "-c", code], where, cwd, env)
    if check(rc == 0, "%s: the shell block exits %d:\n%s\n%s" % (where, rc, code, out)):
        counts["sh run"] += 1


def main():
    os.makedirs(os.path.join(tmp, "no_plugins"), exist_ok=True)
    os.makedirs(os.path.join(tmp, "bin"), exist_ok=True)
    if B2:
        os.symlink(B2, os.path.join(tmp, "bin", "b2"))
    # python3 in a shell block is this Python (the one with h5py and numpy)
    os.symlink(sys.executable, os.path.join(tmp, "bin", "python3"))
    for page in pages():
        with open(os.path.join(REPO, page), encoding="utf-8") as f:
            text = f.read()
        cwd = os.path.join(tmp, page.replace(os.sep, "_"))
        home = os.path.join(cwd, "home")
        os.makedirs(home)
        os.symlink(BUILD, os.path.join(cwd, "build"))
        env = env_for(home)
        if page in FIXTURES:
            run_python(FIXTURES[page], page + " fixture", cwd, env)
            counts["python run"] -= 1  # the fixture is not a block of the page
        for line, lang, mark, value, code in blocks(text):
            where = "%s:%d" % (page, line)
            if lang in TEXT:
                counts["text (samples, layouts)"] += 1
                continue
            if lang in ("{toctree}", "{eval-rst}"):
                counts["site directives"] += 1
                continue
            if mark == "skip":
                check(value, "%s: a skip marker gives no reason" % where)
                counts["%s skipped (marked)" % lang] += 1
                skipped.append("%s (%s): %s" % (where, lang, value))
                continue
            if lang == "c":
                if mark == "file":
                    with open(os.path.join(cwd, value), "w") as f:
                        f.write(code)
                compile_c(code, where, cwd, env, value if mark == "c-fragment" else None)
            elif lang == "python":
                run_python(code, where, cwd, env)
            elif lang == "sh":
                run_sh(code, where, cwd, env)
            else:
                check(False, "%s: a ```%s block: add the language to this test or mark it "
                             "<!-- skip: why -->" % (where, lang))
    counts.pop("c_seen", None)
    print("skipped blocks, with their reasons:")
    for s in skipped:
        print("  " + s)
    print("blocks: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    # the README's three examples must be among what ran
    check(counts["c compiled and run"] >= 1 and counts["python run"] >= 8 and
          (SANITIZED or counts["sh run"] >= 4),
          "too few blocks ran (%r): is the fence pattern broken?" % dict(counts))
    print("%d checks, %d failed" % (check.count, len(check.failures)))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""The Python code blocks of README.md and doc/python.md (the package's guide,
once README's "Python package" section) run as written, in order, each in its own
process in one scratch folder (so a block may use a file an earlier one wrote),
with python/ on PYTHONPATH and the built plugin and library (B2_H5_PLUGIN,
B2_LIBB2), and use no deprecated name (warnings are errors). The "Reading small
boxes fast" block of doc/hdf5.md runs too, on a run.h5 made first. A block
importing a module this Python lacks (xarray, h5netcdf, zarr) is skipped, saying
so; the `text` sample of `python -m b2blosc` must name the same lines the command
prints; README's example must print what it did. (py_test_doc_examples runs
every code block of README.md and doc/; this test keeps the package guide's
particular checks.)"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import pyarray_common as pc  # noqa: E402

PLUGIN = os.path.join(hc.plugin_dir(), hc.PLUGIN_NAME)
LIBB2 = pc.package_library()
tmp = b2test.scratch_dir("readme_python_")
check = b2test.Checks()
OPTIONAL = ("xarray", "h5netcdf", "zarr")


def section(text, title):
    """The text of the section headed title, up to the next heading of its level."""
    level = title.split(" ", 1)[0]
    start = text.index(title + "\n")
    nxt = re.search(r"^%s " % level, text[start + len(title):], re.M)
    return text[start:start + len(title) + (nxt.start() if nxt else len(text))]


def blocks(text, lang):
    return re.findall(r"^```%s\n(.*?)^```" % lang, text, re.M | re.S)


def run(code, what):
    env = b2test.clean_env(drop=("LD_PRELOAD",), PYTHONPATH=pc.SOURCE_PYTHONPATH,
                           B2_H5_PLUGIN=PLUGIN, B2_LIBB2=LIBB2,
                           HDF5_PLUGIN_PATH=os.path.join(tmp, "no_plugins"))
    if os.environ.get("LD_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    r = subprocess.run([sys.executable, "-W", "error", "-c", code], env=env, cwd=tmp,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=300)
    missing = re.search(r"No module named '(%s)'" % "|".join(OPTIONAL), r.stdout)
    if r.returncode and missing:
        print("skipped (no %s): %s" % (missing.group(1), what))
        return None
    check(r.returncode == 0, "%s: exit %d:\n%s\n%s" % (what, r.returncode, code, r.stdout))
    return r.stdout


def read(*path):
    with open(os.path.join(b2test.REPO, *path), encoding="utf-8") as f:
        return f.read()


readme = read("README.md")
code = blocks(readme, "python")
if check(len(code) == 1, "README.md has one Python block: %d" % len(code)):
    out = run(code[0], "README.md's Python block")
    check(out is not None and "read back identical: True" in out and "stored in" in out,
          "README's example prints what it did: %r" % out)

py = read("doc", "python.md")
code_blocks = blocks(py, "python")
check(len(code_blocks) >= 4, "doc/python.md has its Python blocks: %d" % len(code_blocks))
for i, code in enumerate(code_blocks):
    check("b2blosc_h5" not in code and "filter_kwargs" not in code and "sys.path" not in code,
          "block %d uses only the current names" % i)
    run(code, "doc/python.md block %d (%s)" % (i, code.splitlines()[0]))

# the sample of python -m b2blosc names the lines the command prints
sample = [b for b in blocks(py, "text") if "SIMD kernels:" in b]
out = run("import runpy, sys; sys.argv = ['b2blosc']; runpy.run_module('b2blosc', run_name='__main__')",
          "python -m b2blosc")
if check(len(sample) == 1 and out, "a sample of python -m b2blosc"):
    labels = [ln.split(":", 1)[0] for ln in sample[0].splitlines() if not ln.startswith(" ")]
    got = [ln.split(":", 1)[0] for ln in out.splitlines() if not ln.startswith(" ")]
    check(labels == got, "the sample's lines %r are the command's %r" % (labels, got))

# Reading small boxes fast: its block, on a run.h5 holding grid/t
small = section(read("doc", "hdf5.md"), "### Reading small boxes fast")
code = blocks(small, "python")
if check(len(code) == 1, "one Python block in Reading small boxes fast"):
    run("import numpy as np, h5py, b2blosc\n"
        "with h5py.File('run.h5', 'w') as f:\n"
        "    f.create_dataset('grid/t', data=np.random.rand(2000, 2000), chunks=(500, 500),\n"
        "                     compression=b2blosc.Blosc2('lz4'))\n", "making run.h5")
    run(code[0], "Reading small boxes fast block")

print("%d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

# SPDX-License-Identifier: BSD-3-Clause
"""The old names still work, and warn (issue 38). The only test that uses them
on purpose; the others use import b2blosc.h5 and b2blosc.Blosc2.
  * `import b2blosc_h5` gives the module b2blosc.h5 with a FutureWarning naming
    `import b2blosc.h5`, attributed to the importing line, once;
  * b2blosc.h5.filter_kwargs(codec=..., filter=...) gives the same values as
    before with a FutureWarning naming the b2blosc.Blosc2 call that replaces
    it; that call, evaluated, gives the same kwargs (codec ids included);
  * a dataset written with filter_kwargs reads back through b2blosc_h5;
  * the warning shows under Python's default filters when the call is in an
    imported module, not __main__ (why a FutureWarning, not a DeprecationWarning);
  * the current names warn about nothing."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2test  # noqa: E402
import h5plugin_common as hc  # noqa: E402
import pyarray_common as pc  # noqa: E402

PLUGIN = os.path.join(hc.plugin_dir(), hc.PLUGIN_NAME)
PYDIR = pc.SOURCE_PYTHONPATH
tmp = b2test.scratch_dir("pypkg_deprecated_")
check = b2test.Checks()


def run(script, name="child.py", extra_files=(), args=()):
    """(exit code, stdout, stderr) of script written to tmp/name and run there."""
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(script)
    for fname, text in extra_files:
        with open(os.path.join(tmp, fname), "w") as f:
            f.write(text)
    env = b2test.clean_env(drop=("LD_PRELOAD", "B2_H5_PLUGIN", "PYTHONWARNINGS"),
                           PYTHONPATH=PYDIR + os.pathsep + tmp, B2_H5_PLUGIN=PLUGIN,
                           HDF5_PLUGIN_PATH=os.path.join(tmp, "none"))
    if os.environ.get("LD_PRELOAD"):  # sanitizer builds: the plugin is instrumented
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    r = subprocess.run([sys.executable, path] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120, cwd=tmp)
    return r.returncode, r.stdout, r.stderr


OLD = r"""
import json, sys, warnings
import numpy as np, h5py
warnings.simplefilter("always")
out = {}
with warnings.catch_warnings(record=True) as w:
    import b2blosc_h5                                  # IMPORT_LINE
    import b2blosc_h5 as again
import b2blosc, b2blosc.h5
out["same_module"] = b2blosc_h5 is b2blosc.h5 and again is b2blosc.h5
out["import_warnings"] = [(x.category.__name__, str(x.message), x.filename, x.lineno) for x in w]
calls = [((), {}), (("zstd", 3, "bitshuffle"), {}), ((), dict(codec="lz4hc", clevel=9, filter="none")),
         ((5, 1, 2), {}), ((), dict(codec=4, filter="delta", blocksize=65536))]
out["calls"] = []
for args, kw in calls:
    with warnings.catch_warnings(record=True) as w:
        got = b2blosc_h5.filter_kwargs(*args, **kw)    # CALL_LINE
    out["calls"].append({"args": [list(args), kw], "got": [got["compression"], list(got["compression_opts"])],
                         "warnings": [(x.category.__name__, str(x.message), x.filename, x.lineno)
                                      for x in w]})
a = np.arange(40 * 50, dtype="i4").reshape(40, 50)
with h5py.File(sys.argv[1], "w") as f, warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    f.create_dataset("d", data=a, chunks=(20, 25), **b2blosc_h5.filter_kwargs("zstd", 3, "bitshuffle"))
with h5py.File(sys.argv[1], "r") as f:
    part, rep = b2blosc_h5.read_slice(f["d"], np.s_[5:30, 3:40], report=True)
    out["read"] = [bool(np.array_equal(part, a[5:30, 3:40])), rep["path"],
                   list(f["d"].id.get_create_plist().get_filter(0)[2][4:7])]
print("OUT", json.dumps(out))
"""
IMPORT_LINE, CALL_LINE = (1 + [i for i, ln in enumerate(OLD.split("\n")) if ln.endswith(m)][0]
                          for m in ("# IMPORT_LINE", "# CALL_LINE"))
rc, out, err = run(OLD, args=[os.path.join(tmp, "old.h5")])
res = json.loads(out.split("OUT ", 1)[1]) if "OUT " in out else None
check(rc == 0 and res, "old names: exit %d: %s%s" % (rc, out, err))
if res:
    child = os.path.join(tmp, "child.py")
    check(res["same_module"], "import b2blosc_h5 gives b2blosc.h5")
    iw = res["import_warnings"]
    check(len(iw) == 1 and iw[0][0] == "FutureWarning" and "import b2blosc.h5" in iw[0][1] and
          iw[0][2] == child and iw[0][3] == IMPORT_LINE,
          "import b2blosc_h5: one FutureWarning naming import b2blosc.h5 at the importing line: %r" % iw)
    os.environ["B2_H5_PLUGIN"] = PLUGIN
    sys.path.insert(0, PYDIR)
    import b2blosc  # noqa: E402  (evaluates the suggested replacements)
    want = {0: (0, 0, 0, 0, 5, 1, 1), 1: (0, 0, 0, 0, 3, 2, 5), 2: (0, 0, 0, 0, 9, 0, 2),
            3: (0, 0, 0, 0, 1, 2, 5), 4: (0, 65536, 0, 0, 5, 3, 4)}
    for i, c in enumerate(res["calls"]):
        check(c["got"] == [32026, list(want[i])], "filter_kwargs%r gives the old values: %r"
              % (c["args"], c["got"]))
        ws = c["warnings"]
        ok = len(ws) == 1 and ws[0][0] == "FutureWarning" and ws[0][2] == child and ws[0][3] == CALL_LINE
        check(ok and "codec=" in ws[0][1] and "b2blosc.Blosc2(cname=" in ws[0][1],
              "filter_kwargs%r: one FutureWarning at the caller naming codec= and Blosc2: %r"
              % (c["args"], ws))
        m = re.search(r"use (b2blosc\.Blosc2\(.*?\))(?: \(|$)", ws[0][1]) if ws else None
        if check(m is not None, "the replacement is spelled out: %r" % ws):
            new = dict(eval(m.group(1), {"b2blosc": b2blosc}))
            check(new == {"compression": 32026, "compression_opts": want[i]},
                  "%s gives filter_kwargs%r's values: %r" % (m.group(1), c["args"], new))
    check(res["read"] == [True, "direct", [3, 2, 5]],
          "a dataset written with filter_kwargs reads back through b2blosc_h5: %r" % res["read"])

# default filters, the call in an imported module: the warning is shown
MOD = "import b2blosc.h5\n\ndef make():\n    return b2blosc.h5.filter_kwargs('zstd')\n"
rc, out, err = run("import helper_mod\nhelper_mod.make()\nimport b2blosc_h5\nprint('DONE')\n",
                   name="main_default.py", extra_files=[("helper_mod.py", MOD)])
check(rc == 0 and "helper_mod.py:4: FutureWarning" in err and "b2blosc.Blosc2(cname='zstd'" in err and
      "main_default.py:3: FutureWarning" in err and "import b2blosc.h5" in err,
      "default filters show both warnings where the call is: exit %d: %s" % (rc, err))

# the current names warn about nothing (warnings are errors here)
NEW = r"""
import warnings
warnings.simplefilter("error")
import numpy as np, h5py, b2blosc, b2blosc.h5 as b2h5
a = np.arange(100.0).reshape(10, 10)
with h5py.File(__import__("sys").argv[1], "w") as f:
    d = f.create_dataset("d", data=a, chunks=(5, 5), **b2blosc.Blosc2("zstd", 3, "bitshuffle"))
    assert np.array_equal(b2h5.read(d), a)
print("CLEAN")
"""
rc, out, err = run(NEW, name="new.py", args=[os.path.join(tmp, "new.h5")])
check(rc == 0 and "CLEAN" in out and not err.strip(), "current names: no warning: exit %d: %s%s"
      % (rc, out, err))

print("%d checks, %d failed" % (check.count, len(check.failures)))
sys.exit(1 if check.failures else 0)

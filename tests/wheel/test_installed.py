# SPDX-License-Identifier: BSD-3-Clause
"""The b2blosc wheel, installed in a clean venv (tests/wheel/CMakeLists.txt makes
it), tested with pytest against that install, never the source tree:
  * the package, its libraries and its plugin come from the venv, and the codec
    libraries from the wheel's b2blosc.libs/ (/proc/self/maps);
  * the console script b2, HDF5 commands included (served from Python);
  * interop with the pinned hdf5plugin and blosc2 of the venv;
  * every tests/py script that exercises the package, run with this Python and
    B2_TEST_INSTALLED=1 (b2test.use_source_package() then leaves sys.path alone)."""
import glob
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PY_TESTS = os.path.join(REPO, "tests", "py")
SITE = os.path.realpath(sysconfig.get_paths()["platlib"])
VENV_BIN = os.path.dirname(sys.executable)
CODEC_LIBS = ("liblz4", "libzstd", "libdeflate", "libxxhash", "libmsgpackc", "libzfp", "libgomp")

# tests/py scripts that use b2blosc but test something else than the installed package
NOT_FOR_THE_WHEEL = {
    "test_package.py": "builds the Debian package and the source tree's install",
    "test_pypkg_install.py": "builds b2blosc from the source tree (the offline Debian path)",
    "test_install_names.py": "checks `cmake --install`'s file names",
    "test_examples.py": "compiles the C examples against the build tree",
    "test_doc_examples.py": "runs the docs' code blocks, C ones compiled against the build tree "
                            "(its Python blocks run here through test_readme_python.py)",
    "test_pypkg_netcdf.py": "needs netCDF4, which the wheel env does not hold (tests/peers' "
                            "netcdf check runs it with the pinned netCDF4)",
}


def package_scripts():
    out = []
    for path in sorted(glob.glob(os.path.join(PY_TESTS, "test_*.py"))):
        with open(path) as f:
            body = f.read()
        if "b2blosc" in body or "pyarray_common" in body:
            out.append(os.path.basename(path))
    return out


def installed_env(**extra):
    """The environment of a child run: nothing pointing at the source tree or build."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "B2_LIBB2", "B2_H5_PLUGIN", "B2_BUILD_DIR", "B2_BIN",
                        "HDF5_PLUGIN_PATH", "LD_PRELOAD", "LD_LIBRARY_PATH")}
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


def mapped(prefixes):
    """Paths of the shared objects this process has mapped whose names start so."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "/" in line}
    return sorted(p for p in paths if os.path.basename(p).startswith(prefixes))


def test_package_is_the_venvs():
    import b2blosc
    path = os.path.realpath(b2blosc.__file__)
    assert path.startswith(SITE + os.sep), path
    assert not path.startswith(os.path.join(REPO, "python") + os.sep), path  # not the source tree
    assert os.path.realpath(b2blosc.PLUGIN_FILE).startswith(os.path.join(SITE, "b2blosc") + os.sep)


def test_codecs_come_from_the_wheel(tmp_path):
    import h5py
    import b2blosc
    import b2blosc.array  # noqa: F401  (loads libb2blosc.so too)
    data = np.linspace(0, 1, 20000, dtype="f8").reshape(200, 100)
    with h5py.File(tmp_path / "x.h5", "w") as f:
        for cname in ("lz4", "zstd", "zlib", "blosclz", "lz4hc"):
            f.create_dataset(cname, data=data, chunks=(50, 100),
                             compression=b2blosc.Blosc2(cname=cname, clevel=5))
    with h5py.File(tmp_path / "x.h5") as f:
        for cname in ("lz4", "zstd", "zlib", "blosclz", "lz4hc"):
            assert np.array_equal(f[cname][()], data)
    b2blosc.save(data, str(tmp_path / "x.b2nd"), cname="zstd")
    assert np.array_equal(b2blosc.open(str(tmp_path / "x.b2nd"))[...], data)
    libs = mapped(CODEC_LIBS)
    names = {os.path.basename(p).split("-")[0].split(".")[0] for p in libs}
    assert {"liblz4", "libzstd", "libdeflate", "libxxhash", "libmsgpackc", "libzfp"} <= names, libs
    bundled = os.path.join(SITE, "b2blosc.libs") + os.sep
    assert all(os.path.realpath(p).startswith(bundled) for p in libs), libs
    ours = mapped(("libH5Zb2", "libb2blosc"))
    assert len(ours) == 2 and all(os.path.realpath(p).startswith(SITE) for p in ours), ours


def b2(*args, check=True):
    exe = shutil.which("b2", path=VENV_BIN)
    assert exe and os.path.dirname(exe) == VENV_BIN, "no b2 console script in %s" % VENV_BIN
    r = subprocess.run([exe] + [str(a) for a in args], capture_output=True, env=installed_env(),
                       timeout=300)
    if check:
        assert r.returncode == 0, (args, r.returncode, r.stderr.decode(errors="replace"))
    return r


def test_b2_console_script(tmp_path):
    import h5py
    import b2blosc
    a = np.arange(300 * 40, dtype="i4").reshape(300, 40)
    h5 = tmp_path / "a.h5"
    with h5py.File(h5, "w") as f:
        f.create_dataset("g/a", data=a, chunks=(64, 40), compression=b2blosc.Blosc2(cname="lz4"))
    assert b"libb2" in b2("--version").stdout
    info = b2("info", h5).stdout.decode()
    assert "/g/a" in info and "(300, 40)" in info, info
    got = np.frombuffer(b2("slice", "%s:/g/a" % h5, "10:20,5:9").stdout, dtype="i4")
    assert np.array_equal(got, a[10:20, 5:9].ravel())
    got = np.frombuffer(b2("slice", "%s:/g/a" % h5, "[7,3],-2:").stdout, dtype="i4")
    assert np.array_equal(got, a[np.ix_([7, 3], [38, 39])].ravel())
    assert b"ok (hdf5, 1 Blosc2 dataset, 5 chunks; decoded, no checksums to check)" in b2("verify", h5).stdout
    b2("convert", "%s:/g/a" % h5, tmp_path / "a.b2nd")
    assert np.array_equal(b2blosc.open(str(tmp_path / "a.b2nd"))[...], a)
    assert b"b2nd array" in b2("info", tmp_path / "a.b2nd").stdout  # the C program
    b2("convert", tmp_path / "a.b2nd", "%s:/b" % (tmp_path / "b.h5"))
    with h5py.File(tmp_path / "b.h5") as f:
        assert np.array_equal(f["b"][()], a)
    r = b2("slice", "%s:/nope" % h5, "0:1", check=False)
    assert r.returncode == 1 and b"no dataset /nope" in r.stderr
    r = b2("bench", "--hdf5", check=False)
    assert r.returncode == 2 and b"no libhdf5" in r.stderr


def test_hdf5plugin_reads_ours_and_we_read_its(tmp_path):
    import h5py
    import hdf5plugin
    import b2blosc
    a = np.random.default_rng(1).integers(0, 1000, (120, 70)).astype("u2")
    with h5py.File(tmp_path / "o.h5", "w") as f:
        f.create_dataset("o", data=a, chunks=(30, 70), compression=b2blosc.Blosc2(cname="zstd"))
    with h5py.File(tmp_path / "t.h5", "w") as f:
        f.create_dataset("t", data=a, chunks=(30, 70), compression=hdf5plugin.Blosc2(cname="lz4"))
    # hdf5plugin's import registered its own 32026: read ours with it, then theirs with ours
    code = ("import h5py, hdf5plugin, sys; f = h5py.File(sys.argv[1]); "
            "sys.stdout.buffer.write(f['o'][()].tobytes())")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "o.h5")], capture_output=True,
                       env=installed_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.frombuffer(r.stdout, dtype="u2").reshape(a.shape), a)
    b2blosc.register(force=True)
    import b2blosc.h5 as b2h5
    with h5py.File(tmp_path / "t.h5") as f:
        assert np.array_equal(b2h5.read(f["t"]), a)


def test_import_h5py_alone_reads_32026(tmp_path):
    """The wheel's b2blosc-autoregister.pth: `import h5py` alone registers ours."""
    import h5py
    import b2blosc
    a = np.arange(5000, dtype="i8")
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f.create_dataset("a", data=a, chunks=(1000,), compression=b2blosc.Blosc2(cname="zstd"))
    code = ("import sys, h5py, numpy; f = h5py.File(sys.argv[1]); "
            "ok = h5py.h5z.filter_avail(32026); "
            "print(int(ok), int(f['a'][()].sum()) if ok else '-', 'b2blosc' in sys.modules)")
    for env, want in (({}, "1 %d True" % a.sum()), ({"B2BLOSC_NO_AUTOREGISTER": "1"}, "0 - False")):
        r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.h5")], capture_output=True,
                           env=installed_env(**env), timeout=120)
        out = r.stdout.decode().strip() or r.stderr.decode()[-300:]
        assert out.startswith(want), (env, out)


def test_blosc2_opens_our_files(tmp_path):
    import blosc2
    import b2blosc
    a = np.arange(10000, dtype="f4").reshape(100, 100)
    b2blosc.save(a, str(tmp_path / "x.b2nd"), chunks=(50, 50), cname="lz4")
    assert np.array_equal(blosc2.open(str(tmp_path / "x.b2nd"))[...], a)
    blosc2.asarray(a, urlpath=str(tmp_path / "y.b2nd"), mode="w", chunks=(40, 40))
    assert np.array_equal(b2blosc.open(str(tmp_path / "y.b2nd"))[...], a)


@pytest.mark.parametrize("script", package_scripts())
def test_package_script(script, tmp_path):
    if script in NOT_FOR_THE_WHEEL:
        pytest.skip(NOT_FOR_THE_WHEEL[script])
    env = installed_env(B2_TEST_INSTALLED="1", B2_BIN=shutil.which("b2", path=VENV_BIN))
    r = subprocess.run([sys.executable, os.path.join(PY_TESTS, script)], capture_output=True,
                       env=env, cwd=str(tmp_path), timeout=900)
    out = (r.stdout + r.stderr).decode(errors="replace")
    print(out[-4000:])
    assert r.returncode == 0, "%s exited with %d (77 is a skip, which the wheel's test does not " \
                              "allow):\n%s" % (script, r.returncode, out[-4000:])

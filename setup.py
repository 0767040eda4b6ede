#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Builds the Python package b2blosc (metadata in pyproject.toml).

build_ext runs the project's own CMake build (Release; tests and fuzzers off)
of three targets and copies what they make into the package:
  b2     -> b2blosc/lib/libb2blosc.so      (libb2, for the array functions)
  H5Zb2  -> b2blosc/plugins/libH5Zb2.so    (the HDF5 plugin, alone in its folder)
  b2cli  -> b2blosc/bin/b2                 (the b2 program, built without libhdf5:
            the console script `b2` runs it, and serves FILE.h5 from Python)
Nothing of the CMake logic is repeated here. The codec libraries are the
system's shared libraries: the plain wheel fits the distribution it was built on;
scripts/build_wheel.sh makes the manylinux wheel, with auditwheel bundling them.
It is tagged py3-none-<platform>, as it holds native code but no CPython
extension. The version is libb2's, read from the B2_VERSION_* macros of
libb2/include/b2blosc/b2_common.h.

With build isolation (pip install ., python -m build) pip installs the pinned
build requirements of pyproject.toml, CMake included; the offline Debian path
(--no-build-isolation --no-index) uses Debian's setuptools and cmake."""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "libb2", "include", "b2blosc", "b2_common.h")) as f:
        hdr = f.read()
    return ".".join(re.search(r"^#define B2_VERSION_%s (\d+)$" % p, hdr, re.M).group(1)
                    for p in ("MAJOR", "MINOR", "PATCH"))


class BinaryDistribution(Distribution):
    """Native code inside: platform wheel, installed to platlib, build_ext runs."""

    def has_ext_modules(self):
        return True


class CMakeBuild(build_ext):
    """Run the CMake build and copy the two shared objects into the package."""

    def run(self):
        cmake = shutil.which("cmake")
        if not cmake:
            sys.exit("b2blosc: cmake not found (Debian: apt-get install cmake)")
        bdir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(bdir, exist_ok=True)
        cfg = [cmake, "-S", ROOT, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release",
               "-DB2_BUILD_TESTS=OFF", "-DB2_BUILD_TOOLS=ON", "-DB2_CLI_HDF5=OFF",
               "-DB2_BUILD_FUZZERS=OFF", "-DB2_BUILD_PLUGIN=ON"]
        cfg += os.environ.get("B2_CMAKE_ARGS", "").split()
        self.announce("configuring libb2 in %s" % bdir, level=2)
        subprocess.check_call(cfg)
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call([cmake, "--build", bdir, "-j", jobs, "--target", "b2", "H5Zb2", "b2cli"])
        outputs = {
            os.path.join(bdir, "h5plugin", "libH5Zb2.so"): os.path.join("plugins", "libH5Zb2.so"),
            os.path.join(bdir, "libb2", "libb2blosc.so"): os.path.join("lib", "libb2blosc.so"),
            os.path.join(bdir, "tools", "b2"): os.path.join("bin", "b2"),
        }
        pkg = os.path.join(os.path.abspath(self.build_lib), "b2blosc")
        for src, rel in outputs.items():
            if not os.path.isfile(src):
                sys.exit("b2blosc: the CMake build made no %s" % src)
            dst = os.path.join(pkg, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.lexists(dst):
                os.remove(dst)
            shutil.copyfile(os.path.realpath(src), dst)  # the file, not the symlink chain
            shutil.copymode(os.path.realpath(src), dst)
            self._made.append(dst)

    def initialize_options(self):
        super().initialize_options()
        self._made = []

    def get_outputs(self):
        return list(self._made)

    def get_source_files(self):
        return []


AUTOREGISTER_PTH = "b2blosc-autoregister.pth"


class BuildPy(build_py):
    """Also write b2blosc/_version.py (the version the build read), and put
    b2blosc-autoregister.pth at the root of the wheel, so that it lands in
    site-packages itself, where `site` runs it (python/_b2blosc_autoregister.py:
    filter 32026 registered in any process that imports h5py)."""

    def run(self):
        super().run()
        self.copy_file(os.path.join(ROOT, "python", AUTOREGISTER_PTH),
                       os.path.join(self.build_lib, AUTOREGISTER_PTH), preserve_mode=False)
        path = os.path.join(self.build_lib, "b2blosc", "_version.py")
        with open(path, "w") as f:
            f.write("# SPDX-License-Identifier: BSD-3-Clause\n"
                    "# written by setup.py from the B2_VERSION_* macros of b2_common.h\n"
                    "version = %r\n" % version())

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [
            os.path.join(self.build_lib, "b2blosc", "_version.py"),
            os.path.join(self.build_lib, AUTOREGISTER_PTH)]



cmdclass = {"build_ext": CMakeBuild, "build_py": BuildPy}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        """py3-none-<platform>: native code, but no CPython extension module."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _python, _abi, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:
    pass

os.makedirs(os.path.join(ROOT, "build-py"), exist_ok=True)  # egg_base must exist (a fresh sdist)
setup(version=version(), distclass=BinaryDistribution, cmdclass=cmdclass,
      options={"build": {"build_base": "build-py"}, "egg_info": {"egg_base": "build-py"}})

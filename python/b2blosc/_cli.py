# SPDX-License-Identifier: BSD-3-Clause
"""The console script `b2` that `pip install b2blosc` puts on the venv's PATH.

It runs the b2 program the package carries (b2blosc/bin/b2). That program is
built without libhdf5 (-DB2_CLI_HDF5=OFF): linking it would bring libhdf5 and,
through Debian's, libcurl, libssl and libsz into the wheel. So `info`,
`verify`, `slice` and `convert` on an HDF5 file are served here, in Python,
through h5py and b2blosc.h5 (_h5cli.py); everything else goes to the program
unchanged (os.execv, so its exit status and output are the program's own)."""
import os
import sys

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
HDF5_COMMANDS = ("info", "verify", "slice", "convert")
# options of those commands that take a value: the value is not an operand
VALUE_OPTIONS = frozenset(("-o", "--threads", "--chunks", "--blocks", "--codec", "--codec-meta",
                           "--clevel", "--blocksize", "--filter", "--filters", "--filters-meta",
                           "--splitmode"))
HDF5_SUFFIXES = (".h5", ".hdf5", ".he5", ".hdf", ".nc")


def program():
    """The b2 program inside the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "b2")


def is_hdf5_file(path):
    """True when path is a file with HDF5's signature at 0 or after a user
    block (512, 1024, 2048, ... bytes: HDF5 looks at those offsets)."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            off = 0
            while off + 8 <= size:
                f.seek(off)
                if f.read(8) == HDF5_SIGNATURE:
                    return True
                off = 512 if off == 0 else off * 2
    except OSError:
        return False
    return False


def split_dataset(spec):
    """(file, dataset) of FILE:/DATASET, or (spec, None)."""
    i = spec.find(":/")
    if i > 0:
        return spec[:i], spec[i + 1:]
    return spec, None


def operands(args):
    """The arguments that are not options or option values."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in VALUE_OPTIONS:
            skip = True
        elif not a.startswith("-") or a == "-":
            out.append(a)
    return out


def names_hdf5(operand, command):
    """Whether an operand is an HDF5 file (or a new one, as convert's output)."""
    path, dataset = split_dataset(operand)
    if is_hdf5_file(path):
        return True
    return (command == "convert" and dataset is not None and not os.path.exists(path)
            and path.lower().endswith(HDF5_SUFFIXES))


def main(argv=None):
    """Entry point of the console script `b2`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else None
    if command in HDF5_COMMANDS and "--help" not in argv and "-h" not in argv:
        if any(names_hdf5(a, command) for a in operands(argv[1:])):
            from . import _h5cli
            return _h5cli.run(command, argv[1:])
    if command == "bench" and ("--hdf5" in argv or "--hdf5-parallel" in argv):
        sys.stderr.write("b2 bench: --hdf5 and --hdf5-parallel compare HDF5 filters through the "
                         "HDF5 C library; this b2 (from the b2blosc wheel) has no libhdf5. "
                         "They are benchmarks of the source tree's b2bench program (bench/).\n")
        return 2
    exe = program()
    if not os.access(exe, os.X_OK):
        sys.stderr.write("b2: the package's b2 program %s is missing or not executable\n" % exe)
        return 1
    sys.stdout.flush()
    os.execv(exe, ["b2"] + argv)


if __name__ == "__main__":
    sys.exit(main())

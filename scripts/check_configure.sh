#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure-only checks of the build options (no compiling; each run is a fresh
# build directory under ${TMPDIR:-/tmp}, removed afterwards).
#   bash scripts/check_configure.sh all    every combination of B2_BUILD_TESTS,
#                                        B2_BUILD_TOOLS, B2_BUILD_PLUGIN,
#                                        B2_SANITIZE and B2_BUILD_BENCH (32
#                                        configures, a few minutes)
#   bash scripts/check_configure.sh ci     three telling combinations (CI)
#   bash scripts/check_configure.sh hdf5   the HDF5 choice: with a fake parallel HDF5
#                                        (its H5public.h includes <mpi.h>) as
#                                        pkg-config's hdf5, the serial one is still
#                                        taken; B2_HDF5_PARALLEL=ON takes the fake
#                                        one and adds MPI's include dir (fake MPI),
#                                        also through a fake h5pcc and with the
#                                        option switched both ways in one tree
# Extra arguments are passed to every cmake call (e.g. -DCMAKE_C_COMPILER=clang).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
MODE=${1:-}
shift || true
EXTRA=("$@")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/b2-cfg.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT # KEEP=1 keeps the logs
FAILED=0

# configure NAME [cmake options...]: configure into $WORK/NAME (or $WORK/$DIR when
# DIR is set, to reconfigure a tree), log in $WORK/NAME.log
configure() {
    local name=$1
    shift
    if cmake -S "$ROOT" -B "$WORK/${DIR:-$name}" "${EXTRA[@]}" "$@" >"$WORK/$name.log" 2>&1; then
        return 0
    fi
    return 1
}

# check_combo TESTS TOOLS PLUGIN SANITIZE [BENCH]: one configure of those options
check_combo() {
    local tests=$1 tools=$2 plugin=$3 san=$4 bench=${5:-OFF}
    local name="t${tests}-b${tools}-p${plugin}-s${san}-w${bench}"
    local what="TESTS=$tests TOOLS=$tools PLUGIN=$plugin SANITIZE=$san BENCH=$bench"
    if configure "$name" -DB2_BUILD_TESTS="$tests" -DB2_BUILD_TOOLS="$tools" \
            -DB2_BUILD_PLUGIN="$plugin" -DB2_SANITIZE="$san" -DB2_BUILD_BENCH="$bench"; then
        echo "ok    $what"
    else
        echo "FAIL  $what"
        sed 's/^/      /' "$WORK/$name.log" | grep -v '^      -- ' | tail -20
        FAILED=1
    fi
    rm -rf "${WORK:?}/$name"
}

# expect NAME PATTERN: the configure log of NAME has a line matching PATTERN
expect() {
    if grep -Eq "$2" "$WORK/$1.log"; then
        echo "ok    $1: $(grep -E "$2" "$WORK/$1.log" | head -1 | sed 's/^-- //')"
    else
        echo "FAIL  $1: no line matching '$2'"
        sed 's/^/      /' "$WORK/$1.log" | grep -Ei 'hdf5|mpi|error' | head -20
        FAILED=1
    fi
}

# A fake parallel HDF5: the serial headers, with H5pubconf.h saying
# H5_HAVE_PARALLEL (for the scan; undone for the compiler) and H5public.h
# including <mpi.h>; a fake MPI (mpicc answering -showme:*, mpi.h, libmpi.so).
hdf5_checks() {
    local ser=/usr/include/hdf5/serial F="$WORK/fake"
    [ -f "$ser/H5public.h" ] || { echo "skip: $ser/H5public.h not found (Debian's libhdf5-dev)"; return 0; }
    mkdir -p "$F/include" "$F/pkgconfig" "$F/pconly" "$F/mpi/include" "$F/mpi/lib" "$F/bin"
    cp "$ser"/*.h "$F/include/"
    { echo '#define H5_HAVE_PARALLEL 1'; cat "$ser/H5pubconf.h"; echo '#undef H5_HAVE_PARALLEL'; } >"$F/include/H5pubconf.h"
    { echo '#include <mpi.h>'; cat "$ser/H5public.h"; } >"$F/include/H5public.h"
    local libdir
    libdir=$(pkg-config --variable=libdir hdf5-serial 2>/dev/null || true)
    printf 'Name: HDF5\nDescription: fake parallel HDF5\nVersion: 1.10.8\nCflags: -I%s\nLibs: -L%s -lhdf5\n' \
        "$F/include" "${libdir:-/usr/lib/x86_64-linux-gnu/hdf5/serial}" >"$F/pkgconfig/hdf5.pc"
    # also as hdf5-openmpi, the first module a parallel build asks for: found in
    # PKG_CONFIG_PATH before a real one (Debian's libhdf5-openmpi-dev, which CI installs)
    ln -sf hdf5.pc "$F/pkgconfig/hdf5-openmpi.pc"
    printf '#define MPI_VERSION 3\n#define MPI_SUBVERSION 1\nint MPI_Init(int *, char ***);\nint MPI_Finalize(void);\n' \
        >"$F/mpi/include/mpi.h"
    printf '#include "mpi.h"\nint MPI_Init(int *a, char ***b) { (void)a; (void)b; return 0; }\nint MPI_Finalize(void) { return 0; }\n' \
        >"$F/mpi/fake.c"
    cc -shared -fPIC -I"$F/mpi/include" -o "$F/mpi/lib/libmpi.so" "$F/mpi/fake.c"
    cat >"$F/bin/mpicc" <<EOF
#!/bin/sh
case "\$1" in
  -showme:compile) echo "-I$F/mpi/include"; exit 0;;
  -showme:link) echo "-L$F/mpi/lib -lmpi"; exit 0;;
  -showme:incdirs) echo "$F/mpi/include"; exit 0;;
  -showme:libdirs) echo "$F/mpi/lib"; exit 0;;
  -showme:libs) echo "mpi"; exit 0;;
  -showme:version) echo "mpicc: Open MPI 4.1.4 (Language: C)"; exit 0;;
esac
exec cc -I$F/mpi/include "\$@" -L$F/mpi/lib -lmpi
EOF
    chmod +x "$F/bin/mpicc"
    # a parallel HDF5 compiler wrapper for find_package(HDF5), like Debian's h5pcc
    local h5lib=${libdir:-/usr/lib/x86_64-linux-gnu/hdf5/serial}
    cat >"$F/bin/h5pcc" <<EOF
#!/bin/sh
case "\$1" in
  -showconfig) printf 'HDF5 Version: 1.10.8\nParallel HDF5: yes\n'; exit 0;;
  -show) shift; echo "cc -I$F/include \$* -L$h5lib -lhdf5"; exit 0;;
esac
exec cc -I$F/include -I$F/mpi/include "\$@" -L$h5lib -lhdf5
EOF
    chmod +x "$F/bin/h5pcc"
    # a pkg-config directory with the other dependencies and only the fake hdf5.pc
    local m
    for m in liblz4 libzstd libdeflate zlib msgpack libxxhash; do
        local pc
        pc=$(pkg-config --path "$m" 2>/dev/null) && ln -sf "$pc" "$F/pconly/"
    done
    ln -sf "$F/pkgconfig/hdf5.pc" "$F/pconly/hdf5.pc"

    local serial_re="HDF5: [0-9.]+ serial, $ser "
    PKG_CONFIG_PATH="$F/pkgconfig" configure h5-default
    expect h5-default "$serial_re"
    PKG_CONFIG_PATH="$F/pkgconfig" configure h5-pkgconfig -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON
    expect h5-pkgconfig "${serial_re}\\(pkg-config hdf5-serial\\)"
    PKG_CONFIG_PATH="$F/pkgconfig" configure h5-parallel -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON \
        -DB2_HDF5_PARALLEL=ON -DMPI_C_COMPILER="$F/bin/mpicc"
    expect h5-parallel "HDF5: [0-9.]+ parallel, $F/include "
    # the plugin's HDF5-facing sources compile against the fake parallel headers
    if cmake --build "$WORK/h5-parallel" --target b2_h5objects >"$WORK/h5-parallel-build.log" 2>&1; then
        echo "ok    h5-parallel: the plugin's objects compile (<mpi.h> found through MPI's include dir)"
    else
        echo "FAIL  h5-parallel: the plugin's objects do not compile"
        grep -E 'error' "$WORK/h5-parallel-build.log" | head -5
        FAILED=1
    fi
    # find_package(HDF5) through the h5pcc wrapper, with the option switched in one
    # tree both ways (what FindHDF5 cached for the other setting must not stick)
    local wrap_re="HDF5: [0-9.]+ parallel, $F/include \\(find_package\\(HDF5\\)\\)"
    local fp_serial_re="${serial_re}\\(find_package\\(HDF5\\)\\)"
    DIR=h5-wrapper configure h5-wrapper-off -DB2_HDF5_PARALLEL=OFF
    expect h5-wrapper-off "$fp_serial_re"
    PATH="$F/bin:$PATH" DIR=h5-wrapper configure h5-wrapper-on -DB2_HDF5_PARALLEL=ON \
        -DMPI_C_COMPILER="$F/bin/mpicc"
    expect h5-wrapper-on "$wrap_re"
    DIR=h5-wrapper configure h5-wrapper-off-again -DB2_HDF5_PARALLEL=OFF
    expect h5-wrapper-off-again "$fp_serial_re"
    PKG_CONFIG_LIBDIR="$F/pconly" configure h5-only-parallel -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON \
        -DMPI_C_COMPILER="$F/bin/mpicc"
    expect h5-only-parallel "HDF5: [0-9.]+ parallel, $F/include "
    if configure h5-parallel-missing -DB2_HDF5_PARALLEL=ON; then
        if grep -q 'HDF5: [0-9.]* parallel' "$WORK/h5-parallel-missing.log"; then
            echo "ok    h5-parallel-missing: a parallel HDF5 is installed here"
        else
            echo "FAIL  h5-parallel-missing: B2_HDF5_PARALLEL=ON configured without a parallel HDF5"
            FAILED=1
        fi
    else
        expect h5-parallel-missing "B2_HDF5_PARALLEL=ON"
    fi
}

case "$MODE" in
all)
    for tests in ON OFF; do for tools in ON OFF; do for plugin in ON OFF; do for san in OFF ON; do
        for bench in OFF ON; do
            check_combo $tests $tools $plugin $san $bench
        done
    done; done; done; done
    ;;
ci)
    check_combo ON OFF ON OFF ON   # tests without the b2 program (so without b2bench)
    check_combo ON ON OFF ON ON    # tests and b2bench without the plugin, sanitized
    check_combo OFF OFF OFF OFF    # the library alone
    ;;
hdf5)
    hdf5_checks
    ;;
*)
    echo "usage: bash scripts/check_configure.sh all|ci|hdf5 [cmake options...]" >&2
    exit 2
    ;;
esac
[ $FAILED -eq 0 ] && echo "SUMMARY: configure checks ($MODE) ok" || echo "SUMMARY: configure checks ($MODE) FAILED"
exit $FAILED

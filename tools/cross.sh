#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cross builds tested under qemu-user (issue 28): arm64 and s390x (big-endian).
#   bash tools/cross.sh arm64   build-cross-arm64/: Debian's aarch64 cross gcc, the :arm64
#                               dev packages; the C tests under qemu-aarch64-static, with
#                               the best kernels and again with B2_SIMD=generic
#   bash tools/cross.sh s390x   build-cross-s390x/: the same for s390x; then files written
#                               there (test_cross_files --write) must be the bytes a
#                               native build writes and read back to the same values
# Each ends with "N passed, N failed". Packages are installed only when missing.
#
# Left out, because libhdf5-dev and libzfp-dev cannot be installed for a second
# architecture beside the native ones: the HDF5 plugin, the b2 program (HDF5) and
# the zfp codecs (-DB2_WITH_ZFP=OFF: test_plugin_zfp checks that they refuse).
# No binfmt is needed: ctest runs the programs through CMAKE_CROSSCOMPILING_EMULATOR
# (cmake/toolchain-*.cmake).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
ARCH=${1:-}
T0=$SECONDS
say() { printf '== [%4ds] %s\n' $((SECONDS - T0)) "$*"; }

case "$ARCH" in
arm64) TRIPLET=aarch64-linux-gnu QEMU=qemu-aarch64-static ;;
s390x) TRIPLET=s390x-linux-gnu QEMU=qemu-s390x-static ;;
*) echo "usage: bash tools/cross.sh arm64|s390x" >&2; exit 2 ;;
esac
BUILD="$ROOT/build-cross-$ARCH"
TOOLCHAIN="$ROOT/cmake/toolchain-${TRIPLET%%-*}.cmake"

# The C tests that run under emulation: everything that needs neither HDF5 nor
# zfp (those are not built), except the ones that take minutes under qemu:
#   test_b2nd_direct   ~90 s under qemu-aarch64 (25 s natively): direct chunk
#                      writes, no kernel or byte-order code the others miss
#   test_frame_mutate  ~25-40 s: update/insert/delete bookkeeping, byte-order
#                      free (test_frame_write covers the writes)
#   test_pool          ~15-25 s: worker-pool scheduling, which qemu's TSO
#                      translation cannot test for a weak memory model anyway
# test_chunk_encode runs with B2_CASES=150 random cases (2200 natively).
TESTS=(b2nd_concat b2nd_meta b2nd_mutate b2nd_ops b2nd_reencode b2nd_select b2nd_slice b2nd_vectors
       blosclz blosclz_levels blosclz_vectors chunk_decode chunk_encode chunk_mutate cross_files errors
       filters frame_checksums frame_crash frame_defer frame_format frame_inspect
       frame_interop frame_lazy frame_open frame_readers frame_user_io frame_write limits
       ndcell plugin_filters plugin_ndlz plugin_zfp registry simd_kernels threads)
# On s390x, three tests also compare our encoder's bytes with chunks c-blosc2
# wrote on x86: liblz4, lz4hc and libzstd hash words in host order (lz4.c
# LZ4_hash5 branches on LZ4_isLittleEndian), so their streams differ on a
# big-endian machine while decoding the same. test_cross_files checks encoding
# there instead: our bytes (headers, filters, blosclz, zlib, frames, b2nd) equal
# the native build's, and every chunk decodes on both.
# (test_b2nd_vectors and test_frame_interop run: NaN special chunks decode to the
# machine's own NaNs, which they check as typed items; tests/unit/support/nan_items.h.)
S390X_SKIP='^(b2nd_reencode|chunk_encode|plugin_filters)$'
# The second pass with the portable kernels: the tests that reach the filters.
GENERIC_TESTS=(filters simd_kernels chunk_decode chunk_encode blosclz b2nd_vectors frame_interop)

# ---- 1. packages ----
is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

ensure_packages() {
    local pkgs=(qemu-user-static "gcc-$TRIPLET" cmake pkg-config)
    local lib
    for lib in liblz4-dev libzstd-dev libxxhash-dev libdeflate-dev; do pkgs+=("$lib:$ARCH"); done
    if [ "$ARCH" = arm64 ]; then
        pkgs+=(zlib1g-dev:arm64 libmsgpack-dev:arm64)
    else
        # zlib1g-dev:s390x and libmsgpack-dev:s390x depend on libc6-dev:s390x, which
        # needs linux-libc-dev:s390x at the native version: Debian 12's security
        # updates (LTS) build no s390x, so it cannot be installed once the native
        # one is updated. Their runtime libraries install; the two dev packages are
        # unpacked into build-cross-s390x/devroot (below); the cross libc headers
        # and start files come from libc6-dev-s390x-cross.
        pkgs+=(libc6-dev-s390x-cross zlib1g:s390x libmsgpackc2:s390x)
    fi
    local missing=() p
    for p in "${pkgs[@]}"; do is_installed "$p" || missing+=("$p"); done
    if [ ${#missing[@]} -eq 0 ]; then
        say "$ARCH: all packages installed"
        return
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages: ${missing[*]}" >&2
        echo "run as root:  dpkg --add-architecture $ARCH && apt-get update &&" \
             "apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
    dpkg --print-foreign-architectures | grep -qx "$ARCH" || dpkg --add-architecture "$ARCH"
    say "$ARCH: apt-get update"
    apt-get update -q >/dev/null
    say "$ARCH: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
        >/dev/null
}

# s390x: zlib1g-dev and libmsgpack-dev unpacked (headers, .so links, no
# dependencies) into build-cross-s390x/devroot.
DEVROOT="$BUILD/devroot"
ensure_devroot() {
    local lib="$DEVROOT/usr/lib/$TRIPLET"
    [ -e "$lib/libz.so" ] && [ -e "$lib/libmsgpackc.so" ] && return
    say "s390x: unpacking zlib1g-dev and libmsgpack-dev into $DEVROOT"
    local tmp
    tmp=$(mktemp -d)
    # apt-get download writes into the current directory, as the _apt user if it can
    chmod 755 "$tmp"
    (cd "$tmp" && apt-get download -q zlib1g-dev:s390x libmsgpack-dev:s390x >/dev/null 2>&1)
    mkdir -p "$DEVROOT"
    local d
    for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$DEVROOT"; done
    rm -rf "$tmp"
    # relative links would point inside devroot: point them at the installed libraries
    ln -sfn "/usr/lib/$TRIPLET/libmsgpackc.so.2" "$lib/libmsgpackc.so"
    ln -sfn "/lib/$TRIPLET/libz.so.1" "$lib/libz.so"
}

# ---- 2. build ----
cross_configure() {
    local extra=()
    if [ "$ARCH" = s390x ]; then
        local lib="$DEVROOT/usr/lib/$TRIPLET"
        extra=(-DZLIB_LIBRARY="$lib/libz.so" -DZLIB_INCLUDE_DIR="$DEVROOT/usr/include"
               -DMSGPACK_LIBRARY="$lib/libmsgpackc.so" -DMSGPACK_INCLUDE_DIR="$DEVROOT/usr/include")
    fi
    say "$ARCH: configuring $BUILD"
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCMAKE_BUILD_TYPE=Release \
        -DB2_WERROR=ON -DB2_WITH_ZFP=OFF -DB2_BUILD_TOOLS=OFF -DB2_BUILD_PLUGIN=OFF \
        "${extra[@]}" >/dev/null
}

selected() { # the test names of TESTS minus the skip pattern, as ctest targets
    local t skip=${1:-'^$'}
    for t in "${TESTS[@]}"; do [[ $t =~ $skip ]] || echo "test_$t"; done
}

# ---- 3. tests ----
PASSED=0 FAILED=0
# run_tests LABEL REGEX [env...]: ctest the tests matching REGEX, counting them
run_tests() {
    local label=$1 regex=$2 log="$BUILD/ctest-$1.log" rc=0
    shift 2
    say "$ARCH: ctest ($label) under $QEMU"
    (cd "$BUILD" && env "$@" ctest -j2 --timeout 600 --output-on-failure -R "$regex") > "$log" 2>&1 || rc=$?
    local p f
    p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$log" || true)
    f=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*|Failed|Not Run|Exception)' "$log" || true)
    PASSED=$((PASSED + p)) FAILED=$((FAILED + f))
    grep -E 'tests passed|Failed|\*\*\*' "$log" || true
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        FAILED=$((FAILED + 1)) # ctest itself failed (nothing matched, a crash)
        tail -20 "$log"
    fi
}

ensure_packages
[ "$ARCH" = s390x ] && ensure_devroot
cross_configure
skip='^$'
[ "$ARCH" = s390x ] && skip=$S390X_SKIP
mapfile -t targets < <(selected "$skip")
say "$ARCH: building ${#targets[@]} test programs (-j2)"
cmake --build "$BUILD" -j2 --target "${targets[@]}" >"$BUILD/build.log" 2>&1 ||
    { tail -30 "$BUILD/build.log"; echo "0 passed, 1 failed"; exit 1; }
regex="^($(IFS='|'; echo "${targets[*]}"))\$"
run_tests best "$regex" B2_CASES=150
if [ "$ARCH" = arm64 ]; then
    regex="^test_($(IFS='|'; echo "${GENERIC_TESTS[*]}"))\$"
    run_tests generic "$regex" B2_CASES=150 B2_SIMD=generic
fi

if [ "$ARCH" = s390x ]; then
    # The files s390x writes, checked by a native (x86) build of the same program.
    out="$BUILD/cross-files"
    rm -rf "$out"
    say "s390x: test_cross_files --write under qemu"
    if "$QEMU" "$BUILD/tests/test_cross_files" --write "$out"; then
        PASSED=$((PASSED + 1))
    else
        FAILED=$((FAILED + 1))
    fi
    # A native build: the release build/ when there is one (CI's first stage made
    # it: the program is then up to date), else a library-only one of our own.
    host="$ROOT/build"
    if [ ! -f "$host/CMakeCache.txt" ]; then
        host="$BUILD/host"
        cmake -S "$ROOT" -B "$host" -DCMAKE_BUILD_TYPE=Release -DB2_WERROR=ON -DB2_WITH_ZFP=OFF \
            -DB2_BUILD_TOOLS=OFF -DB2_BUILD_PLUGIN=OFF >/dev/null || host=
    fi
    say "native: building test_cross_files in ${host:-(configure failed)}"
    if [ -n "$host" ] &&
       cmake --build "$host" -j2 --target test_cross_files >"$BUILD/host-build.log" 2>&1 &&
       say "native: test_cross_files --check (the s390x files)" &&
       "$host/tests/test_cross_files" --check "$out"; then
        PASSED=$((PASSED + 1))
    else
        FAILED=$((FAILED + 1))
    fi
fi
say "$ARCH: done"
echo "$ARCH: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]

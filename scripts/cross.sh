#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cross builds tested under qemu-user (issue 28): arm64 and s390x (big-endian).
#   bash scripts/cross.sh arm64   build-cross-arm64/: Debian's aarch64 cross gcc against a
#                               sysroot of unpacked arm64 .debs (build-cross-arm64/sysroot);
#                               the C tests under qemu-user, with the best kernels and
#                               again with B2_SIMD=generic
#   bash scripts/cross.sh s390x   build-cross-s390x/: the same for s390x; then files written
#                               there (test_cross_files --write) must be the bytes a
#                               native build writes and read back to the same values
# Each ends with "N passed, N failed". Native tools are installed only when missing;
# foreign packages are never installed, only unpacked into the sysroot.
#
# Left out, to keep the sysroot to the codec libraries: the HDF5 plugin, the b2
# program (HDF5) and the zfp codecs (-DB2_WITH_ZFP=OFF: test_plugin_zfp checks that
# they refuse). No binfmt is needed: ctest runs the programs through
# CMAKE_CROSSCOMPILING_EMULATOR (cmake/toolchain-debian-cross.cmake).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
ARCH=${1:-}
T0=$SECONDS
say() { printf '== [%4ds] %s\n' $((SECONDS - T0)) "$*"; }

case "$ARCH" in
arm64) TRIPLET=aarch64-linux-gnu ;;
s390x) TRIPLET=s390x-linux-gnu ;;
*) echo "usage: bash scripts/cross.sh arm64|s390x" >&2; exit 2 ;;
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

# The native tools: the cross gcc (its libc6-dev-ARCH-cross is Architecture: all) and
# qemu-user. Nothing of the foreign architecture is ever installed (see the sysroot).
ensure_packages() {
    local pkgs=("gcc-$TRIPLET" pkg-config) qemu=qemu-user-static missing=() p
    # Debian 13 may carry the static qemu binaries in qemu-user alone
    apt-cache show qemu-user-static >/dev/null 2>&1 || qemu=qemu-user
    pkgs+=("$qemu")
    for p in "${pkgs[@]}"; do is_installed "$p" || missing+=("$p"); done
    if [ ${#missing[@]} -eq 0 ]; then
        say "$ARCH: native tools installed"
        return
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages: ${missing[*]}" >&2
        echo "run as root:  apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
    say "$ARCH: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# ---- 2. the sysroot: foreign .debs unpacked, never installed ----
# Installing ARCH packages beside native ones fails once a native Multi-Arch: same
# library (zlib1g, libzstd1) is newer than the foreign one: Debian 12's security
# suite builds amd64 and arm64 but not s390x. So the target's libc6, its loader, its
# headers and every library the build links are downloaded (apt-get download) and
# unpacked with dpkg-deb -x into build-cross-ARCH/sysroot, which the toolchain file
# (--sysroot, pkg-config) and qemu (-L) use. Each entry lists alternative names: the
# first that apt knows for ARCH is taken (Debian 12 / 13 spellings).
SYSROOT="$BUILD/sysroot"
SYSROOT_PKGS=(libc6 libc6-dev linux-libc-dev libgcc-s1 libcrypt1 libcrypt-dev
              liblz4-1 liblz4-dev libzstd1 libzstd-dev libxxhash0 libxxhash-dev
              libdeflate0 libdeflate-dev zlib1g zlib1g-dev
              "libmsgpack-c2|libmsgpackc2" "libmsgpack-c-dev|libmsgpack-dev")

apt_knows() { apt-cache show "$1" >/dev/null 2>&1; }

ensure_foreign_lists() {
    apt_knows "libc6:$ARCH" && return
    [ "$(id -u)" -eq 0 ] || { echo "run as root: dpkg --add-architecture $ARCH && apt-get update" >&2; exit 1; }
    # only apt's package lists learn of ARCH: nothing of it gets installed
    dpkg --print-foreign-architectures | grep -qx "$ARCH" || dpkg --add-architecture "$ARCH"
    say "$ARCH: apt-get update (package lists for $ARCH)"
    apt-get update -q >/dev/null
}

# Absolute links in the unpacked packages (zlib1g-dev's libz.so -> /lib/...) point at
# the host: point them inside the sysroot.
reroot_links() {
    local l t
    while IFS= read -r -d '' l; do
        t=$(readlink "$l")
        [[ $t == /* ]] && ln -sfn "$SYSROOT$t" "$l"
    done < <(find "$SYSROOT" -type l -print0)
    # the loader is /lib/...: a usr-merged libc6 (Debian 13) ships it under usr/lib
    [ -e "$SYSROOT/lib" ] || ln -s usr/lib "$SYSROOT/lib"
}

ensure_sysroot() {
    local stamp="$SYSROOT/.packages" want names=() entry alt found
    want=$(printf '%s\n' "${SYSROOT_PKGS[@]}")
    [ -f "$stamp" ] && [ "$(head -c ${#want} "$stamp")" = "$want" ] && return
    ensure_foreign_lists
    for entry in "${SYSROOT_PKGS[@]}"; do
        found=
        for alt in ${entry//|/ }; do
            if apt_knows "$alt:$ARCH"; then found=$alt; break; fi
        done
        [ -n "$found" ] || { echo "$ARCH: apt knows none of: $entry" >&2; exit 1; }
        names+=("$found:$ARCH")
    done
    say "$ARCH: downloading ${#names[@]} packages into $SYSROOT"
    rm -rf "$SYSROOT" "$BUILD/debs"
    mkdir -p "$SYSROOT" "$BUILD/debs"
    # apt-get download writes into the current directory, as the _apt user if it can
    chmod 755 "$BUILD/debs"
    (cd "$BUILD/debs" && apt-get download -q "${names[@]}") > "$BUILD/debs.log" 2>&1 ||
        { tail -20 "$BUILD/debs.log"; echo "$ARCH: apt-get download failed" >&2; exit 1; }
    local d
    for d in "$BUILD"/debs/*.deb; do dpkg-deb -x "$d" "$SYSROOT"; done
    reroot_links
    { echo "$want"; (cd "$BUILD/debs" && ls); } > "$stamp"
    say "$ARCH: sysroot of $(ls "$BUILD"/debs/*.deb | wc -l) packages: $(cd "$BUILD/debs" && ls | tr '\n' ' ')"
}

# ---- 3. build ----
cross_configure() {
    say "$ARCH: configuring $BUILD"
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DB2_CROSS_SYSROOT="$SYSROOT" \
        -DCMAKE_BUILD_TYPE=Release -DB2_WERROR=ON -DB2_WITH_ZFP=OFF -DB2_BUILD_TOOLS=OFF \
        -DB2_BUILD_PLUGIN=OFF >"$BUILD/configure.log" 2>&1 || { tail -30 "$BUILD/configure.log"; return 1; }
}

selected() { # the test names of TESTS minus the skip pattern, as ctest targets
    local t skip=${1:-'^$'}
    for t in "${TESTS[@]}"; do [[ $t =~ $skip ]] || echo "test_$t"; done
}

# ---- 4. tests ----
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
mkdir -p "$BUILD"
ensure_sysroot
cross_configure || { echo "$ARCH: 0 passed, 1 failed"; exit 1; }
QEMU=$(sed -n 's/^B2_CROSS_QEMU:[A-Z]*=//p' "$BUILD/CMakeCache.txt") # the toolchain's choice
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
    if "$QEMU" -L "$SYSROOT" "$BUILD/tests/test_cross_files" --write "$out"; then
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

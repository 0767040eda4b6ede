#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up, build and exercise libb2 on Debian 12 or 13.
#   bash scripts/setup.sh demo   install what is missing, build, run a short demo
#   bash scripts/setup.sh test   install what is missing, build, run the test suite
#                              (configure checks, plain gcc build, clang build,
#                              a build encoding zlib with zlib (byte identity), an
#                              ASan+UBSan build, libFuzzer, a ThreadSanitizer
#                              build of the thread tests, and valgrind over a
#                              subset of the C tests; all with -Werror; and the
#                              MPI tests in a build against the parallel HDF5;
#                              then the arm64 and s390x cross builds, tested under
#                              qemu by scripts/cross.sh (arm64 is also the portable-
#                              kernels build without zfp))
# Missing Debian packages are installed when running as root; otherwise the
# exact command to run is printed and the script stops.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
MODE=${1:-}
JOBS=$(nproc 2>/dev/null || echo 2)

T0=$SECONDS
say() { printf '== [%4ds] %s\n' $((SECONDS - T0)) "$*"; } # seconds since start: stage times in CI logs

usage() {
    echo "usage: bash scripts/setup.sh demo|test" >&2
    exit 2
}

# ---- 1. packages ----
# Debian 12 and 13 spell a few packages differently: an entry "a|b" takes the first
# that apt knows. The machine may start bare (no clang, valgrind, node): everything
# the test mode uses is listed here; scripts/cross.sh adds the cross compilers and qemu.
PACKAGES=(build-essential clang cmake pkg-config libhdf5-dev liblz4-dev libzstd-dev libdeflate-dev zlib1g-dev
          "libmsgpack-c-dev|libmsgpack-dev" libzfp-dev libxxhash-dev
          python3 python3-h5py python3-numpy python3-msgpack hdf5-tools netcdf-bin
          hdf5-filter-plugin-blosc-serial libb2-dev dpkg-dev groff-base lintian valgrind
          libhdf5-openmpi-dev openmpi-bin python3-h5py-mpi
          python3-venv python3-pip python3-setuptools python3-wheel
          python3-xarray python3-h5netcdf python3-netcdf4 git ca-certificates)

is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
apt_knows() { apt-cache show "$1" >/dev/null 2>&1; }

# pick "a|b": the installed one, else the first apt knows (empty when none)
pick_package() {
    local alt
    for alt in ${1//|/ }; do is_installed "$alt" && { echo "$alt"; return; }; done
    for alt in ${1//|/ }; do apt_knows "$alt" && { echo "$alt"; return; }; done
}

# The packages of PACKAGES (and node/npm, libFuzzer's runtime) that are missing.
missing_packages() {
    local p name
    for p in "${PACKAGES[@]}"; do
        name=$(pick_package "$p")
        [ -n "$name" ] || name=${p%%|*} # apt knows none yet (lists not fetched): the first
        is_installed "$name" || echo "$name"
    done
    # node/npm may come from outside Debian (nodesource): only ask for Debian's when absent.
    if ! command -v node >/dev/null 2>&1; then
        echo nodejs
        command -v npm >/dev/null 2>&1 || echo npm
    elif ! command -v npm >/dev/null 2>&1; then
        echo "note: node found at $(command -v node) without npm; installing Debian's npm" >&2
        echo npm
    fi
    # libFuzzer and the sanitizer runtimes of the installed clang (libclang-rt-N-dev)
    if command -v clang >/dev/null 2>&1; then
        local v
        v=$(clang -dumpversion | cut -d. -f1)
        is_installed "libclang-rt-$v-dev" || echo "libclang-rt-$v-dev"
    fi
}

install_missing() {
    local missing=("$@")
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages: ${missing[*]}" >&2
        echo "run:  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
        echo "then run this script again." >&2
        exit 1
    fi
    say "installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
        > "${TMPDIR:-/tmp}/libb2-apt-install.log" 2>&1 ||
        { tail -30 "${TMPDIR:-/tmp}/libb2-apt-install.log"; echo "FAIL: apt-get install failed (log: ${TMPDIR:-/tmp}/libb2-apt-install.log)" >&2; exit 1; }
}

ensure_packages() {
    local missing
    mapfile -t missing < <(missing_packages)
    if [ ${#missing[@]} -eq 0 ]; then
        say "all required packages are installed"
        return
    fi
    [ "$(id -u)" -eq 0 ] && { say "apt-get update"; apt-get update -q >/dev/null; }
    mapfile -t missing < <(missing_packages) # names resolved against fresh lists
    install_missing "${missing[@]}"
    # clang came with this install: its runtime (libFuzzer) is known only now
    mapfile -t missing < <(missing_packages)
    [ ${#missing[@]} -eq 0 ] || install_missing "${missing[@]}"
}

# ---- 2. build ----
# build DIR [cmake options...] [-- targets...]
build() {
    local dir=$1 opts=() targets=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    [ $# -gt 0 ] && shift && targets=(--target "$@")
    say "configuring $dir"
    cmake -S "$ROOT" -B "$ROOT/$dir" "${opts[@]}" >/dev/null || return 1
    say "building $dir (-j$JOBS)"
    cmake --build "$ROOT/$dir" -j"$JOBS" "${targets[@]}" || return 1
}


# ---- demo: compress a realistic array and get it back ----
demo() {
    # A 128 MiB float32 field written to HDF5 through our filter 32026 with h5py,
    # read back and compared, next to gzip 4 and no compression (examples/demo_h5.py).
    local plugin="$ROOT/build/h5plugin"
    [ -f "$plugin/libH5Zb2.so" ] || { echo "demo: $plugin/libH5Zb2.so was not built" >&2; return 1; }
    say "HDF5 demo: filter 32026 (Blosc2) vs gzip vs none, via h5py (about a minute)"
    /usr/bin/python3 "$ROOT/examples/demo_h5.py" "$plugin"
}

# ---- test: ctest in a plain and a sanitizer build ----
# run_ctest DIR [ctest options...]
# A skipped test fails the run: with test_data/ in the repository every
# compatibility test can run, so a skip means something is missing.
run_ctest() {
    local dir=$1 rc=0
    shift
    (cd "$ROOT/$dir" && ctest --output-on-failure -j2 "$@") | tee "$ROOT/$dir/ctest.log" || rc=$?
    if grep -q '\*\*\*Skipped' "$ROOT/$dir/ctest.log"; then
        echo "FAIL: tests were skipped (every test must run in CI):" >&2
        grep '\*\*\*Skipped' "$ROOT/$dir/ctest.log" >&2
        rc=1
    fi
    return $rc
}

# In the sanitizer pass the Python tests run with the ASan runtime preloaded
# (tests/CMakeLists.txt), so h5py exercises the instrumented plugin. Two are left
# to the plain build: h5repack hangs in p11-kit's exit handlers when libasan is
# preloaded (even without our plugin), and the h5wasm test runs the reference's
# WebAssembly filter, not our code, and would install its npm packages twice.
# Four more run in the plain build only, to keep CI inside its time: the two
# benchmark checks (timings mean nothing under ASan), and the Python walks over
# every reference chunk (decode, re-encode), whose C paths the C vector tests and
# the fuzz replays of the same vectors already run under ASan+UBSan.
ASAN_EXCLUDE='^(py_test_h5plugin_(tools|h5wasm)|py_test_bench_(frame|h5)|py_test_interop_chunks|py_test_reencode)$'

# libFuzzer targets (tests/fuzz/fuzz_<entry>.c, doc/testing.md, "Fuzzing"): first ctest
# makes the seeds harnesses build from the vectors (fuzz_seeds_*) and replays
# every seed and kept regression (fuzz_replay_*) under ASan+UBSan; then each
# target runs FUZZ_SECONDS (default 15) from the reference vectors named here and
# its made seeds (new inputs go to build-fuzz/corpus/<entry>/). Any crash, leak,
# timeout, sanitizer report or failed check fails; the input is left in
# build-fuzz/ (keep it in tests/fuzz/regressions/<entry>/ once fixed).
# two_at_a_time COMMAND ITEM...: COMMAND ITEM for every item, at most two at
# once (2 cores); fails when any of them failed. COMMAND may carry leading
# arguments ("fuzz_one_for 15").
two_at_a_time() {
    local cmd=$1 item running=0 rc=0
    shift
    for item in "$@"; do
        if [ "$running" -ge 2 ]; then
            wait -n || rc=1
            running=$((running - 1))
        fi
        $cmd "$item" &
        running=$((running + 1))
    done
    while [ "$running" -gt 0 ]; do
        wait -n || rc=1
        running=$((running - 1))
    done
    return $rc
}
fuzz_entries() {
    local f
    for f in "$ROOT"/tests/fuzz/fuzz_*.c; do f=${f##*/fuzz_}; echo "${f%.c}"; done
}
fuzz_targets() {
    local e
    for e in $(fuzz_entries); do echo "fuzz_$e replay_$e"; done
}
# fuzz_one ENTRY SECONDS: one target from its seeds, log in build-fuzz/fuzz_ENTRY.log.
fuzz_one() {
    local e=$1 secs=$2 dir="$ROOT/build-fuzz" td="$ROOT/test_data" made reg rc=0
    declare -A seeds=([chunk]="$td/chunks $td/compat $td/plugins/chunks"
                      [frame]="$td/frames $td/plugins/frames"
                      [b2nd]="$td/b2nd $td/plugins/b2nd")
    mkdir -p "$dir/corpus/$e"
    made="$dir/tests/fuzz_seeds/$e"
    [ -d "$made" ] || made=
    # the kept inputs seed the run too (e.g. libdeflate-written zlib chunks)
    reg="$ROOT/tests/fuzz/regressions/$e"
    [ -d "$reg" ] || reg=
    # shellcheck disable=SC2086
    (cd "$dir" && "$dir/tests/fuzz_$e" -max_total_time="$secs" -rss_limit_mb=2048 \
        -max_len=65536 -timeout=20 -print_final_stats=1 -artifact_prefix="$dir/crash-$e-" \
        "$dir/corpus/$e" ${seeds[$e]:-} $made $reg) > "$dir/fuzz_$e.log" 2>&1 || rc=1
    echo "fuzz_$e for ${secs}s: $([ $rc = 0 ] && echo ok || echo FAILED)"
    grep -E "^(stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|fuzz check failed)" \
        "$dir/fuzz_$e.log" || true
    return $rc
}
# The targets run two at a time (each is one process on one core).
run_fuzzers() {
    local secs="${FUZZ_SECONDS:-15}" rc=0
    say "fuzz seeds made, seeds and regressions replayed"
    run_ctest build-fuzz -R '^fuzz_(seeds|replay)_' || rc=1
    say "fuzz targets for ${secs}s each, two at a time"
    # shellcheck disable=SC2046  # one word per entry
    two_at_a_time "fuzz_one_for $secs" $(fuzz_entries) || rc=1
    return $rc
}
fuzz_one_for() { fuzz_one "$2" "$1"; } # fuzz_one_for SECONDS ENTRY

# ThreadSanitizer (-DB2_TSAN=ON): the thread tests, where any report fails the
# program. test_threads: 8 threads with their own contexts, then 8 reading one
# shared frame and one shared b2nd array (memory, file, sparse);
# test_h5threads: the plugin's filter function from 8 threads; test_h5parread:
# the HDF5 reader's parallel reads and their cancellation; test_pool and
# test_registry: the worker pool and the plugin registry racing. No suppressions
# are needed: nothing outside our code (libzfp, HDF5, codec libraries) reports.
# test_chunk_prepost: prefilters and postfilters on 2 worker threads;
# test_schunk_refresh: a reader refreshing beside a writer thread.
TSAN_TESTS='^test_(threads|h5threads|h5write|h5parread|pool|registry|chunk_prepost|schunk_refresh)$'
run_tsan() {
    build build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DB2_TSAN=ON -DB2_WERROR=ON \
        -DB2_BUILD_TOOLS=OFF -- test_threads test_h5threads test_h5write test_h5parread test_pool test_registry \
        test_chunk_prepost test_schunk_refresh || return 1
    say "thread tests under ThreadSanitizer"
    B2_STRESS_ROUNDS=4 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        run_ctest build-tsan -R "$TSAN_TESTS"
}

# valgrind memcheck over a subset of the C tests of the release build (build/),
# two at a time: chunks (encode and decode paths, getitem), filters (the SIMD
# kernels, and the portable ones again with B2_SIMD=generic), frames (memory,
# file, sparse, lazy reads, reference vectors), b2nd arrays, the plugin filters
# and codecs (ndcell, ndlz, zfp), user plugins, the thread tests and the HDF5
# filter. Any memory error or definite/indirect leak fails; logs in build/valgrind/.
VALGRIND_TESTS=(
    tests/test_errors tests/test_filters "B2_SIMD=generic tests/test_filters"
    tests/test_chunk_decode "B2_SIMD=generic tests/test_chunk_decode"
    tests/test_frame_write tests/test_frame_lazy tests/test_frame_interop
    tests/test_b2nd_slice tests/test_b2nd_vectors tests/test_b2nd_ops
    tests/test_plugin_filters tests/test_plugin_ndlz tests/test_plugin_zfp tests/test_registry
    tests/test_threads "h5plugin/test_h5threads h5plugin/libH5Zb2.so"
)
# valgrind_one "[VAR=value ...] program [args...]" (relative to build/)
valgrind_one() {
    local words env=() t0=$SECONDS log
    read -ra words <<< "$1"
    while [[ ${words[0]} == *=* ]]; do env+=("${words[0]}"); words=("${words[@]:1}"); done
    log="$ROOT/build/valgrind/$(printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_').log"
    if (cd "$ROOT/build" && env B2_INTEROP_DIR="$ROOT/test_data" B2_TEST_DATA="$ROOT/test_data" \
            "${env[@]}" valgrind -q --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
            "${words[@]}") > "$log" 2>&1; then
        echo "valgrind $1: ok ($((SECONDS - t0)) s)"
    else
        echo "valgrind $1: FAILED ($((SECONDS - t0)) s; $log):"
        grep -E '^==[0-9]+==|FAIL' "$log" | head -40
        return 1
    fi
}
run_valgrind() {
    command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; return 1; }
    mkdir -p "$ROOT/build/valgrind"
    say "valgrind memcheck over ${#VALGRIND_TESTS[@]} C test runs (2 at a time)"
    two_at_a_time valgrind_one "${VALGRIND_TESTS[@]}"
}

# Every build of the test mode uses -Werror (B2_WERROR): gcc and clang build the
# tree warning-free.
test_all() {
    local cfg=FAIL plain=FAIL clang=FAIL zlibenc=FAIL asan=FAIL fuzz=FAIL tsan=FAIL vg=FAIL mpi=FAIL
    local arm64=FAIL s390x=FAIL peers=FAIL wheel=FAIL
    # Configure-only: three option combinations (scripts/check_configure.sh all does
    # the 16 by hand) and the serial/parallel HDF5 choice against a fake parallel HDF5.
    if say "configure checks" && bash "$ROOT/scripts/check_configure.sh" ci &&
       bash "$ROOT/scripts/check_configure.sh" hdf5; then
        cfg=ok
    fi
    # The C tests run a second time with the portable kernels only (B2_SIMD=generic),
    # so the code paths of CPUs without SSE2/AVX2 are tested too; test_chunk_encode
    # there with 600 of its 2200 random cases (B2_CASES), the slow part of that pass.
    if build build -DCMAKE_BUILD_TYPE=Release -DB2_WERROR=ON -DB2_PEER_TESTS=ON -DB2_BUILD_BENCH=ON &&
       run_ctest build -LE '^(peers|wheel)$' &&
       (say "C tests again with B2_SIMD=generic"; export B2_SIMD=generic B2_CASES=600
        run_ctest build -R '^test_'); then
        plain=ok
    fi
    # The peer matrix (tests/peers/README.md): two venvs from PyPI, pinned in
    # tests/peers/requirements-*.txt (h5py 3.15.1 with HDF5 1.14.6, h5py 3.16.0 with
    # HDF5 2.0, and hdf5plugin, python-blosc2, PyTables, b2h5py, netCDF4, h5netcdf,
    # xarray), then what they write we read and what we write they read. A pip
    # install that fails or a peer that will not import fails the stage.
    if [ -f "$ROOT/build/CMakeCache.txt" ] && say "peer matrix (PyPI venvs)" &&
       run_ctest build -L '^peers$'; then
        peers=ok
    fi
    # The wheel (tests/wheel): sdist, a wheel built from it with build isolation,
    # auditwheel repair (manylinux, codec libraries bundled with their licences),
    # then the package's tests under pytest in clean venvs holding only the wheel
    # and pinned h5py 3.16.0 / 3.15.1, numpy, hdf5plugin and blosc2.
    if [ -f "$ROOT/build/CMakeCache.txt" ] && say "the wheel, tested in clean venvs" &&
       run_ctest build -L '^wheel$'; then
        wheel=ok
    fi
    # Parallel HDF5 (tests/mpi/): only the MPI example and test programs, built
    # against Debian's openmpi HDF5, run with 1, 2 and 4 ranks (C and h5py-mpi);
    # they load the plugin of the serial build above: one file serves both HDF5s.
    if build build-mpi -DCMAKE_BUILD_TYPE=Release -DB2_WERROR=ON -DB2_HDF5_PARALLEL=ON \
           -DB2_MPI_PLUGIN_DIR="$ROOT/build/h5plugin" -- h5_parallel test_h5_mpi_read_box \
           test_h5_mpi_incompressible &&
       run_ctest build-mpi -R '^mpi_'; then
        mpi=ok
    fi
    # clang builds the library, the HDF5 plugin and the C tests (the b2 program,
    # which only Python tests run, is left to the gcc builds); its C tests run.
    if CC=clang build build-clang -DCMAKE_BUILD_TYPE=Release -DB2_WERROR=ON -DB2_BUILD_TOOLS=OFF &&
       run_ctest build-clang -R '^test_'; then
        clang=ok
    fi
    # (The portable build, -DB2_SIMD_X86=OFF -DB2_WITH_ZFP=OFF, is the arm64 cross
    # stage's now: no x86 kernels, no zfp, test_plugin_zfp's refusal, and the
    # portable kernels again under B2_SIMD=generic; on x86 the generic pass above.)
    # zlib's own bytes (-DB2_ZLIB_ENCODER=zlib; the default encodes zlib streams with
    # libdeflate): the tests that compare zlib chunks and b2nd frames byte for byte
    # with c-blosc2's vectors, and the decoder, with the library alone.
    if build build-zlib -DCMAKE_BUILD_TYPE=Release -DB2_WERROR=ON -DB2_ZLIB_ENCODER=zlib \
           -DB2_BUILD_TOOLS=OFF -DB2_BUILD_PLUGIN=OFF \
           -- test_chunk_encode test_b2nd_reencode test_chunk_decode &&
       run_ctest build-zlib -R '^test_(chunk_encode|b2nd_reencode|chunk_decode)$'; then
        zlibenc=ok
    fi
    if build build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DB2_SANITIZE=ON -DB2_WERROR=ON -DB2_BUILD_BENCH=ON &&
       ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       run_ctest build-asan -E "$ASAN_EXCLUDE"; then asan=ok; fi
    # shellcheck disable=SC2046
    if CC=clang build build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DB2_BUILD_FUZZERS=ON \
           -DB2_BUILD_TOOLS=OFF -- $(fuzz_targets) &&
       run_fuzzers; then fuzz=ok; fi
    if run_tsan; then tsan=ok; fi
    if run_valgrind; then vg=ok; fi # on the programs the release stage built
    # Cross builds under qemu-user (scripts/cross.sh installs their packages): arm64
    # C tests with the best kernels and with B2_SIMD=generic; s390x (big-endian) C
    # tests, and its written files read back by a native build.
    say "arm64 cross build, tests under qemu"
    if bash "$ROOT/scripts/cross.sh" arm64; then arm64=ok; fi
    say "s390x cross build, tests under qemu"
    if bash "$ROOT/scripts/cross.sh" s390x; then s390x=ok; fi
    echo "SUMMARY: configure checks: $cfg; release build + tests (C tests also with B2_SIMD=generic): $plain;" \
         "clang build (without the b2 program) + C tests: $clang;" \
         "zlib-encoder build (B2_ZLIB_ENCODER=zlib) + byte-identity tests: $zlibenc;" \
         "asan/ubsan build + tests (without $ASAN_EXCLUDE): $asan; libFuzzer targets ${FUZZ_SECONDS:-15}s each: $fuzz;" \
         "tsan build + thread tests: $tsan; valgrind memcheck on ${#VALGRIND_TESTS[@]} C test runs: $vg;" \
         "peer matrix from PyPI (tests/peers): $peers; manylinux wheel in clean venvs (tests/wheel): $wheel;" \
         "parallel HDF5 build + MPI tests (1, 2, 4 ranks): $mpi;" \
         "arm64 cross build + C tests under qemu: $arm64; s390x cross build + C tests under qemu + files read natively: $s390x"
    [ "$cfg" = ok ] && [ "$plain" = ok ] && [ "$peers" = ok ] && [ "$wheel" = ok ] && [ "$clang" = ok ] && [ "$zlibenc" = ok ] && [ "$asan" = ok ] &&
        [ "$fuzz" = ok ] && [ "$tsan" = ok ] && [ "$vg" = ok ] && [ "$mpi" = ok ] &&
        [ "$arm64" = ok ] && [ "$s390x" = ok ]
}

case "$MODE" in
demo)
    ensure_packages
    build build -DCMAKE_BUILD_TYPE=Release
    if demo; then echo "SUMMARY: demo ok"; else echo "SUMMARY: demo FAILED"; exit 1; fi
    ;;
test)
    ensure_packages
    test_all
    ;;
*)
    usage
    ;;
esac

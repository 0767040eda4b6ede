#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make_venv.sh ENV BUILD_DIR [INSTALL]: the peer environment ENV (hdf5-1.14 or hdf5-2.0;
# the wheel's: wheel-build, wheel-h5py-3.16, wheel-h5py-3.15) in BUILD_DIR/peers/ENV/,
# from tests/peers/requirements-ENV.txt (every package pinned):
#   1. a venv of the first python3 on PATH that is not Debian's /usr/bin/python3
#      (pyenv's on our machines; B2_PEER_PYTHON overrides), re-made only when the
#      requirements file, this script or that Python changed (a hash stamp), so a
#      re-run is quick;
#   2. pip install of the pins, time-bounded (B2_PEER_PIP_TIMEOUT seconds, default
#      900), then a check that the venv holds exactly the pinned packages;
#   3. our b2blosc, every run: INSTALL "checkout" (the default) builds it from the
#      checkout (setup.py runs its own CMake build of libb2 and the plugin,
#      incremental in the checkout's build-py/; it cannot take BUILD_DIR's build),
#      so the venv always has the tree's current code; a folder installs the one
#      wheel it holds (scripts/build_wheel.sh's); "none" installs nothing;
#   4. every peer's versions, printed and written to BUILD_DIR/peers/ENV/versions.txt
#      (record_versions.py: fails when h5py's bundled HDF5 is not the env's).
# Any failure exits non-zero with a message naming the env: a missing peer fails
# the stage, it is never skipped.
set -euo pipefail

ENV_NAME=${1:?usage: make_venv.sh ENV BUILD_DIR [INSTALL]}
BUILD_DIR=${2:?usage: make_venv.sh ENV BUILD_DIR [INSTALL]}
INSTALL=${3:-checkout}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
REQ=$HERE/requirements-$ENV_NAME.txt
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
VENV=$BUILD_DIR/peers/$ENV_NAME
PIP_LIMIT=${B2_PEER_PIP_TIMEOUT:-900}

fail() {
  echo "peers $ENV_NAME: FAILED: $*" >&2
  exit 1
}

[ -f "$REQ" ] || fail "no requirements file $REQ (envs: hdf5-1.14, hdf5-2.0)"

# The interpreter: sys.executable of each python3 on PATH (pyenv's shim names a
# script, the interpreter is what it runs), the first that is not Debian's.
find_python() {
  if [ -n "${B2_PEER_PYTHON:-}" ]; then
    "$B2_PEER_PYTHON" -c 'import sys; print(sys.executable)' || fail "B2_PEER_PYTHON=$B2_PEER_PYTHON does not run"
    return
  fi
  local debian="" c exe
  [ -x /usr/bin/python3 ] && debian=$(readlink -f /usr/bin/python3)
  while read -r c; do
    exe=$("$c" -c 'import sys; print(sys.executable)' 2>/dev/null) || continue
    if [ "$(readlink -f "$exe")" != "$debian" ]; then
      echo "$exe"
      return
    fi
  done < <(type -ap python3)
  fail "no python3 on PATH other than /usr/bin/python3 (install pyenv's 3.11, or set B2_PEER_PYTHON)"
}

PY=$(find_python)
PYVER=$("$PY" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
echo "peers $ENV_NAME: Python $PYVER ($PY), venv $VENV"
STAMP=$( { cat "$REQ" "$HERE/make_venv.sh"; echo "$PY $PYVER"; } | sha256sum | cut -d' ' -f1)

# pip's own messages name the package that failed; the banner names the env
pip_bounded() {
  local what=$1
  shift
  local t0=$SECONDS rc=0
  timeout --kill-after=30 "$PIP_LIMIT" "$VENV/bin/python" -m pip "$@" || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    fail "$what took more than ${PIP_LIMIT}s (B2_PEER_PIP_TIMEOUT) and was stopped"
  elif [ "$rc" != 0 ]; then
    fail "$what failed with exit status $rc (pip's message above names the package)"
  fi
  echo "peers $ENV_NAME: $what took $((SECONDS - t0)) s"
  echo "$what $((SECONDS - t0)) s" >> "$VENV/timings.txt"
}

# The venv must hold the pinned set, nothing more nor other (names normalised as
# pip does: case, '-', '_' and '.' alike); pip itself and b2blosc are not pinned.
check_pins() {
  local want have
  want=$(grep -E '^[A-Za-z0-9]' "$REQ" | sed 's/[[:space:]]*#.*//' | tr 'A-Z_.' 'a-z--' | sort)
  have=$("$VENV/bin/python" -m pip freeze --all --disable-pip-version-check \
         | grep -v -i -E '^(pip|b2blosc)(==| @)' | tr 'A-Z_.' 'a-z--' | sort)
  if [ "$want" != "$have" ]; then
    diff <(echo "$want") <(echo "$have") >&2 || true
    fail "the venv's packages differ from $REQ (< pinned, > installed): re-pin the file"
  fi
}

if [ -f "$VENV/.stamp" ] && [ "$(cat "$VENV/.stamp")" = "$STAMP" ] && [ -x "$VENV/bin/python" ]; then
  echo "peers $ENV_NAME: venv up to date (stamp $STAMP), not re-made"
else
  rm -rf "$VENV"
  mkdir -p "$BUILD_DIR/peers"
  "$PY" -m venv "$VENV" || fail "$PY -m venv $VENV"
  : > "$VENV/timings.txt"
  # Python 3.11's venv seeds setuptools; an env that does not pin it must not hold it
  if ! grep -q -i -E '^setuptools==' "$REQ"; then
    pip_bounded "pip uninstall setuptools (the venv's seed, not pinned)" uninstall --yes \
      --disable-pip-version-check setuptools
  fi
  pip_bounded "pip install -r $(basename "$REQ")" install --no-input --timeout 60 \
    --disable-pip-version-check -r "$REQ"
  check_pins
  echo "$STAMP" > "$VENV/.stamp"
fi

if [ "$INSTALL" = none ]; then
  echo "peers $ENV_NAME: venv $(du -sh "$VENV" | cut -f1), no b2blosc installed"
  exit 0
elif [ "$INSTALL" = checkout ]; then
  # with the pinned setuptools/wheel already in the venv, no build isolation
  # (nothing fetched) and no dependencies (numpy is pinned above)
  pip_bounded "pip install b2blosc from $SRC" install --no-input --no-build-isolation --no-deps \
    --force-reinstall --disable-pip-version-check "$SRC"
else
  shopt -s nullglob
  wheels=("$INSTALL"/b2blosc-*.whl)
  [ "${#wheels[@]}" = 1 ] || fail "$INSTALL holds ${#wheels[@]} b2blosc wheels, not one (scripts/build_wheel.sh makes it)"
  pip_bounded "pip install $(basename "${wheels[0]}")" install --no-input --no-deps \
    --force-reinstall --disable-pip-version-check "${wheels[0]}"
fi
check_pins

"$VENV/bin/python" "$HERE/record_versions.py" "$ENV_NAME" "$BUILD_DIR" > "$VENV/versions.txt.new" \
  || { cat "$VENV/versions.txt.new"; fail "recording the peers' versions (output above)"; }
mv "$VENV/versions.txt.new" "$VENV/versions.txt"
cat "$VENV/versions.txt"
echo "peers $ENV_NAME: venv $(du -sh "$VENV" | cut -f1), versions in $VENV/versions.txt"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build_docs.sh BUILD_DIR: the documentation site, warnings as errors (ctest
# docs_site, label docs).
#   1. the venv BUILD_DIR/peers/docs from tests/peers/requirements-docs.txt
#      (tests/peers/make_venv.sh: every package pinned; re-made only when the
#      pins change; a failed install fails this test, it never skips);
#   2. relative links of README.md and doc/ (check_links.py);
#   3. a copy of doc/ in BUILD_DIR/docs/src plus c-api.md made from the public
#      headers (c_api.py: fails when a public function has no comment);
#   4. sphinx-build -W --keep-going (myst-parser for Markdown; autodoc imports
#      b2blosc from the checkout's python/ with the built plugin, B2_H5_PLUGIN);
#      a broken cross-reference, heading anchor or docstring is an error;
#   5. the pages the site must have, and that the API pages hold the
#      functions they should.
set -euo pipefail
BUILD_DIR=${1:?usage: build_docs.sh BUILD_DIR}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
OUT=$BUILD_DIR/docs
t0=$SECONDS

fail() {
  echo "docs: FAILED: $*" >&2
  exit 1
}

bash "$SRC/tests/peers/make_venv.sh" docs "$BUILD_DIR" none || fail "making the docs venv"
PY=$BUILD_DIR/peers/docs/bin/python
echo "docs: venv ready after $((SECONDS - t0)) s"

"$PY" "$HERE/check_links.py" || fail "broken relative links (above)"

rm -rf "$OUT/src" "$OUT/html" "$OUT/doctrees"
mkdir -p "$OUT"
cp -r "$SRC/doc" "$OUT/src"
"$PY" "$HERE/c_api.py" "$OUT/src/c-api.md" || fail "the C API page (above)"

B2_DOC_REPO=$SRC PYTHONDONTWRITEBYTECODE=1 \
  "$PY" -m sphinx -W --keep-going -q -b html -d "$OUT/doctrees" "$OUT/src" "$OUT/html" \
  || fail "sphinx-build reported warnings or errors (above)"

for page in index hdf5 python library cli building speed testing c-api python-api python-codecs \
            format/README format/chunk format/frame format/b2nd format/hdf5-filter; do
  [ -s "$OUT/html/$page.html" ] || fail "the site has no $page.html"
done
nc=$(grep -c 'id="b2-' "$OUT/html/c-api.html" || true)
want=$(grep -c '^### `b2_' "$OUT/src/c-api.md")
[ "$nc" -ge "$want" ] || fail "c-api.html has $nc function sections, c-api.md $want"
for f in b2blosc.Blosc2 b2blosc.register b2blosc.get_config b2blosc.array.open b2blosc.array.save \
         b2blosc.h5.read b2blosc.h5.write b2blosc.h5.read_slice b2blosc.codecs.encode; do
  grep -q "id=\"$f\"" "$OUT/html/python-api.html" || fail "python-api.html does not document $f"
done
echo "docs: $(find "$OUT/html" -name '*.html' | wc -l) HTML pages in $OUT/html, $want C functions," \
     "built in $((SECONDS - t0)) s"

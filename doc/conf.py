# SPDX-License-Identifier: BSD-3-Clause
# Sphinx configuration of libb2's documentation site. tests/docs/build_docs.sh
# builds it (warnings are errors) from a copy of doc/ that also holds the C API
# page it generates from the public headers (tests/docs/c_api.py); B2_DOC_REPO
# names the checkout, whose python/ autodoc imports b2blosc from.
import os
import re
import sys

REPO = os.environ.get("B2_DOC_REPO") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))


def _version():
    with open(os.path.join(REPO, "libb2", "include", "b2blosc", "b2_common.h")) as f:
        text = f.read()
    return ".".join(re.search(r"#define B2_VERSION_%s (\d+)" % p, text).group(1)
                    for p in ("MAJOR", "MINOR", "PATCH"))


project = "libb2"
author = "The libb2 authors"
copyright = "The libb2 authors, BSD-3-Clause"
release = version = _version()

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
# heading anchors for links such as hdf5.md#reading-small-boxes-fast; a link to
# a page or anchor that does not exist is a warning, and warnings are errors
myst_heading_anchors = 4
myst_enable_extensions = []
suppress_warnings = []
html_theme = "alabaster"
html_theme_options = {"nosidebar": False}
html_static_path = []
pygments_style = "sphinx"

# The package's docstrings are plain text (aligned examples, lists): show each
# one as written, in a literal block, rather than parse it as reStructuredText.
autodoc_member_order = "bysource"
autodoc_default_options = {}
# b2blosc.codecs imports numpy; the site documents it without installing numpy
autodoc_mock_imports = ["numpy"]


def _literal_docstring(app, what, name, obj, options, lines):
    if not lines:
        return
    body = [("    " + ln) if ln.strip() else "" for ln in lines]
    lines[:] = ["::", ""] + body + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _literal_docstring)

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_links.py: every relative link of README.md and doc/ resolves.

For each Markdown link [text](target) in README.md and doc/**/*.md that is not a
URL (http:, https:, mailto:), the target file must exist, and an anchor
(#name) must be the slug of a heading in the target page (or in the page
itself for a bare #name), made as GitHub and myst-parser make them: the
heading's text lower-cased, backticks and punctuation other than '-' and '_'
dropped, spaces turned into '-'. A page under doc/ may link only inside doc/,
since the documentation site is built from doc/ alone. doc/c-api.md, which
the documentation build generates (tests/docs/c_api.py), counts as present. Links inside code
spans and fenced blocks are not links. Prints the count per file; exits 1 on
any broken link. Standard library only, no network."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")
# pages the documentation build generates into its copy of doc/ (tests/docs/build_docs.sh)
GENERATED = {os.path.join(ROOT, "doc", "c-api.md")}


def pages():
    yield os.path.join(ROOT, "README.md")
    for d, dirs, names in os.walk(os.path.join(ROOT, "doc")):
        dirs[:] = sorted(x for x in dirs if not x.startswith(("_", ".")))
        for n in sorted(names):
            if n.endswith(".md"):
                yield os.path.join(d, n)


def slug(title):
    title = title.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = FENCE.sub("", f.read())
        cache[path] = {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M)}
    return cache[path]


def main():
    errors, total = [], 0
    doc = os.path.join(ROOT, "doc") + os.sep
    for page in pages():
        rel = os.path.relpath(page, ROOT)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        body = CODE.sub("", FENCE.sub("", text))
        n = 0
        for m in LINK.finditer(body):
            target = m.group(2)
            if re.match(r"^(https?|mailto):", target):
                continue
            n += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest) and dest not in GENERATED:
                errors.append("%s: [%s](%s): no such file %s" % (rel, m.group(1), target,
                                                                  os.path.relpath(dest, ROOT)))
                continue
            if page.startswith(doc) and not (dest + os.sep).startswith(doc):
                errors.append("%s: [%s](%s) leaves doc/, which the site cannot follow; "
                              "name the file in a code span instead" % (rel, m.group(1), target))
            if anchor and dest not in GENERATED:
                if not dest.endswith(".md"):
                    errors.append("%s: %s: an anchor into a file that is not Markdown" % (rel, target))
                elif anchor not in anchors(dest):
                    errors.append("%s: %s: no heading with the anchor #%s in %s"
                                  % (rel, target, anchor, os.path.relpath(dest, ROOT)))
        total += n
        print("%-28s %3d relative links" % (rel, n))
    for e in errors:
        print("FAIL:", e)
    print("%d relative links checked, %d broken" % (total, len(errors)))
    if total < 20:
        print("FAIL: fewer than 20 relative links found: the pattern is probably broken")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

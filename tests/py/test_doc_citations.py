#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every format-note citation in the tree resolves inside the tree.

Source comments cite the format notes as `doc/format/FILE.md §N` (lists and
ranges too: `§3, §5`, `§13.2-13.3`, `§3 steps 4-5`); the notes cite each other as
`[FILE.md](FILE.md) §N`, and the guides in doc/ as `[FILE.md](format/FILE.md) §N`.
For every such citation in libb2/, h5plugin/, tools/, scripts/, bench/, python/,
tests/, examples/, README.md and doc/, this test checks that
doc/format/FILE.md exists and has a heading for every cited section ("## §N ..."
or "### §N.M ..."), and that no citation points outside the repository (e.g. a
spec/ directory). It also checks the notes' licence line and that the index
doc/format/README.md lists every note. Runs with the standard library only.
"""
import bisect
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "doc", "format")
SCAN = ["libb2", "h5plugin", "tools", "scripts", "bench", "python", "tests", "examples", "doc", "README.md"]
EXTS = (".c", ".h", ".py", ".md", ".txt", ".cmake", ".sh", ".js", ".in", ".pyx", ".toml")
SKIP_DIRS = {"node_modules", "__pycache__", ".git", "build"}

NUM = r"\d+(?:\.\d+)*"
SEC = r"§\s*" + NUM + r"(?:\s*[-–]\s*§?\s*" + NUM + r")?"
QUAL = r"(?:\s+(?:steps?|items?|points?)\s+\d+(?:\s*[-–]\s*\d+)?|\s+table)?"
SECLIST = SEC + QUAL + r"(?:(?:,\s*|\s+and\s+|\s*&\s*)" + SEC + QUAL + r")*"
# a path ending in NAME.md, optionally as a Markdown link "[NAME.md](PATH.md)",
# then the section list
CITE = re.compile(
    r"(?:\[[\w.-]+\.md\]\()?(?P<path>(?:[\w.-]+/)*)(?P<name>[\w-]+)\.md\)?[\s,]*(?P<secs>"
    + SECLIST + ")")
TOKEN = re.compile(r"§\s*(" + NUM + r")(?:\s*[-–]\s*§?\s*(" + NUM + r"))?")
HEADING = re.compile(r"^#{1,6}\s+§(" + NUM + r")(?=[\s:.]|$)", re.M)
# references to notes kept outside the repository
OUTSIDE = re.compile(r"(?:shared/spec/|\bspec/)[\w-]+\.md")
CONT = re.compile(r"^[ \t]*(?:\*(?!/)|#|//|\"\"\"|''')?[ \t]*")


def files():
    for top in SCAN:
        p = os.path.join(ROOT, top)
        if os.path.isfile(p):
            yield p
            continue
        for d, dirs, names in os.walk(p):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build"))
            for n in sorted(names):
                if n.endswith(EXTS) or n == "CMakeLists.txt":
                    yield os.path.join(d, n)


def joined(text):
    """The file as one line (comment leaders of continuation lines dropped, so a
    citation may wrap), with a table from offsets to line numbers."""
    parts, starts, pos = [], [], 0
    for i, line in enumerate(text.split("\n")):
        if i:
            line = CONT.sub("", line, count=1)
        starts.append(pos)
        parts.append(line)
        pos += len(line) + 1
    return " ".join(parts), starts


def main():
    if not os.path.isdir(DOC):
        print("FAIL: doc/format/ is missing")
        return 1
    notes = sorted(n for n in os.listdir(DOC) if n.endswith(".md"))
    sections, errors = {}, []
    for n in notes:
        with open(os.path.join(DOC, n), encoding="utf-8") as f:
            body = f.read()
        if not body.startswith("<!-- SPDX-License-Identifier: BSD-3-Clause -->"):
            errors.append(f"doc/format/{n}: does not start with the SPDX licence comment")
        sections[n[:-3]] = set(HEADING.findall(body))
    with open(os.path.join(DOC, "README.md"), encoding="utf-8") as f:
        index = f.read()
    for n in notes:
        if n != "README.md" and f"]({n})" not in index:
            errors.append(f"doc/format/README.md: does not list {n}")

    count, per_note = 0, {}
    for path in files():
        rel = os.path.relpath(path, ROOT)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        flat, starts = joined(text)
        line_of = lambda off: bisect.bisect_right(starts, off)
        in_doc = rel.startswith(os.path.join("doc", "format") + os.sep)
        for m in OUTSIDE.finditer(flat):
            errors.append(f"{rel}:{line_of(m.start())}: '{m.group(0)}' points outside "
                          "the repository; cite doc/format/ instead")
        for m in CITE.finditer(flat):
            name, prefix = m.group("name"), m.group("path")
            where = f"{rel}:{line_of(m.start())}"
            cited = f"{prefix}{name}.md"
            # the guides in doc/ cite the notes by their path from there, format/NAME.md
            in_guides = os.path.dirname(rel) == "doc"
            if (prefix and not prefix.endswith("doc/format/") and not (in_doc and prefix == "./")
                    and not (in_guides and prefix == "format/")):
                errors.append(f"{where}: '{cited}' is not a note in doc/format/")
                continue
            if name not in sections or name == "README":
                errors.append(f"{where}: cites {cited}, which doc/format/ does not have")
                continue
            for t in TOKEN.finditer(m.group("secs")):
                for s in t.groups():
                    if s is None:
                        continue
                    count += 1
                    per_note[name] = per_note.get(name, 0) + 1
                    if s not in sections[name]:
                        errors.append(f"{where}: cites {name}.md §{s}, which has no "
                                      f"heading '§{s}' in doc/format/{name}.md")
    # The scan must see the citations the tree is known to have: a broken pattern
    # would otherwise pass quietly.
    if count < 80:
        errors.append(f"only {count} section citations found; the pattern is probably broken")
    for e in errors:
        print("FAIL:", e)
    print(f"{count} section citations checked: " +
          ", ".join(f"{k}.md {v}" for k, v in sorted(per_note.items())))
    print("notes:", ", ".join(f"{k}.md ({len(v)} sections)" for k, v in sorted(sections.items())))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

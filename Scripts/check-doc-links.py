#!/usr/bin/env python3
"""Checks that every relative link and #anchor in README.md and docs/*.md resolves.

Run by hand after editing the documentation (not part of `make test`):

    python3 Scripts/check-doc-links.py            # or name the Markdown files to check

A link's file must exist (relative to the file that links to it); an anchor must be the slug
GitHub makes from a heading of the target Markdown file (lower case, punctuation dropped, spaces
as hyphens, "-1", "-2", ... for repeated headings). Links inside code (fenced or indented blocks,
`spans`) are not links. URLs with a scheme (https:, mailto:) are not checked. Prints each broken
link as FILE:LINE: TARGET: reason, and exits 1 if there is one.
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)


def prose_lines(text):
    """Yields (line number, line) for the lines outside code blocks, code spans removed."""
    fence = None
    previous_blank, previous_code = True, False
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fence = stripped[:3]
            continue
        indented = len(line) - len(stripped) >= 4 and stripped != ""
        if indented and (previous_blank or previous_code):
            previous_code, previous_blank = True, False
            continue
        previous_code, previous_blank = False, stripped == ""
        yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def slug(heading):
    """The anchor GitHub makes from a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"(\*\*|__|\*|_)(\S(?:.*?\S)?)\1", r"\2", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found, seen = set(), {}
        for _, line in prose_lines(text):
            found.update(HTML_ID.findall(line))
        fence = None
        for line in text.split("\n"):
            stripped = line.lstrip()
            if stripped.startswith("```") or stripped.startswith("~~~"):
                fence = None if fence else stripped[:3]
                continue
            m = None if fence else HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def check(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for number, line in prose_lines(text):
        for target in LINK.findall(line):
            if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{os.path.relpath(path, ROOT)}:{number}: {target}"
            if not os.path.exists(resolved):
                problems.append(f"{where}: no such file {os.path.relpath(resolved, ROOT)}")
            elif anchor:
                if not resolved.endswith(".md"):
                    problems.append(f"{where}: an anchor into a file that is not Markdown")
                elif anchor not in anchors(resolved):
                    problems.append(f"{where}: no heading with anchor #{anchor} in {os.path.relpath(resolved, ROOT)}")
    return problems


def main(argv):
    files = argv or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    problems = [p for f in files for p in check(os.path.abspath(f))]
    for p in problems:
        print(p)
    count = sum(len(LINK.findall(line)) for f in files for _, line in prose_lines(open(f, encoding="utf-8").read()))
    print(f"{len(files)} files, {count} links, {len(problems)} broken", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

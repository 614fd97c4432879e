#!/usr/bin/env python3
"""check-docs.py — the README stays a front door and the docs' links resolve.

Checks README.md and every docs/**/*.md of ROOT (default: the repository this
script is in):

- README.md has at most 200 lines (the manual lives in docs/, one topic a
  file);
- lines are at most 100 columns (characters): every line of README.md; in
  docs/, every line outside fenced code blocks (program output quoted as it
  was printed) and table rows (a Markdown table row cannot be wrapped);
- every relative link — `[text](path)`, `![alt](path)`, `[label]: path`,
  `<img src="path">`, `<a href="path">` —
  names a file or folder that exists (the path relative to the file that
  links, without leaving ROOT), and its `#anchor`, when it has one and points
  into a Markdown file, names a heading of that file as GitHub spells
  heading anchors (lower case; characters other than letters, digits, spaces,
  `-` and `_` dropped; spaces made `-`; a repeated heading gets `-1`, `-2`).
  Links with a scheme (https:, mailto:) are not followed.

Limits, by design: links and headings inside fenced code blocks and inline
code spans are ignored; a link is read within one line (a link whose text
wraps onto the next line is not seen: keep `[text](path)` on one line); only ATX headings (`#`) make anchors (setext
underlines and explicit HTML anchors are not read); emphasis in a heading is
dropped as GitHub renders it only for `*` and `**`, and for links
(`[text](url)` counts as `text`).

Prints one line per problem, `FILE:LINE: ...`, and exits 1 when there is any;
exits 0 otherwise.

    scripts/check-docs.py [--root DIR]
    scripts/check-docs.py --self-test   # the checker refuses a planted broken
                                        # link, a broken anchor, an over-long
                                        # README and an over-wide line

Both run as CTest tests (`docs`, `docs_self_test`).
"""

import os
import re
import sys
import tempfile

from checklib import arguments, clean_failures, finish, planted_failures, planted_tree, report  # scripts/checklib.py

README_MAX_LINES = 200
MAX_COLUMNS = 100
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*\"([^\"]*)\"", re.I)
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_lines(path):
    """(number, line, in_code) for each line of a Markdown file; fence lines
    count as code."""
    with open(path, encoding="utf-8") as source:
        in_code = False
        for number, line in enumerate(source.read().split("\n"), 1):
            if FENCE.match(line):
                yield number, line, True
                in_code = not in_code
                continue
            yield number, line, in_code


def line_count(path):
    """Lines in a file, as `wc -l` counts them for a file ending in a newline."""
    with open(path, encoding="utf-8") as source:
        text = source.read()
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def anchor_of(heading):
    """GitHub's anchor for a heading's text (before de-duplication)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links count as their text
    text = text.lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    """Every heading anchor of a Markdown file, duplicates numbered."""
    seen = {}
    result = set()
    for _, line, in_code in markdown_lines(path):
        match = None if in_code else HEADING.match(line)
        if not match:
            continue
        base = anchor_of(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def link_targets(line):
    """The link targets of one Markdown line (code spans left out)."""
    text = CODE_SPAN.sub("", line)
    targets = [m.group(1) for m in INLINE_LINK.finditer(text)]
    targets += [m.group(1) for m in HTML_LINK.finditer(text)]
    definition = REFERENCE_DEF.match(text)
    if definition:
        targets.append(definition.group(1))
    return targets


def check_link(root, path, target, anchor_cache):
    """Why a link from `path` to `target` is broken (None: it resolves)."""
    if not target or SCHEME.match(target) or target.startswith("//"):
        return None
    file_part, _, anchor = target.partition("#")
    if file_part:
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
        if os.path.relpath(resolved, root).startswith(".."):
            return f"link {target} leaves the repository"
        if not os.path.exists(resolved):
            return f"link {target}: {os.path.relpath(resolved, root)} does not exist"
    else:
        resolved = path
    if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
        if resolved not in anchor_cache:
            anchor_cache[resolved] = anchors(resolved)
        if anchor not in anchor_cache[resolved]:
            return f"link {target}: {os.path.relpath(resolved, root)} has no heading with anchor #{anchor}"
    return None


def documents(root):
    """README.md and every Markdown file under docs/, sorted."""
    found = [os.path.join(root, "README.md")]
    for directory, subdirs, files in os.walk(os.path.join(root, "docs")):
        subdirs.sort()
        found += [os.path.join(directory, name) for name in sorted(files) if name.endswith(".md")]
    return [path for path in found if os.path.isfile(path)]


def check(root):
    """Every problem under `root`, as printable lines."""
    problems = []
    anchor_cache = {}
    readme = os.path.join(root, "README.md")
    for path in documents(root):
        shown = os.path.relpath(path, root)
        is_readme = path == readme
        for number, line, in_code in markdown_lines(path):
            width = len(line)
            exempt = not is_readme and (in_code or line.lstrip().startswith("|"))
            if width > MAX_COLUMNS and not exempt:
                problems.append(f"{shown}:{number}: {width} columns, over {MAX_COLUMNS}")
            if in_code:
                continue
            for target in link_targets(line):
                why = check_link(root, path, target, anchor_cache)
                if why:
                    problems.append(f"{shown}:{number}: {why}")
        if is_readme and line_count(path) > README_MAX_LINES:
            count = line_count(path)
            problems.append(
                f"{shown}:{count}: {count} lines, over {README_MAX_LINES}: the README is the front door; "
                "move the detail to a docs/ page and link it")
    return problems


def self_test():
    """The checker fails on a synthetic tree with planted problems, and
    passes the same tree without them."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="sp-docs-") as root:
        write, run = planted_tree(root, __file__)

        readme = ("# tool\n\nSee [the CLI](docs/cli.md#exit-codes), [specs](specs/FORMAT.md),\n"
                  "[home](https://example.org), [here](#tool), <img src=\"docs/images/report.png\">.\n"
                  "| a | b |\n|---|---|\n")
        # Literal numbers here, not the constants: a checker whose limits
        # drifted must fail its self-test.
        write("README.md", readme + "line\n" * 194)  # 200 lines
        write("specs/FORMAT.md", "# Format\n")
        write("docs/images/report.png", "")
        write("docs/cli.md",
              "# The CLI\n\n## Exit codes\n\n## Exit codes\n\n## `--report-dir` (default `out/`)\n\n"
              "```\n" + "x" * 150 + "\n[not a link](nowhere.md)\n# not a heading\n```\n\n"
              "| " + "wide table row " * 10 + "|\n\n"
              "Back to the [README](../README.md#tool), [twice](#exit-codes-1),\n"
              "[the option](#--report-dir-default-out), `[code](nowhere.md)`.\n")

        failures += clean_failures(run())

        write("README.md", readme + "| " + "wide table row " * 7 + "|\n" + "line\n" * 194)  # 201 lines
        write("docs/speed.md", "# Speed\n\nSee [the numbers](numbers.md) and [the exits](cli.md#exit-code).\n\n"
              + "word " * 30 + "\n\n<img src=\"images/run.png\" width=\"400\">\n")
        planted = run()
        expected = [
            "README.md:201: 201 lines, over 200",
            "README.md:7: 108 columns, over 100",
            "docs/speed.md:3: link numbers.md: docs/numbers.md does not exist",
            "docs/speed.md:3: link cli.md#exit-code: docs/cli.md has no heading with anchor #exit-code",
            "docs/speed.md:5: 150 columns, over 100",
            "docs/speed.md:7: link images/run.png: docs/images/run.png does not exist",
        ]
        failures += planted_failures(planted, expected, "planted problems", lambda line: re.match(r"^\S+:\d+: ", line))
    return finish("check-docs", failures,
                  "a planted broken link, broken anchor, over-long README and over-wide "
              "line are refused, a clean tree passes")


def main():
    args = arguments(__doc__, "prove the checker refuses planted problems")
    if args.self_test:
        return self_test()
    root = os.path.abspath(args.root)
    if not os.path.isfile(os.path.join(root, "README.md")):
        print(f"check-docs: {root} has no README.md; not a scatterproof tree", file=sys.stderr)
        return 2
    return report("check-docs", check(root), "problem(s) in README.md and docs/")


if __name__ == "__main__":
    sys.exit(main())

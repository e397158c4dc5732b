#!/usr/bin/env python3
"""The documentation a newcomer lives in: README.md stays short (at most 200 lines), every relative link of
README.md and docs/ names a file or folder that exists, what they tell a reader to type runs Python through
./dev and the program as build/histostudy, and no tracked file outside data/published/ cites a tracker number
("issue" and a number) instead of saying what it means. Exits 77 (skipped) only when it cannot list the tracked
files (a copy without .git), after the other checks. Usage: test_docs.py"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
README_MAX_LINES = 200
TRACKER_NUMBER = re.compile(rb"issues? ?#?[0-9]", re.IGNORECASE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_BLOCK = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# Where a tracker number may stay: the published sources, copied verbatim.
VERBATIM = ("data/published/",)


def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def broken_links(page):
    """The relative links of `page` whose file or folder does not exist."""
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address, or a place in the same page
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            broken.append(target)
    return broken


def what_a_reader_types(page):
    """The lines of `page`'s code blocks that send a reader to python3 -m plots or to a bare histostudy."""
    wrong = []
    for block in CODE_BLOCK.findall(page.read_text(encoding="utf-8")):
        for line in block.splitlines():
            if "python3 -m plots" in line or re.match(r"\s*(sudo\s+)?histostudy\s", line):
                wrong.append(line.strip())
    return wrong


def tracked_files():
    """The tracked files' paths, or None where git cannot list them."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:
        return None
    return [p for p in listed.stdout.decode().split("\0") if p]


def tracker_numbers(paths):
    """'path:line: text' for every tracker number in `paths` outside the verbatim folders."""
    found = []
    for path in paths:
        if path.startswith(VERBATIM) or not (ROOT / path).is_file():
            continue
        for number, line in enumerate((ROOT / path).read_bytes().splitlines(), 1):
            if TRACKER_NUMBER.search(line):
                found.append(f"{path}:{number}: {line.decode(errors='replace').strip()[:100]}")
    return found


def main():
    failures = []
    readme_lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    if readme_lines > README_MAX_LINES:
        failures.append(f"README.md has {readme_lines} lines, more than {README_MAX_LINES}: move detail into docs/")
    for page in pages():
        name = page.relative_to(ROOT)
        failures += [f"{name}: link to a missing file: {target}" for target in broken_links(page)]
        failures += [f"{name}: tells a reader to type {line!r}: use ./dev, and build/histostudy"
                     for line in what_a_reader_types(page)]
    paths = tracked_files()
    if paths is not None:
        failures += [f"tracker number (say what it means instead): {hit}" for hit in tracker_numbers(paths)]
    if failures:
        sys.exit("test_docs:\n" + "\n".join(failures))
    if paths is None:
        print("skipped: git cannot list the tracked files here, so tracker numbers were not looked for "
              f"(README.md: {readme_lines} lines; the links and commands of {len(pages())} pages are fine)")
        return 77
    print(f"README.md: {readme_lines} lines; {len(pages())} pages' links and commands fine; "
          f"no tracker number in {len(paths)} tracked files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

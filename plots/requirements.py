"""The Python libraries plots/ needs, checked against plots/requirements.txt (the one place their oldest releases
are stated): a library missing or older than its floor for this Python is one line with its fix.

    python3 -m plots.requirements     exit 0 when every library is there and new enough, else 2 and the lines

./dev runs it before a command that needs plots/ (so `./dev study` refuses before measuring, not after); plots/cli.py
checks the same at import. Standard library only: it must speak where the libraries it checks are missing.
"""
import pathlib
import re
import sys

FILE = pathlib.Path(__file__).resolve().parent / "requirements.txt"
MARKER = re.compile(r'^python_version\s*(<=|>=|==|!=|<|>)\s*"(\d+(?:\.\d+)*)"$')
LINE = re.compile(r"^([A-Za-z0-9_.-]+)\s*>=\s*(\d+(?:\.\d+)*)\s*(?:;\s*(.+))?$")
COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
           "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}


def release(text):
    """(1, 21, 5) for '1.21.5', '1.21.5rc1' or '1.21.5+dfsg': the release's numbers, for comparing."""
    match = re.match(r"\d+(?:\.\d+)*", text)
    if not match:
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(n) for n in match.group().split("."))


def parse_marker(text):
    """A marker of the form `python_version OP "X.Y" [and ...]` as a list of (op, (X, Y)); no other is used."""
    terms = []
    for term in text.split(" and "):
        match = MARKER.match(term.strip())
        if not match:
            raise ValueError(f"{FILE.name}: marker {text!r}: only python_version comparisons joined by 'and' are read")
        terms.append((match.group(1), release(match.group(2))))
    return terms


def parse(text):
    """The file's lines as (library, oldest release, marker terms)."""
    lines = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = LINE.match(line)
        if not match:
            raise ValueError(f"{FILE.name}: {line!r} is not 'NAME>=VERSION[; MARKER]'")
        name, oldest, marker = match.groups()
        lines.append((name, oldest, parse_marker(marker) if marker else []))
    return lines


def applies(terms, python):
    return all(COMPARE[op](python[:len(bound)], bound) for op, bound in terms)


def floors(python, lines):
    """{library: its oldest release on this Python (X, Y)}, for the libraries some line states for it."""
    return {name: oldest for name, oldest, terms in lines if applies(terms, python)}


def oldest_python(lines):
    """The lowest python_version any line admits (its `>=` bounds), as 'X.Y'."""
    bounds = [bound for _, _, terms in lines for op, bound in terms if op == ">="]
    return ".".join(map(str, min(bounds))) if bounds else None


def installed_version(name):
    """The installed release of a library, or None where it is not installed."""
    from importlib import metadata
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def problems(python=None, version_of=None, lines=None, executable=None):
    """One line per library that is missing or older than its floor for this Python (each with its fix); [] where
    every library is there and new enough."""
    python = python or sys.version_info[:2]
    version_of = version_of or installed_version
    lines = parse(FILE.read_text()) if lines is None else lines
    executable = executable or sys.executable
    here = ".".join(map(str, python))
    oldest = oldest_python(lines)
    if oldest and python < release(oldest):
        return [f"Python {here} is older than {oldest}, which histostudy's plots need: set PYTHON to a newer Python "
                f"(plots/requirements.txt)"]
    wanted = floors(python, lines)
    found = [f"plots/requirements.txt states no release of {name} for Python {here}"
             for name in dict.fromkeys(name for name, _, _ in lines) if name not in wanted]
    for name, oldest in wanted.items():
        have = version_of(name)
        fix = f"{executable} -m pip install '{name}>={oldest}'"
        if have is None:
            found.append(f"{name} is not installed for {executable} (Python {here}), which histostudy's plots need: "
                         f"apt install python3-{name}, or {fix}")
        elif release(have) < release(oldest):
            found.append(f"{name} {have} is older than {oldest}, which histostudy's plots need on Python {here}: "
                         f"{fix} (plots/requirements.txt)")
    return found


def main():
    found = problems()
    for line in found:
        print(f"plots: {line}", file=sys.stderr)
    return 2 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs one of the plots tools as ./dev does (python3 -m plots.cli MODULE ARGS...), so that a Ctrl-C while its
libraries load (numpy, scipy, matplotlib take a second) ends in the same one line as a Ctrl-C later on, and a
library missing or older than plots/requirements.txt states is one line with its fix, not a traceback."""

import importlib
import sys

from plots import requirements


def main():
    module = sys.argv.pop(1)
    missing = requirements.problems()
    if missing:
        for line in missing:
            print(f"{module}: {line}", file=sys.stderr)
        return 2
    try:
        return importlib.import_module(f"plots.{module}").main()
    except KeyboardInterrupt:  # the tools write through a folder swapped in whole: nothing was written
        print(f"{module}: interrupted: nothing written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

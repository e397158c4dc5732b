"""Runs one of the plots tools as ./dev does (python3 -m plots.cli MODULE ARGS...), so that a Ctrl-C while its
libraries load (numpy, scipy, matplotlib take a second) ends in the same one line as a Ctrl-C later on."""

import importlib
import sys


def main():
    module = sys.argv.pop(1)
    try:
        return importlib.import_module(f"plots.{module}").main()
    except KeyboardInterrupt:  # the tools write through a folder swapped in whole: nothing was written
        print(f"{module}: interrupted: nothing written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

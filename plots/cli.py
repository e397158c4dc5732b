"""Runs one of the plots tools as ./dev does (python3 -m plots.cli MODULE ARGS...), so that every tool ends the
same way, in one line and never a traceback: a Ctrl-C, SIGTERM or SIGHUP, even while its libraries load (numpy,
scipy, matplotlib take a second), stops it as Ctrl-C does (its output folder as it was; exit status 128 + the
signal's number: 130, 143, 129); a reader that closed the pipe (| head -1) ends it quietly; an output that cannot
be written (a full disk, /dev/full) is one line and exit status 2. A library missing or older than
plots/requirements.txt states is one line with its fix."""

import importlib
import signal
import sys

from plots import requirements
from plots.output import STOPPING, OutputError, Stopped, silence_stdout, stopped_status


def stop(signum, _frame):
    raise Stopped(signum)


def guarded(tool, main):
    """main()'s exit status, ended as every tool ends (above). Each tool's `python3 -m plots.TOOL` runs through
    it too."""
    for signum in STOPPING[1:]:   # SIGINT raises KeyboardInterrupt already
        signal.signal(signum, stop)
    try:
        return main()
    except KeyboardInterrupt as e:  # the tools write through a folder swapped in whole: nothing was written
        print(f"{tool}: interrupted: nothing written", file=sys.stderr)
        return stopped_status(e)
    except BrokenPipeError:
        silence_stdout()
        return 0
    except OutputError as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return 2


def run(module):
    """The tool's exit status, or 2 with a line for each library it lacks."""
    missing = requirements.problems()
    for line in missing:
        print(f"{module}: {line}", file=sys.stderr)
    return 2 if missing else importlib.import_module(f"plots.{module}").main()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    module, sys.argv[1:] = argv[0], argv[1:]
    return guarded(module, lambda: run(module))


if __name__ == "__main__":
    sys.exit(main())

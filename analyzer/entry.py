"""The `mmaplint` command's entry point.  It turns SIGINT, SIGTERM and SIGHUP into a clean
interrupt (interrupts.py) before anything else, and imports the command line inside its own
handler, so that a signal while Python loads the analyzer ends as one does later: one line,
128 + the signal."""
from __future__ import annotations

import sys

from .interrupts import exit_code, interrupts


def main() -> int:
    try:
        with interrupts():
            from .cli import main as run
            return run()
    except KeyboardInterrupt as interrupt:
        print("mmaplint: interrupted", file=sys.stderr)
        return exit_code(interrupt)

"""The `mmaplint` command's entry point.  It turns SIGINT, SIGTERM and SIGHUP into a clean
interrupt (interrupts.py) before anything else, and imports the command line inside its own
handler, so that a signal while Python loads the analyzer ends as one does later: one line,
128 + the signal."""
from __future__ import annotations

import os
import sys
from typing import NoReturn

from . import lifetime
from .interrupts import exit_code, interrupts


def main() -> NoReturn:
    lifetime.run_ends_process()
    try:
        with interrupts():
            from .cli import main as run
            code = run()
    except KeyboardInterrupt as interrupt:
        print("mmaplint: interrupted", file=sys.stderr)
        code = exit_code(interrupt)
    _end_process(code)


def _end_process(code: int) -> NoReturn:
    """End the process without Python's teardown, as mypy does.  A large program's facts
    are millions of objects that live to the end of the run: freeing them one by one, and
    the final collection over them, took 0.9 s after sqlite's findings were printed, a fifth
    of the run.  Everything of the run's own is closed by then (outputs written, workers
    joined, temporary directories removed, each by its own `with`); only the standard
    streams are still buffered.  A reader gone from a pipe (`mmaplint check | head`) is not
    an error to report at that point: what it read is what it wanted."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):      # a closed pipe, or a stream closed already
            pass
    os._exit(code)

"""The `mmaplint` command's entry point.  It imports the command line inside a handler of its
own, so that Ctrl-C while Python loads the analyzer ends as Ctrl-C does later: one line, 130."""
from __future__ import annotations

import sys


def main() -> int:
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        print("mmaplint: interrupted", file=sys.stderr)
        return 130
    return run()

"""Objects the `mmaplint` command's process ends with.

The command ends its process without Python's teardown (entry._end_process): a large
program's facts and analyses are millions of objects, and freeing them one by one as the run
returns is time spent after the answer is known (git's took 0.5 s once its rules ran in
worker processes).  What keep() is handed lives until then.  Anywhere else (the tests, an
editor running analyses in its own process) keep() holds nothing, and each analysis is freed
as usual.
"""
from __future__ import annotations

_kept: list = []
_process_ends_with_run = False


def run_ends_process() -> None:
    """Said by the entry point that ends the process when the run returns."""
    global _process_ends_with_run
    _process_ends_with_run = True


def keep(value: object) -> None:
    """Have `value` live to the end of the process when the run ends it."""
    if _process_ends_with_run:
        _kept.append(value)

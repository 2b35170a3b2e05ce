"""Progress on stderr, for runs long enough that silence looks like a hang.

Shown when stderr is a terminal, or when asked (`--progress`); never on a pipe or in a file
otherwise, so logs and captured output stay clean.  Drawn by rich, loaded only when shown.
One Progress serves a whole run as a sequence of steps, each a bar of its own that is
cleared when the run ends:

    with Progress(enabled=wanted(args.progress)) as progress:
        with progress.step("parsing", total=len(files)) as step:
            for f in files:
                ...
                step.advance()
        with progress.step("checking the whole program") as step:   # no total: a spinner
            ...
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterator


def wanted(option: bool | None, stream=None) -> bool:
    """Whether to show progress: as the option says, else when the stream (stderr) is a
    terminal that can redraw a line."""
    if option is not None:
        return option
    stream = sys.stderr if stream is None else stream
    return stream.isatty() and os.environ.get("TERM") != "dumb"


class Step:
    """One step's bar: advance() as its work gets done, describe() to say what it is at
    (a reproducer's variant, a pass); safe from any thread."""

    def __init__(self, bar=None, task=None):
        self._bar, self._task = bar, task

    def advance(self, amount: int = 1) -> None:
        if self._bar is not None and amount:
            self._bar.advance(self._task, amount)

    def describe(self, description: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=description)


class Progress:
    def __init__(self, enabled: bool, stream=None):
        self.enabled = enabled
        self._stream = sys.stderr if stream is None else stream
        self._bars = None

    def __enter__(self) -> "Progress":
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bars
            self._bars = Bars(SpinnerColumn(), TextColumn("mmaplint: {task.description}"), BarColumn(),
                              MofNCompleteColumn(), TimeElapsedColumn(),
                              console=Console(file=self._stream, force_terminal=True), transient=True,
                              redirect_stdout=False, redirect_stderr=False)
            self._bars.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bars is not None:
            self._bars.stop()
            self._bars = None

    @contextmanager
    def step(self, description: str, total: int | None = None) -> Iterator[Step]:
        if self._bars is None:
            yield Step()
            return
        task = self._bars.add_task(description, total=total)
        try:
            yield Step(self._bars, task)
        finally:
            self._bars.update(task, completed=total if total is not None else 1, total=total or 1)


NONE = Progress(enabled=False)       # shows nothing: the default for library callers

"""Worker processes that parse files, each file under a time and a memory budget.

A worker holds one file at a time, so that a file over its budget (libclang never returns on
the 18 bytes `int x = (::int)1;`), or one that kills its worker (libclang overflowing its
stack on absurdly deep expressions), costs that file alone: the worker is killed, or reaped,
and a fresh one takes the next file.  The parent watches the clock and each busy worker's
resident memory (sampled every POLL seconds), which holds whatever allocates it: Python,
tree-sitter or libclang.

Workers die with the process that started them however it ends, SIGKILL included: the kernel
sends them SIGKILL when it goes (PR_SET_PDEATHSIG).  They ignore SIGINT: Ctrl-C reaches the
whole foreground process group, and the parent ends its workers itself; SIGTERM and SIGHUP
end them as they would any program (the parent's handlers, inherited with the fork, are
for the parent).
"""
from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable, Iterator

POLL = 0.1                  # seconds between two looks at the busy workers' memory
_PR_SET_PDEATHSIG = 1
_PAGE = os.sysconf("SC_PAGE_SIZE")
_DONE, _FAILED = b"d", b"f"     # how a worker's answer begins (_serve)
_END = object()                 # no step left (Pool.completed)


@dataclass(frozen=True)
class Budget:
    seconds: float          # wall-clock time for one file
    memory: int             # bytes of resident memory one file may add to its worker's


class Failure:
    """A file that gave no result."""


@dataclass(frozen=True)
class Overran(Failure):
    seconds: float


@dataclass(frozen=True)
class OutOfMemory(Failure):
    memory: int | None      # the budget it went over; None: the system had no more to give


@dataclass(frozen=True)
class Died(Failure):
    exitcode: int | None

    def how(self) -> str:
        if self.exitcode is not None and self.exitcode < 0:
            try:
                return signal.Signals(-self.exitcode).name
            except ValueError:
                return f"signal {-self.exitcode}"
        return f"exit status {self.exitcode}"


@dataclass(frozen=True)
class Raised(Failure):
    """An exception the work function let escape (a bug): its type and message."""

    error: str


class _Worker:
    def __init__(self, function: Callable) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, function, os.getpid()), daemon=True)
        self.process.start()
        theirs.close()
        self.task: tuple[Any, float, int] | None = None   # key, deadline, resident bytes when given it

    def give(self, key: Any, args: tuple, seconds: float) -> None:
        try:
            self.connection.send(args)
        except OSError:
            pass        # it died already: its sentinel says so (Pool._collect)
        self.task = (key, time.monotonic() + seconds, _resident(self.process.pid) or 0)

    def stop(self) -> None:
        """End it: at once when it is working, else by asking (None) it to return.  (Closing the
        pipe would not do: workers forked later hold copies of this end of it.)"""
        if self.task is None and self.process.exitcode is None:
            try:
                self.connection.send(None)
            except OSError:
                pass
            self.process.join(timeout=5)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()
        self.connection.close()


class Pool:
    """`submit(key, args)` calls of one function; `completed()` yields (key, result or Failure)
    as they finish, and serves what is submitted meanwhile.  Use it in a `with` block: leaving
    it ends every worker."""

    def __init__(self, function: Callable, jobs: int, budget: Budget) -> None:
        self._function, self._jobs, self._budget = function, jobs, budget
        self._queue: deque[tuple[Any, tuple]] = deque()
        self._idle: list[_Worker] = []
        self._busy: list[_Worker] = []

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *_exc: object) -> None:
        for worker in self._idle + self._busy:
            worker.stop()
        self._idle, self._busy = [], []

    def submit(self, key: Any, args: tuple) -> None:
        self._queue.append((key, args))

    def completed(self, meanwhile: Iterator[Any] = iter(())) -> Iterator[tuple[Any, Any]]:
        """(key, result or Failure) of each task as it finishes.  `meanwhile`: the caller's own
        work in steps, one taken each time no worker has an answer ready; what is left of it
        when the tasks are done is the caller's to finish."""
        steps: Iterator[Any] | None = meanwhile
        while self._queue or self._busy:
            self._start()
            if steps is not None and not wait(self._watched(), 0):
                if next(steps, _END) is _END:
                    steps = None
                continue
            yield from self._collect()

    def _start(self) -> None:
        """Give the next tasks to the idle workers, and start workers up to `jobs`."""
        while self._queue and (self._idle or len(self._busy) < self._jobs):
            worker = self._idle.pop() if self._idle else _Worker(self._function)
            key, args = self._queue.popleft()
            worker.give(key, args, self._budget.seconds)
            self._busy.append(worker)

    def _watched(self) -> list:
        """What tells that a busy worker answered or died."""
        return [w.connection for w in self._busy] + [w.process.sentinel for w in self._busy]

    def _collect(self) -> Iterator[tuple[Any, Any]]:
        deadline = min(worker.task[1] for worker in self._busy)
        timeout = max(0.0, min(deadline - time.monotonic(), POLL))
        ready = set(wait(self._watched(), timeout))
        now = time.monotonic()
        for worker in list(self._busy):
            key, deadline, resident = worker.task
            outcome: Any = None
            sent = None
            if worker.connection in ready:
                try:
                    sent = memoryview(worker.connection.recv_bytes())
                except (EOFError, OSError):
                    worker.process.join()
                    outcome = Died(worker.process.exitcode)
            elif worker.process.sentinel in ready:
                worker.process.join()
                outcome = Died(worker.process.exitcode)
            elif now >= deadline:
                outcome = Overran(self._budget.seconds)
            elif (_resident(worker.process.pid) or 0) - resident > self._budget.memory:
                outcome = OutOfMemory(self._budget.memory)
            else:
                continue
            self._busy.remove(worker)
            failed = outcome is not None or sent[:1] == _FAILED
            if failed:
                worker.stop()           # replaced by a fresh one when there is work for it
            worker.task = None
            if not failed:
                # the worker has its next task before its result is unpickled here, which it
                # would otherwise wait for (git's facts: 0.5 s of unpickling, now beside parses)
                self._idle.append(worker)
                self._start()
            yield key, outcome if sent is None else ForkingPickler.loads(sent[1:])


def _resident(pid: int) -> int | None:
    """A process's resident memory in bytes (None where /proc does not say)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as stream:
            return int(stream.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


def _serve(connection: Connection, function: Callable, parent: int) -> None:
    """A worker's life: each task read from the pipe is answered with its result, until the
    pipe closes.  Nothing escapes as a traceback."""
    try:
        _die_with(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for sig in (signal.SIGTERM, signal.SIGHUP):     # not the parent's clean interrupt
            signal.signal(sig, signal.SIG_DFL)
        # The parent runs with collection paused (engine.uncollected): what the worker
        # inherits, all counted young, is moved out of the collector's reach first (relinking
        # lists, no object touched), or the first collection here would walk, and copy, every
        # page of it; then collection comes back on for what the worker makes.
        gc.freeze()
        gc.enable()
        while True:
            args = connection.recv()
            if args is None:
                return
            try:
                outcome = function(*args)
            except MemoryError:
                outcome = OutOfMemory(None)
            except Exception as exc:   # noqa: BLE001 - a bug in the work function, reported per task
                outcome = Raised(f"{type(exc).__name__}: {exc}")
            # a first byte says whether it failed: the parent replaces such a worker, and
            # gives another its next task before it unpickles the rest
            connection.send_bytes((_FAILED if isinstance(outcome, Failure) else _DONE)
                                  + ForkingPickler.dumps(outcome))
            del outcome
    except BaseException:   # noqa: BLE001 - the parent sees the death and reports the file
        os._exit(70)


def _die_with(parent: int) -> None:
    """Have the kernel kill this process when its parent ends (Linux; elsewhere the parent's
    own clean-up is all there is)."""
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:      # it ended before the request took effect
        os._exit(0)

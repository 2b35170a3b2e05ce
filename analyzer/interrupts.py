"""SIGINT, SIGTERM and SIGHUP as one clean interrupt: an exception, so that every `finally` and
`with` on the way out runs (worker processes ended, temporary files and directories removed),
then one line and the exit code 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM, 129
for SIGHUP).  Left to their default action, SIGTERM and SIGHUP would end the process where it
stands."""
from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """A signal asked us to stop: clean up and exit with 128 + its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def exit_code(interrupt: KeyboardInterrupt) -> int:
    """128 + the signal that stopped us (a plain KeyboardInterrupt is Ctrl-C's)."""
    return 128 + getattr(interrupt, "signum", signal.SIGINT)


@contextmanager
def interrupts() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise Interrupted once; later ones are ignored so that the
    cleanup they started runs to its end."""
    def stop(signum, frame):
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise Interrupted(signum)
    try:
        previous = {sig: signal.signal(sig, stop) for sig in SIGNALS}
    except ValueError:          # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def held() -> Iterator[None]:
    """Signals wait (pending) until the block is done: a step that must not be cut in two
    (a temporary file made and not yet in the hands of the code that removes it)."""
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)

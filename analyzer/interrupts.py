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


# A signal that arrives while a finalizer runs (a subprocess.Popen's __del__, as a finished
# reproducer's object is dropped) cannot raise there: Python prints an exception raised in
# __del__ as "Exception ignored" and goes on, and the interrupt would be lost.  It is raised
# again from a SIGALRM, once the finalizer is done: one every this long until it is.  An alarm
# repeats, rather than being set once per try, because Python runs a handler only between
# bytecodes: one that arrives as the finalizer's last blocking call returns may run only after
# the next blocking call (a 5 s wait) unless a later alarm interrupts that call.
DEFERRAL = 0.01     # seconds


@contextmanager
def interrupts() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise Interrupted once; later ones are ignored so that the
    cleanup they started runs to its end."""
    deferred: list[int] = []

    def stop(signum, frame):
        if _in_finalizer(frame):
            deferred.append(signum)
            signal.setitimer(signal.ITIMER_REAL, DEFERRAL, DEFERRAL)
            return
        signal.setitimer(signal.ITIMER_REAL, 0)     # a deferred interrupt is this one
        deferred.clear()
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise Interrupted(signum)

    def again(_signum, frame):
        if deferred:    # an alarm already due when the block's end raised it is nothing more
            stop(deferred[0], frame)
    try:
        previous = {sig: signal.signal(sig, stop) for sig in SIGNALS}
        previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, again)
    except ValueError:          # not the main thread: leave signals alone
        yield
        return
    try:
        yield
        if deferred:            # the block ended before the deferred interrupt came
            stop(deferred[0], None)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _in_finalizer(frame) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


@contextmanager
def held() -> Iterator[None]:
    """Signals wait (pending) until the block is done: a step that must not be cut in two
    (a temporary file made and not yet in the hands of the code that removes it)."""
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, (*SIGNALS, signal.SIGALRM))    # a deferred one too
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)

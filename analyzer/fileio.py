"""The user's files: only regular ones are read, and no more than a bound; outputs are written
whole into a temporary file beside their destination and renamed over it, so that a run that
stops midway leaves the previous file as it was.

A FIFO named `x.c` blocks a plain open() until someone writes to it, a character device (a
`.c` symlink to /dev/zero) has no end, and opening some devices does something (a tape
rewinds, a watchdog arms): they are refused from stat() before they are opened, and again
from fstat() of what was opened, in case the path changed in between.
"""
from __future__ import annotations

import os
import stat
import tempfile

from .interrupts import held

_KINDS = ((stat.S_ISDIR, "is a directory"), (stat.S_ISFIFO, "is a FIFO"),
          (stat.S_ISCHR, "is a character device"), (stat.S_ISBLK, "is a block device"),
          (stat.S_ISSOCK, "is a socket"))


class Refused(Exception):
    """A path that is not read, or not written; the message is one line for the user."""


class TooLarge(Refused):
    def __init__(self, size: int | None, limit: int) -> None:
        held = f"is {_amount(size)}" if size is not None else "holds more"
        super().__init__(f"file {held}, over the {_amount(limit)} limit (max-file-size)")


def _amount(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 / 10 else f"{size} bytes"


def _require_regular(status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise Refused(next((f"{what}, not a regular file" for test, what in _KINDS if test(status.st_mode)),
                           "not a regular file"))


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of a regular file (symlinks followed) of at most `limit` bytes, whatever
    stat() says its size is (/proc files say 0).  OSError for what the system refuses."""
    status = os.stat(path)
    _require_regular(status)
    if status.st_size > limit:
        raise TooLarge(status.st_size, limit)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with open(descriptor, "rb") as stream:
        _require_regular(os.fstat(descriptor))
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(None, limit)
    return data


def same_file(path: str, others: list[str]) -> str | None:
    """The first of `others` that is the file at `path` (through symlinks and hard links)."""
    try:
        target = os.stat(path)
    except OSError:
        target = None       # nothing there yet: only the same path can be it
    for other in others:
        try:
            if os.path.realpath(other) == os.path.realpath(path) or (
                    target is not None and os.path.samestat(target, os.stat(other))):
                return other
        except OSError:
            continue
    return None


def check_writable(path: str) -> None:
    """Refuse an output path that cannot be written, before any work is done for it."""
    if os.path.isdir(path):
        raise Refused(f"cannot write {path}: is a directory")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise Refused(f"cannot write {path}: permission denied")
        if not os.path.isfile(path):
            return          # written in place (write_whole)
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        raise Refused(f"cannot write {path}: no such directory {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise Refused(f"cannot write {path}: permission denied")


def write_whole(path: str, data: str | bytes) -> None:
    """Write `data` (text, in UTF-8) to `path`: into a temporary file in the same directory,
    renamed over the destination once complete (a symlink's target is what is replaced).  A
    destination that exists and is no regular file (/dev/stdout, a FIFO a reader waits on) is
    written in place."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        status = os.stat(path)
    except FileNotFoundError:
        status = None
    if status is not None and not stat.S_ISREG(status.st_mode):
        with open(path, "wb") as stream:
            stream.write(data)
        return
    target = os.path.realpath(path)
    with held():        # an interrupt waits: no temporary file is left behind
        descriptor, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.",
                                                 suffix=".tmp", dir=os.path.dirname(target))
        try:
            with open(descriptor, "wb") as stream:
                stream.write(data)
            # the mode the file had, or what a plain open() would have given it
            os.chmod(temporary, stat.S_IMODE(status.st_mode) if status is not None else 0o666 & ~_umask())
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask

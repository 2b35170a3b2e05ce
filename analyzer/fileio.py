"""The user's files: only regular ones are read, and no more than a bound.

A FIFO named `x.c` blocks a plain open() until someone writes to it, a character device (a
`.c` symlink to /dev/zero) has no end, and opening some devices does something (a tape
rewinds, a watchdog arms): they are refused from stat() before they are opened, and again
from fstat() of what was opened, in case the path changed in between.
"""
from __future__ import annotations

import os
import stat

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

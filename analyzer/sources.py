"""A source file's lines as this run reads them back after parsing (a finding's excerpt, its
columns, its fingerprint).

From the disk, cached while the file's size and modification time stay the same (a process
that runs many analyses, an editor's or the tests', sees a file's new text).  Or given in
memory: `mmaplint check - --stdin-filename PATH` analyzes the standard input as the file
PATH (an editor's unsaved buffer), and wherever the run reads that file back it must read
the same text, not what the disk holds; the engine registers it here.
"""
from __future__ import annotations

import os
from functools import lru_cache

_given: dict[str, bytes] = {}


def give(files: tuple[tuple[str, bytes], ...]) -> None:
    """The text of these files for this run (replacing what an earlier run gave)."""
    _given.clear()
    _given.update((os.path.realpath(path), data) for path, data in files)


def given(path: str) -> bytes | None:
    return _given.get(os.path.realpath(path)) if _given else None


def lines(path: str) -> tuple[bytes, ...]:
    """The file's lines (split at \\n, as the frontends count them); empty when it cannot be
    read any more."""
    text = given(path)
    if text is not None:
        return tuple(text.split(b"\n"))
    return _on_disk(path, *_version(path))


def text_lines(path: str) -> tuple[str, ...]:
    """The same lines as text (UTF-8, undecodable bytes replaced, a CRLF's CR dropped)."""
    if given(path) is not None:
        return _decoded(lines(path))
    return _decoded_on_disk(path, *_version(path))


def _version(path: str) -> tuple[int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        return -1, -1
    return stat.st_size, stat.st_mtime_ns


@lru_cache(maxsize=256)
def _on_disk(path: str, size: int, mtime_ns: int) -> tuple[bytes, ...]:
    try:
        with open(path, "rb") as stream:
            return tuple(stream.read().split(b"\n"))
    except OSError:
        return ()


@lru_cache(maxsize=64)
def _decoded_on_disk(path: str, size: int, mtime_ns: int) -> tuple[str, ...]:
    return _decoded(_on_disk(path, size, mtime_ns))


def _decoded(raw: tuple[bytes, ...]) -> tuple[str, ...]:
    return tuple(line.decode("utf-8", "replace").removesuffix("\r") for line in raw)

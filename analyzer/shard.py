"""`--shard K/N`: the K-th of N deterministic parts of the files, for a CI matrix.

A file's shard is a stable hash of its path (as given, normalised, with forward slashes), so
every machine puts it in the same shard whatever the file order or Python's hash seed.  A
shard only parses: it writes its files' facts (`-o FILE`), and `mmaplint merge` reads every
shard's facts and runs the rules once on the whole program, so calls across files are
followed whichever shards parsed them (see merge.py).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import PurePath

from .errors import UserError
from .facts_cache import encode
from .fileio import write_whole
from .findings import FileError


class ShardError(UserError):
    """A --shard value that is not K/N with 1 <= K <= N; one line for the user."""


def parse(value: str) -> tuple[int, int]:
    k, sep, n = value.partition("/")
    if not (sep and k.strip().isdigit() and n.strip().isdigit()) or not 1 <= int(k) <= int(n):
        raise ShardError(f"--shard {value!r}: expected K/N with 1 <= K <= N, e.g. 2/4")
    return int(k), int(n)


def shard_of(path: str, count: int) -> int:
    """The 1-based shard that holds `path`."""
    name = PurePath(os.path.normpath(path)).as_posix()
    return int.from_bytes(hashlib.sha256(name.encode("utf-8", "surrogateescape")).digest()[:8]) % count + 1


def select(files: list[str], k: int, n: int) -> list[str]:
    return [f for f in files if shard_of(f, n) == k]


def write(path: str, part: tuple[int, int], files: list[str], read_for: dict, results: list,
          errors: list[FileError], build: str) -> None:
    """One shard's facts: `files` is every shard's file list, `read_for` what shapes the facts
    (the rules' argument calls, the parse settings), `results` this shard's facts or errors
    by file, `errors` the others (a malformed compilation database)."""
    shard = {"build": build, "part": part, "files": tuple(files), "read_for": read_for,
             "results": tuple((r.path, r.message) if isinstance(r, FileError) else r for r in results),
             "errors": tuple((e.path, e.message) for e in errors)}
    try:
        write_whole(path, encode(shard))
    except OSError as exc:
        raise ShardError(f"cannot write {path}: {exc.strerror or exc}") from None

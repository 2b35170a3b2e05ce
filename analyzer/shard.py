"""`--shard K/N`: the K-th of N deterministic parts of the files, for a CI matrix.

A file's shard is a stable hash of its path (as given, normalised, with forward slashes), so
every machine puts it in the same shard whatever the file order or Python's hash seed.
Rules that follow calls across files only see the files of their own shard.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import PurePath


class ShardError(Exception):
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

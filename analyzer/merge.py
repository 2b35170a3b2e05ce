"""`mmaplint merge s1.facts ... sN.facts`: the shards' facts joined into one program, on
which the rules then run once, exactly as an unsharded `mmaplint check` would.

Every shard of one split must be there, once, written by this very build (the facts' shape
changes between versions), for the same files, with the same parse options; and the merge
must run where the shards ran (the facts name files by the paths they were given).  The
rules are the merge's own (--select, --ignore): facts do not depend on them.
"""
from __future__ import annotations

import os

from .errors import UserError
from .facts import FileFacts
from .facts_cache import Damaged, decode
from .findings import FileError


class MergeError(UserError):
    """Shards that cannot be merged; one line for the user."""


def _load(path: str) -> dict:
    try:
        with open(path, "rb") as stream:
            shard = decode(stream.read())
    except OSError as exc:
        raise MergeError(f"cannot read {path}: {exc.strerror or exc}") from None
    except Damaged as exc:
        raise MergeError(f"{path}: {exc} (write shards with `mmaplint check --shard K/N -o FILE`)") from None
    if not isinstance(shard, dict) or not {"build", "part", "files", "read_for", "results", "errors"} <= set(shard):
        raise MergeError(f"{path} is not the facts of a shard")
    return shard


def load(paths: list[str], build: str) -> tuple[list[str], list, list[FileError]]:
    """(every file, their facts or errors in that order, other errors) from the shards' files."""
    shards = [(path, _load(path)) for path in paths]
    first_path, first = shards[0]
    count = first["part"][1]
    seen: dict[int, str] = {}
    for path, shard in shards:
        if shard["build"] != build:
            raise MergeError(f"{path} was written by another mmaplint build; run every shard and "
                             "the merge with the same installation")
        if shard["files"] != first["files"] or shard["part"][1] != count:
            raise MergeError(f"{path} is a shard of another split than {first_path} (other files "
                             "or another N); run every shard on the same paths")
        if shard["read_for"] != first["read_for"]:
            raise MergeError(f"{path} was parsed with other options than {first_path}; run every "
                             "shard with the same options")
        k = shard["part"][0]
        if k in seen:
            raise MergeError(f"{path} and {seen[k]} are both shard {k}/{count}")
        seen[k] = path
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise MergeError(f"shard{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(f'{k}/{count}' for k in missing)} missing")
    absent = next((f for f in first["files"] if not os.path.lexists(f)), None)
    if absent is not None:
        raise MergeError(f"{absent}: no such file here; run the merge in the directory the "
                         "shards ran in, on the same checkout")
    try:
        by_path = {r[0] if isinstance(r, tuple) else r.path: FileError(*r) if isinstance(r, tuple) else r
                   for _, shard in shards for r in shard["results"]}
        errors = sorted({FileError(*e) for _, shard in shards for e in shard["errors"]})
        results = [by_path[f] for f in first["files"]]     # the order of an unsharded run
    except (TypeError, ValueError, KeyError, AttributeError):
        raise MergeError("a shard's facts are malformed") from None
    if not all(isinstance(r, (FileFacts, FileError)) for r in results):
        raise MergeError("a shard's facts are malformed")
    return list(first["files"]), results, errors

"""The facts cache: each file's facts from an earlier run, so that a run parses only what
changed and the whole-program phase still reads every file's facts.

Layout (`.mmaplint_cache/` at the project root, like ruff's; `--cache-dir`; `--no-cache`):

    .mmaplint_cache/.gitignore             "*": never committed
    .mmaplint_cache/<build>/used           touched by each run of that build
    .mmaplint_cache/<build>/<ab>/<slot>    one file's entry

`<build>` fingerprints what produces facts: mmaplint's version, the text of its analyzer's
code (the fact model and the frontends) and the versions of libclang, tree-sitter and Python.
An entry of another build is never read.  A slot is one file, as the run names it (facts
name their file: paths are normalised, so `./a.c` is `a.c`), under one set of parse settings
(frontend, compile arguments, -I/-D, the calls whose arguments the rules read), so a file's
new version replaces its old entry and the cache stays as large as the project.

An entry holds a digest of the file's content and of the headers clang read with it (size and
mtime, then content when those differ), and the facts as encode() made them in the worker
that parsed the file (decoded only when the rest says they are current).  It is written to
a temporary file and renamed into place, so that a concurrent run reads the old entry or the
new one, never half of one; it starts with a digest of the rest, so a truncated or corrupt
entry is a miss (the file is parsed again), never trusted.  Entries are unpickled with only
the fact model's classes allowed: a planted file cannot run code.
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, is_dataclass, replace
from pathlib import Path
from typing import Iterator

from mmaplint import __version__

from . import facts as fact_model
from .facts import Expr, FileFacts
from .fileio import Refused, read_regular
from .interrupts import held

DIRECTORY = ".mmaplint_cache"
MAGIC = b"mmaplint facts 1\n"
_DIGEST = 32
_DEPENDENCIES = ("libclang", "tree-sitter", "tree-sitter-c", "tree-sitter-cpp")
_UNUSED_BUILDS_KEPT = 7 * 24 * 3600   # seconds: another build's entries are removed after


def _hash(*parts: bytes | str) -> str:
    digest = hashlib.blake2b(digest_size=_DIGEST)
    for part in parts:
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def build_id() -> str:
    """What produces facts, fingerprinted: a different build never reads another's entries."""
    analyzer = Path(__file__).resolve().parent
    code = sorted(p for p in analyzer.rglob("*") if p.suffix in (".py", ".scm") and p.is_file())
    from importlib.metadata import PackageNotFoundError, version
    versions = []
    for name in _DEPENDENCIES:
        try:
            versions.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            versions.append(f"{name}=?")
    return _hash(__version__, sys.version, *versions,
                 *(part for p in code for part in (p.relative_to(analyzer).as_posix(), p.read_bytes())))[:24]


@dataclass(frozen=True)
class Dependency:
    """A file the facts were read from besides the source itself (a header clang included)."""

    path: str
    size: int
    mtime_ns: int
    digest: str

    @classmethod
    def of(cls, path: str) -> "Dependency | None":
        try:
            stat = os.stat(path)
            with open(path, "rb") as stream:
                return cls(os.path.abspath(path), stat.st_size, stat.st_mtime_ns, _hash(stream.read()))
        except OSError:
            return None

    def unchanged(self) -> bool:
        try:
            stat = os.stat(self.path)
        except OSError:
            return False
        if (stat.st_size, stat.st_mtime_ns) == (self.size, self.mtime_ns):
            return True
        now = Dependency.of(self.path)
        return now is not None and now.digest == self.digest


def _same(value):
    """What a repeated expression unpickles through: the first equal one, already built."""
    return value


class _Pickler(pickle.Pickler):
    """Pickles each expression equal to one pickled before as a reference to that one: a
    file's facts repeat the same expressions (`MS_SYNC`, `fd`, `p->size`) thousands of times,
    and one object for each is a fifth of the expressions to build on loading, and to keep
    in memory after (sqlite3's entries: 62 MB become 40)."""

    def __init__(self, stream):
        super().__init__(stream, protocol=pickle.HIGHEST_PROTOCOL)
        self.first: dict[Expr, Expr] = {}

    def reducer_override(self, obj):
        if type(obj) is Expr:
            first = self.first.setdefault(obj, obj)
            if first is not obj:
                return _same, (first,)
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    """Builds only the fact model's classes (and this module's Dependency and _same)."""

    def find_class(self, module: str, name: str):
        found = getattr(fact_model, name, None) if module == fact_model.__name__ else None
        if isinstance(found, type) and is_dataclass(found):
            return found
        if module == __name__ and name in (Dependency.__name__, _same.__name__):
            return globals()[name]
        raise pickle.UnpicklingError(f"{module}.{name} is not part of the fact model")


class Damaged(ValueError):
    """Bytes that are not whole facts written by encode (truncated, corrupt, or foreign)."""


def encode(value) -> bytes:
    """Facts (in plain tuples, lists and dicts) as bytes with an integrity digest in front."""
    stream = io.BytesIO()
    _Pickler(stream).dump(value)
    body = stream.getvalue()
    return MAGIC + bytes.fromhex(_hash(body)) + body


def decode(data: bytes):
    """What encode wrote; Damaged when the bytes are not that."""
    return _unpickled(_body(data))


def _body(data: bytes, verify: bool = True) -> bytes:
    """What encode pickled, its digest checked unless bytes around these have had theirs
    (`verify` false); Damaged when the bytes are not whole."""
    digest, body = data[len(MAGIC):len(MAGIC) + _DIGEST], data[len(MAGIC) + _DIGEST:]
    if not data.startswith(MAGIC) or verify and digest.hex() != _hash(body):
        raise Damaged("not mmaplint facts, or truncated or corrupt")
    return body


def _unpickled(body: bytes):
    try:
        return _Unpickler(io.BytesIO(body)).load()
    except Exception as exc:   # noqa: BLE001 - whatever damaged bytes raise
        raise Damaged(f"unreadable facts ({type(exc).__name__})") from None


class FactsCache:
    def __init__(self, directory: str, build: str | None = None):
        self.directory = directory
        self.build = build or build_id()
        self.hits = self.misses = 0
        self._prepared = False

    def facts(self, files: list[str], keys: list[tuple], parse, keep, max_size: int) -> list:
        """Every file's facts (or error): from the cache where it holds them under the file's
        parse key, the rest from `parse(indices, arrived, meanwhile)`, which hands each
        result to arrived(position in indices, result, encoded) as it comes (encoded: the
        facts as encode() made them, when it has them so): those `keep(index, facts)` accepts
        are stored then.  The entries found current are unpickled in the steps of `meanwhile`
        (one file each), every one of which the parse takes, while its workers parse the
        others where it can: a hook's one changed file is parsed while the rest of the program
        loads."""
        sources = [_read(path, max_size) for path in files]
        held = [None if source is None else self._held(path, source, key)
                for path, source, key in zip(files, sources, keys)]
        results: list = [None] * len(files)
        todo = [index for index, body in enumerate(held) if body is None]
        unreadable: list[int] = []      # entries whose digests hold but that are no facts of their file

        def unpickled() -> Iterator[None]:
            for index, body in enumerate(held):
                if body is not None:
                    held[index] = None      # its bytes go as its facts come
                    results[index] = self._unpickled(files[index], body)
                    if results[index] is None:
                        unreadable.append(index)
                    else:
                        yield

        def parsed(indices: list[int], meanwhile: Iterator[None] = iter(())) -> None:
            def arrived(position: int, result, encoded: bytes | None) -> None:
                index = indices[position]
                if isinstance(result, FileFacts) and keep(index, result) and sources[index] is not None \
                        and _read(files[index], max_size) == sources[index]:   # not changed meanwhile
                    self._store(files[index], sources[index], keys[index], result, encoded or encode(result))
            for index, result in zip(indices, parse(indices, arrived, meanwhile)):
                results[index] = result
        parsed(todo, unpickled())
        if unreadable:          # planted ones, say: parsed too
            parsed(unreadable)
        if self.hits and not self._prepared:
            self._mark_used()
        return results

    def _entry(self, path: str, key: tuple) -> str:
        name = _hash(os.path.abspath(path), path, *map(repr, key))
        return os.path.join(self.directory, self.build, name[:2], name)

    def _held(self, path: str, source: bytes, key: tuple) -> bytes | None:
        """The pickled facts of the file's entry when it is of this source (and its headers),
        whole; None (a miss) when there is no such entry."""
        try:
            with open(self._entry(path, key), "rb") as stream:
                encoded, content, dependencies = decode(stream.read())
            if content == _hash(source) and all(isinstance(d, Dependency) and d.unchanged() for d in dependencies):
                return _body(encoded, verify=False)     # the entry's digest covered them
        except (OSError, Damaged, TypeError, ValueError):
            pass                # no entry, or one not to trust: the file is parsed again
        self.misses += 1
        return None

    def _unpickled(self, path: str, body: bytes) -> FileFacts | None:
        """The facts a current entry holds; None (a miss) when they are not the file's."""
        try:
            facts = _unpickled(body)
        except Damaged:
            facts = None
        if isinstance(facts, FileFacts) and facts.path == path:
            self.hits += 1
            return replace(facts, reason=f"{facts.reason} (cached)")
        self.misses += 1
        return None

    def _store(self, path: str, source: bytes, key: tuple, facts: FileFacts, encoded: bytes) -> None:
        """A file's facts, and the same encoded, kept as they are; a cache that cannot be
        written is skipped (the run does not depend on it)."""
        read = tuple(d for d in map(Dependency.of, facts.includes) if d is not None)
        if len(read) != len(facts.includes):
            return              # a header gone already: nothing to tell a later change by
        entry = self._entry(path, key)
        try:
            self._prepare()
            os.makedirs(os.path.dirname(entry), exist_ok=True)
            with held():    # an interrupt waits: no temporary file is left behind
                handle, temporary = tempfile.mkstemp(dir=os.path.dirname(entry), prefix=".tmp-")
                try:
                    with os.fdopen(handle, "wb") as stream:
                        stream.write(encode((encoded, _hash(source), read)))
                    os.replace(temporary, entry)
                except BaseException:
                    os.unlink(temporary)
                    raise
        except OSError:
            pass

    def _prepare(self) -> None:
        """The cache folder with its .gitignore, this build's marker touched, and other builds'
        entries removed once unused for a week."""
        if self._prepared:
            return
        self._prepared = True
        build = os.path.join(self.directory, self.build)
        os.makedirs(build, exist_ok=True)
        ignore = os.path.join(self.directory, ".gitignore")
        if not os.path.exists(ignore):
            with open(ignore, "w", encoding="utf-8") as stream:
                stream.write("# Created by mmaplint: its facts cache, never committed.\n*\n")
        self._mark_used()
        for other in os.scandir(self.directory):
            if other.is_dir() and other.name != self.build:
                try:
                    unused = time.time() - os.stat(os.path.join(other.path, "used")).st_mtime
                except OSError:
                    continue
                if unused > _UNUSED_BUILDS_KEPT:
                    shutil.rmtree(other.path, ignore_errors=True)


    def _mark_used(self) -> None:
        try:
            Path(self.directory, self.build, "used").touch()
        except OSError:
            pass


def _read(path: str, max_size: int) -> bytes | None:
    """The file's bytes to look it up by; None when it is not a file the frontends read."""
    try:
        return read_regular(path, max_size)
    except (OSError, Refused):
        return None

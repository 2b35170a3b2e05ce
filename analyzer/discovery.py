"""Which files a run analyzes: the C and C++ sources named or found under the directories
named, less what is excluded, with ruff's semantics.

- `exclude` (default: hidden files and directories, node_modules, __pycache__) and
  `extend-exclude` are globs.  A pattern without a slash matches a file or directory name
  anywhere (`vendor`, `*.pb.c`); one with a slash matches a path relative to where the
  pattern was given: the configuration file's directory, or the working directory for
  `--exclude` / `--extend-exclude` (`third-party/*`, `src/gen`).  `*` also crosses slashes.
  An excluded directory is not entered.
- `.gitignore` files (of the git work tree a file is in, from its top down) and the
  repository's `.git/info/exclude` are respected unless `respect-gitignore = false`.
- A file named on the command line is analyzed even when excluded, unless `--force-exclude`
  (for hooks and editors that pass every file they see); a directory named is walked.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from .findings import FileError

LANGUAGES = {".c": "c", ".h": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".c++": "c++",
             ".hh": "c++", ".hpp": "c++", ".hxx": "c++", ".h++": "c++", ".ipp": "c++",
             ".inl": "c++", ".tcc": "c++"}
# A configure template of a header (sqlite.h.in, gdbm.h.in) is read as the header it becomes:
# it declares the structs whose fields the sources' tables fill, in the order they fill them.
HEADER_TEMPLATES = {suffix + ".in" for suffix in (".h", ".hh", ".hpp", ".hxx")}
# Suffixes of the files other files include: what they define, the includers see.
HEADERS = frozenset({".h", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl", ".tcc"})
DEFAULT_EXCLUDE = (".*", "node_modules", "__pycache__")
MISSING = "no such file or directory"


@dataclass(frozen=True)
class Excludes:
    """What discovery leaves out; each pattern with the directory it is relative to."""

    exclude: tuple[tuple[str, str], ...] = tuple((p, ".") for p in DEFAULT_EXCLUDE)
    extend_exclude: tuple[tuple[str, str], ...] = ()
    respect_gitignore: bool = True
    force: bool = False                 # --force-exclude: named files are excluded too

    def matches(self, path: str) -> bool:
        """Whether a pattern excludes this file or directory (its own name or path, not its
        parents': the walk never enters an excluded directory)."""
        absolute = os.path.abspath(path)
        name = os.path.basename(absolute)
        return any(fnmatchcase(name, pattern) if "/" not in pattern else
                   fnmatchcase(absolute, os.path.join(glob.escape(os.path.abspath(base)), pattern))
                   for pattern, base in self.exclude + self.extend_exclude)


@dataclass
class Discovered:
    files: list[str] = field(default_factory=list)
    missing: list[FileError] = field(default_factory=list)     # paths named that do not exist, or
                                                                # directories that cannot be listed


def discover(paths: list[str], excludes: Excludes = Excludes()) -> Discovered:
    """Source files named or found under directories, in a stable order, each once."""
    found = Discovered()
    ignored = _GitIgnored() if excludes.respect_gitignore else None
    for given in paths:
        if os.path.isdir(given):
            if excludes.force and _excluded_with_parents(given, excludes, ignored):
                continue
            found.files.extend(_walk(given, excludes, ignored, found.missing))
        elif os.path.lexists(given):
            if not (excludes.force and _excluded_with_parents(given, excludes, ignored)):
                found.files.append(os.path.normpath(given))
        else:
            found.missing.append(FileError(given, MISSING))
    seen = set()        # one file named twice (bad.c, ./bad.c, /abs/bad.c) is analyzed once
    found.files = [f for f in found.files
                   if not (os.path.realpath(f) in seen or seen.add(os.path.realpath(f)))]
    return found


def _walk(top: str, excludes: Excludes, ignored: _GitIgnored | None, unlisted: list[FileError]) -> list[str]:
    files = []

    def failed(error: OSError) -> None:       # a directory that cannot be listed: one line, not silence
        reason = error.strerror.lower() if error.strerror else str(error)
        unlisted.append(FileError(error.filename, f"cannot list the directory: {reason}"))

    for root, dirs, names in os.walk(top, onerror=failed):
        dirs[:] = sorted(d for d in dirs if not _left_out(os.path.join(root, d), excludes, ignored, True))
        files.extend(os.path.normpath(os.path.join(root, n)) for n in sorted(names)
                     if source_suffix(n) in LANGUAGES
                     and not _left_out(os.path.join(root, n), excludes, ignored, False))
    return files


def _left_out(path: str, excludes: Excludes, ignored: _GitIgnored | None, directory: bool) -> bool:
    return excludes.matches(path) or (ignored is not None and ignored(path, directory))


def _excluded_with_parents(path: str, excludes: Excludes, ignored: _GitIgnored | None) -> bool:
    """--force-exclude: whether a path named on the command line, or a directory it is in
    below the working directory, is excluded."""
    absolute, here = Path(os.path.abspath(path)), Path.cwd()
    inside = [p for p in absolute.parents if p != here and here in p.parents]
    return any(_left_out(str(p), excludes, ignored, p != absolute or p.is_dir())
               for p in (absolute, *inside))


class _GitIgnored:
    """Whether git ignores a file or directory itself: the .gitignore files from the work
    tree's top down to its directory (a deeper one, and a later line, overriding) after
    .git/info/exclude.  Outside a git work tree nothing is ignored.  A pattern that matches
    the entry only by matching its directory does not count here: the walk never enters an
    ignored directory, and one named on the command line is walked (as ruff does).  Files are
    read once per discovery."""

    def __init__(self) -> None:
        self._tops: dict[str, str | None] = {}
        self._read: dict[str, "pathspec.GitIgnoreSpec | None"] = {}

    def __call__(self, path: str, directory: bool) -> bool:
        absolute = os.path.abspath(path)
        top = self._work_tree(os.path.dirname(absolute))
        if top is None:
            return False
        verdict = False
        for base, spec in self._chain(top, os.path.dirname(absolute)):
            relative = Path(os.path.relpath(absolute, base)).as_posix()
            parent = relative.rpartition("/")[0]
            entry = relative + ("/" if directory else "")
            for pattern in spec.patterns:
                if pattern.include is not None and pattern.match_file(entry) \
                        and not (parent and pattern.match_file(parent + "/")):
                    verdict = pattern.include
        return verdict

    def _chain(self, top: str, directory: str) -> list[tuple[str, "pathspec.GitIgnoreSpec"]]:
        bases = [top]
        for part in Path(os.path.relpath(directory, top)).parts:
            if part != ".":
                bases.append(os.path.join(bases[-1], part))
        files = [(top, os.path.join(top, ".git", "info", "exclude"))]
        files += [(base, os.path.join(base, ".gitignore")) for base in bases]
        return [(base, spec) for base, name in files if (spec := self._spec(name)) is not None]

    def _work_tree(self, directory: str) -> str | None:
        """The top of the git work tree holding `directory` (a `.git` directory or file)."""
        if directory not in self._tops:
            parent = os.path.dirname(directory)
            self._tops[directory] = directory if os.path.exists(os.path.join(directory, ".git")) \
                else None if parent == directory else self._work_tree(parent)
        return self._tops[directory]

    def _spec(self, path: str) -> "pathspec.GitIgnoreSpec | None":
        if path not in self._read:
            import pathspec     # only where there is a .gitignore to read
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as stream:
                    self._read[path] = pathspec.GitIgnoreSpec.from_lines(stream.read().splitlines())
            except OSError:
                self._read[path] = None
        return self._read[path]


def source_suffix(name: str) -> str:
    """The suffix that tells a file's language: foo.h.in reads as foo.h."""
    if "".join(Path(name).suffixes[-2:]).lower() in HEADER_TEMPLATES:
        name = name[:-len(".in")]
    return Path(name).suffix.lower()


def language_of(path: str, source: bytes | None = None) -> str:
    """C or C++, by the file's suffix; a `.h` header, which either language uses, by its
    source when given: C++ when tree-sitter reads it as C++ without error but not as C (a
    class, a namespace, a template: leveldb's and kyotocabinet's headers)."""
    if Path(path).suffix == ".C":
        return "c++"
    language = LANGUAGES.get(source_suffix(path), "c")
    if language == "c" and source_suffix(path) == ".h" and source is not None:
        from .frontends.ts_grammar import reads_as_cpp    # tree-sitter loads only when asked
        if reads_as_cpp(source):
            return "c++"
    return language

"""compile_commands.json: the exact arguments a build used for each file.

Only what clang needs to parse a file is kept: the compiler, the output and
dependency-file options and the source itself are dropped (libclang must not
write files), and relative include paths are made absolute because the parse
does not run in the entry's directory.
"""
from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field

from .fileio import Refused, read_regular

FILENAME = "compile_commands.json"
_MAX_SIZE = 2**30        # a big project's database is tens of MiB; this bounds only what never ends
# Options followed by a value that only concern outputs.
_DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ", "-MJ", "--serialize-diagnostics"}
_DROP = {"-c", "-S", "-E", "-MD", "-MMD", "-M", "-MM", "-MG", "-MP", "-save-temps", "-pipe"}
_DROP_PREFIXES = ("-o", "-MF", "-MT", "-MQ", "-MJ", "-save-temps=", "-fprofile-generate", "-ftest-coverage")
_PATH_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros")


class CompdbError(Exception):
    """A compile_commands.json that cannot be read; the message is one line for the user."""


def _absolute(path: str, directory: str) -> str:
    return os.path.normpath(os.path.join(directory, path))


def _clean(arguments: list[str], source: str, directory: str) -> tuple[str, ...]:
    """The arguments without compiler, outputs and source file, with include paths made absolute."""
    kept: list[str] = []
    pending_path = False
    skip_value = False
    for argument in arguments[1:]:
        if skip_value:
            skip_value = False
        elif pending_path:
            kept.append(_absolute(argument, directory))
            pending_path = False
        elif argument in _DROP_WITH_VALUE:
            skip_value = True
        elif argument in _DROP or argument.startswith(_DROP_PREFIXES):
            continue
        elif argument in _PATH_OPTIONS:
            kept.append(argument)
            pending_path = True
        elif argument.startswith(_PATH_OPTIONS):
            option = next(option for option in _PATH_OPTIONS if argument.startswith(option))
            kept.append(option + _absolute(argument[len(option):], directory))
        elif not argument.startswith("-") and _absolute(argument, directory) == source:
            continue
        else:
            kept.append(argument)
    return tuple(kept)


@dataclass
class _Entries:
    """One compile_commands.json, by absolute source path; the first entry of a file wins."""

    path: str
    by_source: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str) -> "_Entries":
        def malformed(reason: str) -> CompdbError:
            return CompdbError(f"{path}: malformed compile_commands.json: {reason}")

        try:
            data = json.loads(read_regular(path, _MAX_SIZE).decode("utf-8"))
        except Refused as refusal:
            raise malformed(f"cannot read it: {refusal}") from None
        except (OSError, UnicodeDecodeError) as failure:
            raise malformed(f"cannot read it ({failure.__class__.__name__})") from None
        except json.JSONDecodeError as failure:
            raise malformed(f"bad JSON at line {failure.lineno}") from None
        if not isinstance(data, list):
            raise malformed("not a list of entries")
        entries = cls(path)
        for number, entry in enumerate(data):
            if not isinstance(entry, dict) or not isinstance(entry.get("directory"), str) \
                    or not isinstance(entry.get("file"), str):
                raise malformed(f"entry {number} lacks a string 'directory' or 'file'")
            arguments = entry.get("arguments")
            if isinstance(arguments, list) and arguments and all(isinstance(item, str) for item in arguments):
                argv = arguments
            elif isinstance(entry.get("command"), str):
                try:
                    argv = shlex.split(entry["command"])
                except ValueError as failure:
                    raise malformed(f"entry {number}: bad command ({failure})") from None
            else:
                raise malformed(f"entry {number} has neither 'arguments' nor 'command'")
            directory = _absolute(entry["directory"], os.path.dirname(os.path.abspath(path)))
            source = _absolute(entry["file"], directory)
            entries.by_source.setdefault(source, _clean(argv, source, directory))
        return entries


class CompilationDatabase:
    """Finds each file's compile_commands.json and its arguments there, caching both."""

    def __init__(self) -> None:
        self._by_directory: dict[str, str | None] = {}
        self._loaded: dict[str, _Entries | None] = {}   # None: malformed, reported once already

    def find(self, path: str, explicit: str | None = None) -> str | None:
        """The compile_commands.json for `path`: `explicit` (`-p`: a directory or the file itself),
        else the nearest one upward from the file's directory, also in a build/ subdirectory."""
        if explicit is not None:
            explicit = os.path.abspath(explicit)
            return os.path.join(explicit, FILENAME) if os.path.isdir(explicit) else explicit
        return self._search(os.path.dirname(os.path.abspath(path)))

    def arguments(self, path: str, explicit: str | None = None) -> tuple[str, ...] | None:
        """The cleaned clang arguments of `path`'s entry; None without a database or an entry.
        Raises CompdbError the first time a malformed database is met; then it counts as absent."""
        location = self.find(path, explicit)
        if location is None:
            return None
        if location not in self._loaded:
            self._loaded[location] = None
            self._loaded[location] = _Entries.load(location)
        entries = self._loaded[location]
        return None if entries is None else entries.by_source.get(os.path.normpath(os.path.abspath(path)))

    def _search(self, directory: str) -> str | None:
        if directory in self._by_directory:
            return self._by_directory[directory]
        found = next((candidate for candidate in (os.path.join(directory, FILENAME),
                                                  os.path.join(directory, "build", FILENAME))
                      if os.path.isfile(candidate)), None)
        parent = os.path.dirname(directory)
        if found is None and parent != directory:
            found = self._search(parent)
        self._by_directory[directory] = found
        return found

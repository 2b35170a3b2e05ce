"""One run: find the sources, turn each into facts once (in parallel), join them into a
Program, run every enabled rule on it, and drop what suppressions and ignores cover."""
from __future__ import annotations

import inspect
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path

from . import suppressions
from .compdb import CompdbError, CompilationDatabase
from .facts import FileFacts, FrontendError, FrontendOptions
from .findings import FileError, Finding, Report
from .program import Program
from .registry import Rule, load_rules

LANGUAGES = {".c": "c", ".h": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".c++": "c++",
             ".hh": "c++", ".hpp": "c++", ".hxx": "c++", ".h++": "c++", ".ipp": "c++",
             ".inl": "c++", ".tcc": "c++"}
SKIPPED_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".tox", ".venv"}
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
BINARY_PROBE = 8192


class UsageError(Exception):
    """A command line or selection that cannot run; one line for the user."""


@dataclass(frozen=True)
class RunState:
    """What a rule about the run itself (MML100) reads: every file's suppression directives,
    marked with what they silenced, and the other rules that ran.  A rule whose check takes a
    `run` parameter gets it, after every other rule has run."""

    directives: dict[str, list[suppressions.Directive]]
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Settings:
    frontend: str = "auto"                      # "auto" | "clang" | "tree-sitter" | "fast"
    jobs: int | None = None                     # None: the CPU count
    select: tuple[str, ...] | None = None       # rule ids, id prefixes or names; None: defaults
    ignore: tuple[str, ...] = ()
    compile_commands: str | None = None         # -p: a directory or a compile_commands.json
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    config_root: str = "."                      # per-file-ignores patterns are relative to it
    max_file_size: int = DEFAULT_MAX_FILE_SIZE


def select_rules(available: dict[str, Rule], select, ignore) -> list[Rule]:
    """Rules chosen by id, id prefix ("MML00") or name; unknown selectors are a usage error."""
    def matching(selector: str) -> list[Rule]:
        found = [r for r in available.values()
                 if r.id.startswith(selector.upper()) or r.name == selector or selector == "ALL"]
        if not found:
            raise UsageError(f"unknown rule selector {selector!r} (see `mmaplint rules`)")
        return found

    if select is None:
        chosen = {r.id: r for r in available.values() if r.default}
    else:
        chosen = {r.id: r for s in select for r in matching(s)}
    for selector in ignore:
        for rule in matching(selector):
            chosen.pop(rule.id, None)
    return [chosen[k] for k in sorted(chosen)]


def discover(paths: list[str]) -> tuple[list[str], list[FileError]]:
    """Source files named or found under directories, in a stable order."""
    files, errors = [], []
    for given in paths:
        if os.path.isdir(given):
            for root, dirs, names in os.walk(given):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
                files.extend(os.path.join(root, n) for n in sorted(names)
                             if Path(n).suffix.lower() in LANGUAGES)
        elif os.path.lexists(given):
            files.append(given)
        else:
            errors.append(FileError(given, "no such file or directory"))
    seen = set()
    return [f for f in files if not (f in seen or seen.add(f))], errors


def language_of(path: str) -> str:
    suffix = Path(path).suffix
    return "c++" if suffix == ".C" else LANGUAGES.get(suffix.lower(), "c")


def read_source(path: str, max_size: int) -> bytes:
    try:
        size = os.path.getsize(path)
        if os.path.isdir(path):
            raise FrontendError("is a directory")
        if size > max_size:
            raise FrontendError(f"file is {size / 2**20:.1f} MiB, over the {max_size / 2**20:.1f} MiB "
                                "limit (max-file-size); skipped")
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as exc:
        raise FrontendError(exc.strerror.lower() if exc.strerror else str(exc)) from None
    if b"\0" in data[:BINARY_PROBE]:
        raise FrontendError("binary file (NUL bytes), not C or C++ source; skipped")
    return data


def parse_file(path: str, settings: Settings, callees: frozenset[str],
               compile_args: tuple[str, ...] | None = None) -> FileFacts | FileError:
    """Facts for one file from the frontend the settings ask for (auto: clang, else tree-sitter).
    Nothing raised for one file stops the run: it becomes that file's one-line error."""
    from .frontends import treesitter
    try:
        source = read_source(path, settings.max_file_size)
        options = FrontendOptions(argument_callees=callees, include_dirs=settings.include_dirs,
                                  defines=settings.defines, compile_args=compile_args,
                                  language=language_of(path))
        if settings.frontend == "tree-sitter" or (settings.frontend == "fast" and compile_args is None):
            return _guarded("tree-sitter", treesitter.parse, path, source, options)
        from .frontends import clang    # libclang loads only when it is used
        try:
            return _guarded("clang", clang.parse, path, source, options)
        except FrontendError as exc:
            if settings.frontend == "clang":
                raise
            facts = _guarded("tree-sitter", treesitter.parse, path, source, options)
            return replace(facts, reason=f"tree-sitter: clang could not parse it ({exc})")
    except FrontendError as exc:
        return FileError(path, str(exc))


def _guarded(name: str, frontend, path: str, source: bytes, options: FrontendOptions) -> FileFacts:
    """A frontend's own bug on one file is that file's error, never a traceback for the run."""
    try:
        return frontend(path, source, options)
    except FrontendError:
        raise
    except Exception as exc:   # noqa: BLE001 - any bug in a frontend, reported per file
        raise FrontendError(f"internal error in the {name} frontend ({type(exc).__name__}: {exc}); "
                            "please report it") from None


def _compile_args(files: list[str], settings: Settings, errors: list[FileError]) -> list:
    """Each file's compile_commands.json arguments (None: no entry); a malformed database is
    reported once and the files it should have covered get GNU defaults."""
    if settings.frontend == "tree-sitter":
        return [None] * len(files)
    database = CompilationDatabase()
    found = []
    for path in files:
        try:
            found.append(database.arguments(path, settings.compile_commands))
        except CompdbError as exc:
            location = database.find(path, settings.compile_commands) or path
            errors.append(FileError(location, str(exc).removeprefix(f"{location}: ")))
            found.append(None)
    return found


def _parse_many(files: list[str], settings: Settings, callees: frozenset[str], args: list) -> list:
    jobs = settings.jobs or os.cpu_count() or 1
    if jobs == 1 or len(files) < 2:
        return [parse_file(f, settings, callees, a) for f, a in zip(files, args)]
    with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
        chunk = max(1, len(files) // (jobs * 8))
        return list(pool.map(parse_file, files, [settings] * len(files), [callees] * len(files),
                             args, chunksize=chunk))


def analyze(paths: list[str], settings: Settings = Settings(), rules: list[Rule] | None = None) -> Report:
    if rules is None:
        rules = select_rules(load_rules(), settings.select, settings.ignore)
    files, errors = discover(paths)
    report = Report(errors=errors)
    callees = frozenset().union(*(r.callees for r in rules))
    parsed = []
    args = _compile_args(files, settings, report.errors)
    for result in _parse_many(files, settings, callees, args):
        if isinstance(result, FileError):
            report.errors.append(result)
        else:
            parsed.append(result)
            report.analyzed.append(result.path)
            report.frontends[result.path] = result.reason
    program = Program(parsed)
    directives = {f.path: suppressions.parse(f.path, f.comments) for f in parsed}
    late = [r for r in rules if "run" in inspect.signature(r.check).parameters]
    early = [r for r in rules if r not in late]
    run = RunState(directives, tuple(early))
    for rule in early + late:
        for hit in (rule.check(program, run=run) if rule in late else rule.check(program)):
            finding = Finding(
                rule=rule.id, name=rule.name, severity=rule.severity, span=hit.span,
                message=hit.message, frontend=program.file_of(hit.span).frontend,
                related=hit.related, reproducer=rule.reproducer, confirm=rule.confirm,
                params=tuple(sorted(hit.params.items())))
            if _ignored_for_path(finding, settings):
                continue
            if rule not in late and suppressions.suppressing(
                    directives.get(hit.span.path, []), hit.span.line, rule.id, rule.name):
                continue
            report.findings.append(finding)
    report.directives = directives
    report.findings = list(dict.fromkeys(report.findings))
    report.sort()
    return report


def _ignored_for_path(finding: Finding, settings: Settings) -> bool:
    try:
        relative = Path(os.path.abspath(finding.span.path)).relative_to(
            os.path.abspath(settings.config_root)).as_posix()
    except ValueError:
        relative = Path(finding.span.path).as_posix()
    return any((fnmatchcase(relative, pattern) or fnmatchcase(Path(relative).name, pattern))
               and any(finding.rule.startswith(code) or code == finding.name for code in codes)
               for pattern, codes in settings.per_file_ignores)

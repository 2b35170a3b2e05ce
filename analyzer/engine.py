"""One run: find the sources, turn each into facts once (in parallel), join them into a
Program, run every enabled rule on it, and drop what suppressions and ignores cover."""
from __future__ import annotations

import gc
import inspect
import os
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from itertools import chain
from pathlib import Path
from typing import Iterator

from . import lifetime, models, sources, suppressions, workers
from . import progress as progress_bars
from .compdb import CompdbError, CompilationDatabase
from .discovery import Excludes, discover, language_of
from .errors import UsageError
from .facts import EVERY_CALL, FileFacts, FrontendError, FrontendOptions, Span
from .facts_cache import FactsCache, decode, encode
from .fileio import Refused, read_regular
from .findings import FileError, Finding, Related, Report
from .program import Program
from .provenance import statement_names
from .progress import Progress
from .registry import Rule, load_rules
from .rule_workers import in_process, rule_results

DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
# Per file, far beyond real code: a 4 MiB file parses in seconds and under 300 MiB; a file
# over either is skipped (an error line) and the run goes on.
DEFAULT_PARSE_TIMEOUT = 60.0        # seconds
DEFAULT_PARSE_MEMORY = 4096         # MiB
MAX_JOBS_PER_CPU = 2                # more workers than that only cost memory
BINARY_PROBE = 8192


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
    parse_timeout: float = DEFAULT_PARSE_TIMEOUT
    parse_memory: int = DEFAULT_PARSE_MEMORY      # MiB
    models: tuple[tuple[str, str], ...] = ()    # the configuration's (models.py)
    models_source: str | None = None            # the file they came from
    given: tuple[tuple[str, bytes], ...] = ()   # files whose text is given (the standard input)


def selects(selector: str, rule_id: str, name: str) -> bool:
    """Whether a selector (an id, an id prefix, a name, or ALL; any case) names a rule."""
    return rule_id.startswith(selector.upper()) or name == selector.lower() or selector.upper() == "ALL"


def rules_matching(available: dict[str, Rule], selector: str) -> list[Rule]:
    """Rules a selector names: an id, an id prefix ("MML00"), a name, or ALL (any case)."""
    found = [r for r in available.values() if selects(selector, r.id, r.name)]
    if not found:
        raise UsageError(f"unknown rule selector {selector!r} (see `mmaplint rules`)")
    return found


def select_rules(available: dict[str, Rule], select, ignore) -> list[Rule]:
    """The rules to run; unknown selectors are a usage error."""
    if select is None:
        chosen = {r.id: r for r in available.values() if r.default}
    else:
        chosen = {r.id: r for s in select for r in rules_matching(available, s)}
    for selector in ignore:
        for rule in rules_matching(available, selector):
            chosen.pop(rule.id, None)
    return [chosen[k] for k in sorted(chosen)]


def read_source(path: str, max_size: int) -> bytes:
    """A source's bytes: a regular file of at most max_size bytes (fileio.read_regular)."""
    try:
        data = read_regular(path, max_size)
    except Refused as refusal:
        raise FrontendError(f"{refusal}; skipped") from None
    except OSError as exc:
        raise FrontendError(_reason(exc)) from None
    if b"\0" in data[:BINARY_PROBE]:
        raise FrontendError("binary file (NUL bytes), not C or C++ source; skipped")
    return data


def _reason(failure: OSError) -> str:
    return failure.strerror.lower() if failure.strerror else str(failure)


def _uses_clang(settings: Settings, compile_args: tuple[str, ...] | None) -> bool:
    """Whether a file is given to clang first: with fast, only a compile_commands.json entry."""
    return settings.frontend != "tree-sitter" and not (settings.frontend == "fast" and compile_args is None)


def parse_file(path: str, settings: Settings, callees: frozenset[str],
               compile_args: tuple[str, ...] | None = None) -> FileFacts | FileError:
    """Facts for one file from the frontend the settings ask for (auto: clang, else tree-sitter),
    with the index of its statements by name (provenance.statement_names) made here, in the
    worker, rather than for every file at once in the whole-program phase.  Nothing raised for
    one file stops the run: it becomes that file's one-line error."""
    facts = _parsed(path, settings, callees, compile_args)
    return facts if isinstance(facts, FileError) else replace(facts, names=statement_names(facts))


def _parsed(path: str, settings: Settings, callees: frozenset[str],
            compile_args: tuple[str, ...] | None) -> FileFacts | FileError:
    from .frontends import treesitter
    try:
        given = dict(settings.given).get(path)
        source = read_source(path, settings.max_file_size) if given is None else given
        options = FrontendOptions(argument_callees=callees, include_dirs=settings.include_dirs,
                                  defines=settings.defines, compile_args=compile_args,
                                  language=language_of(path, source))
        if not _uses_clang(settings, compile_args):
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
    except (FrontendError, MemoryError):      # a MemoryError is the worker's to report
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


def job_count(requested: int | None, files: int) -> int:
    """Worker processes for a run: as asked (default: one per CPU), but no more than there are
    files, nor than MAX_JOBS_PER_CPU per CPU this process may use."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(requested or cpus, files, MAX_JOBS_PER_CPU * cpus))


def _parse_many(files: list[str], settings: Settings, callees: frozenset[str], args: list,
                done=lambda index, result, encoded: None, meanwhile: Iterator[None] = iter(())) -> list:
    """Every file's facts, handing each to done(index, result, encoded) as it comes (progress,
    the facts cache; encoded: the facts as the worker encoded them, None if changed since),
    with each step of `meanwhile` taken: while the workers parse (workers.Pool.completed), the
    rest after them.
    Each file is parsed in a worker process (workers.py) under the settings' time and memory
    budget: a file over it, or one that kills its worker (libclang overflowing its stack on
    absurdly deep expressions), costs that file, not the run.  Where
    clang was tried and tree-sitter may stand in for it (auto, fast with a compile_commands.json
    entry), such a file is parsed again with tree-sitter."""
    results: list = [None] * len(files)
    _preload(settings, files, args)
    budget = workers.Budget(settings.parse_timeout, settings.parse_memory * 2**20)
    fallback = replace(settings, frontend="tree-sitter")
    with workers.Pool(_parse_encoded, job_count(settings.jobs, len(files)), budget) as pool:
        # the largest first: a large file begun last would keep the run waiting alone on it
        # at the end (git's sha1dc/sha1.c, 2.8 s, is among its last files by name)
        given = dict(settings.given)
        for index in sorted(range(len(files)), key=lambda i: -_size(files[i], given)):
            pool.submit(index, (files[index], settings, callees, args[index]))
        for index, outcome in pool.completed(meanwhile):
            encoded = outcome if isinstance(outcome, bytes) else None
            if encoded is not None:
                outcome = decode(encoded)
            clang_failure = results[index]      # set when this is tree-sitter standing in
            if isinstance(outcome, workers.Failure):
                if clang_failure is None and _falls_back(settings, args[index]):
                    results[index] = outcome
                    pool.submit(index, (files[index], fallback, callees, None))
                    continue
                frontend = "clang" if settings.frontend == "clang" else "tree-sitter"
                outcome = FileError(files[index], f"{_failure(outcome, frontend, 'parse')}; skipped")
            elif clang_failure is not None and isinstance(outcome, FileFacts):
                outcome = replace(outcome, reason=f"tree-sitter: {_failure(clang_failure, 'clang', 'clang')}")
                encoded = None      # no longer these facts
            results[index] = outcome
            done(index, outcome, encoded)
    for _ in meanwhile:     # the steps the workers left (all of them when nothing was parsed)
        pass
    return results


def _parse_encoded(path: str, settings: Settings, callees: frozenset[str],
                   compile_args: tuple[str, ...] | None) -> bytes | FileError:
    """parse_file as a worker runs it: facts come back encoded as the facts cache keeps them,
    with each repeated expression once (facts_cache.encode), which the parent decodes in 0.6
    of a plain pickle's time (200 of git's files) and the cache stores without encoding again."""
    facts = parse_file(path, settings, callees, compile_args)
    return facts if isinstance(facts, FileError) else encode(facts)


def _size(path: str, given: dict[str, bytes]) -> int:
    """A file's size in bytes, its text's when given (0 where it cannot be read: its parse
    reports why)."""
    if path in given:
        return len(given[path])
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _preload(settings: Settings, files: list[str], args: list) -> None:
    """Load here, once, what each worker would otherwise load for itself, which they inherit
    when they are forked: the frontends with tree-sitter's compiled queries, and libclang
    with the place of its builtin headers (which asks a compiler) when a file goes to clang.
    Only a saving: what fails here fails again in the workers, which report it per file."""
    try:
        from .frontends import treesitter  # noqa: F401 - imported for the workers
        from .frontends.ts_grammar import grammar
        for language in sorted({language_of(path) for path in files}):
            grammar(language)
        if any(_uses_clang(settings, compile_args) for compile_args in args):
            from .frontends import clang_native
            from .frontends.clang_includes import builtin_include_dir
            clang_native.load()
            builtin_include_dir()
    except Exception:   # noqa: BLE001 - see above
        pass


def _falls_back(settings: Settings, compile_args: tuple[str, ...] | None) -> bool:
    """Whether the file went to clang first, with tree-sitter to stand in."""
    return settings.frontend != "clang" and _uses_clang(settings, compile_args)


def _failure(failure: workers.Failure, frontend: str, subject: str) -> str:
    """What happened to a parse that gave no result, in a few words about `subject`."""
    if isinstance(failure, workers.Overran):
        return f"{subject} took longer than {failure.seconds:g} s (parse-timeout)"
    if isinstance(failure, workers.OutOfMemory):
        return (f"{subject} needed more than {failure.memory / 2**20:g} MiB (parse-memory)" if failure.memory
                else f"{subject} ran out of memory")
    if isinstance(failure, workers.Died):
        return f"the {frontend} frontend crashed on this file ({failure.how()})"
    return f"internal error in the {frontend} frontend ({failure.error}); please report it"


def analyze(paths: list[str], settings: Settings = Settings(), rules: list[Rule] | None = None,
            excludes: Excludes = Excludes(), cache: FactsCache | None = None,
            progress: Progress = progress_bars.NONE) -> Report:
    found = discover(paths, excludes)
    return analyze_files(found.files, settings, rules, found.missing, cache, progress)


def analyze_files(files: list[str], settings: Settings = Settings(), rules: list[Rule] | None = None,
                  errors: list[FileError] = (), cache: FactsCache | None = None,
                  progress: Progress = progress_bars.NONE) -> Report:
    """The findings of the rules on the program these files make."""
    rules = select_rules(load_rules(), settings.select, settings.ignore) if rules is None else rules
    errors = list(errors)
    sources.give(settings.given)
    return analyze_facts(lambda: read_facts(files, settings, errors, cache, progress),
                         rules, settings, errors, progress)


def _callees(rules: list[Rule]) -> frozenset[str]:
    return frozenset().union(*(r.callees for r in rules))


def read_facts(files: list[str], settings: Settings, errors: list[FileError],
               cache: FactsCache | None = None, progress: Progress = progress_bars.NONE) -> list:
    """Every file's facts (or its error); a malformed compilation database is added to
    `errors`."""
    args = _compile_args(files, settings, errors)
    # every call's arguments: a call of the program's own function is what its summary is
    # instantiated with, whichever rules run (summaries.py)
    return _facts(files, settings, frozenset({EVERY_CALL}), args, cache, progress)


def analyze_facts(read, rules: list[Rule], settings: Settings, errors: list[FileError],
                  progress: Progress = progress_bars.NONE) -> Report:
    """The findings of the rules on the facts read() returns (a file's error in place of its
    facts is reported), read and checked with cyclic garbage collection held off (see
    uncollected)."""
    with uncollected():
        results = read()
        with progress.step("checking the whole program", len(rules)) as step:
            return _check(results, rules, settings, Report(errors=errors), _callees(rules), step.advance)


def _facts(files: list[str], settings: Settings, callees: frozenset[str], args: list,
           cache: FactsCache | None, progress: Progress) -> list:
    """Every file's facts or error: the facts cache's where it holds them (its entries checked
    before any file is scheduled, unpickled while the others parse), the rest parsed (each
    stored in it as it comes)."""
    with progress.step("parsing", len(files)) as step:
        def parse(indices, arrived=lambda position, result, encoded: None, meanwhile=()) -> list:
            def done(position: int, result, encoded: bytes | None) -> None:
                step.advance()
                arrived(position, result, encoded)

            def loaded() -> Iterator[None]:     # a file of the cache's, each step
                for _ in meanwhile:
                    step.advance()
                    yield
            return _parse_many([files[i] for i in indices], settings, callees,
                               [args[i] for i in indices], done, loaded())
        if cache is None:
            return parse(range(len(files)))
        include_dirs = tuple(os.path.abspath(d) for d in settings.include_dirs)
        keys = [(settings.frontend, language_of(f), a, include_dirs, settings.defines, tuple(sorted(callees)))
                for f, a in zip(files, args)]
        # clang's fallback to tree-sitter is not kept: a header it lacked may be there next time
        wants_clang = [_uses_clang(settings, a) for a in args]
        return cache.facts(files, keys, parse, max_size=settings.max_file_size,
                           keep=lambda i, facts: facts.frontend == "clang" or not wants_clang[i])


@contextmanager
def uncollected() -> Iterator[None]:
    """Cyclic garbage collection off while the body runs, back on after it if it was on
    before (so that nesting is free, and a process running many analyses, the tests or an
    editor, still collects whatever each leaves).  A run's facts are about a million small
    objects (every call's arguments are expression trees), and the whole-program phase's
    indexes and summaries as many again, all living to the end of the run: each full
    collection would walk every one again, and there are more of them the larger the program.
    They hold no reference cycles; a whole run over git leaves about 5,000 objects for the
    collector, which took 21 % of its whole-program phase (kyotocabinet: 11 %; fio copied four
    times: 22 %, against 12 % for one copy).  Worker processes forked for parsing turn
    collection back on (the pools' initializer): libclang's bindings do leave cycles.
    Turned back on, the collector would count every object made meanwhile as young, and the
    next allocation would walk them all (0.2 s after fio's run): they are first moved to the
    oldest generation (a freeze and a thaw, which only relink lists), unless the caller has
    frozen objects of its own, which a thaw would release."""
    collecting, thawing = gc.isenabled(), gc.get_freeze_count() == 0
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if thawing:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _check(results: list, rules: list[Rule], settings: Settings, report: Report,
           callees: frozenset[str], checked=lambda: None) -> Report:
    """Join the files' facts into a program and run the rules on it."""
    parsed = []
    for result in results:
        if isinstance(result, FileError):
            report.errors.append(result)
        else:
            parsed.append(result)
            report.analyzed.append(result.path)
            report.frontends[result.path] = result.reason
    program = Program(parsed, models=models.load(dict(settings.models), settings.models_source))
    directives = {f.path: suppressions.parse(f.path, f.comments) for f in parsed}
    late = [r for r in rules if "run" in inspect.signature(r.check).parameters]
    early = [r for r in rules if r not in late]
    run = RunState(directives, tuple(early))
    jobs = job_count(settings.jobs, len(early))
    # a rule that reads the run comes after the others, whose findings its directives count
    for rule, hits in chain(rule_results(program, early, jobs, checked), in_process(program, late, checked, run=run)):
        if isinstance(hits, str):
            report.errors.append(FileError(f"<rule {rule.id}>", f"internal error in rule {rule.id} "
                                           f"({hits}); its findings are missing"))
            continue
        for hit in hits:
            finding = Finding(
                rule=rule.id, name=rule.name, severity=rule.severity, span=in_code_points(hit.span),
                message=hit.message, frontend=program.file_of(hit.span).frontend,
                related=tuple(Related(in_code_points(r.span), r.message) for r in hit.related),
                reproducer=rule.reproducer, confirm=rule.confirm,
                params=tuple(sorted(hit.params.items())))
            if _ignored_for_path(finding, settings):
                continue
            if rule not in late and any(suppressions.suppressing(
                    directives.get(span.path, []), span.line, rule.id, rule.name)
                    for span in (hit.span, hit.operation) if span is not None):
                continue
            report.findings.append(finding)
    report.directives = directives
    lifetime.keep(program)      # with the facts it holds
    report.findings = _one_per_place(report.findings)
    report.sort()
    return report


def _one_per_place(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and place: a call in a loop that leads to two msyncs is one
    finding (the one with the shortest chain, then the first by its text: the same whatever
    order the rules found them in), as is the same hit twice."""
    kept: dict[tuple, Finding] = {}
    for finding in findings:
        place = (finding.rule, finding.span)
        known = kept.get(place)
        if known is None or _preference(finding) < _preference(known):
            kept[place] = finding
    return list(kept.values())


def _preference(finding: Finding) -> tuple:
    return (len(finding.related), finding.message, tuple((r.span, r.message) for r in finding.related))


def in_code_points(span: Span) -> Span:
    """A span whose columns count characters, as SARIF, editors and the caret line do; the
    frontends count bytes, and a UTF-8 comment before a call shifts them."""
    lines = sources.lines(span.path)

    def column(line: int, byte_column: int) -> int:
        if not 0 < line <= len(lines):
            return byte_column
        return len(lines[line - 1][:byte_column - 1].decode("utf-8", "replace")) + 1

    return replace(span, column=column(span.line, span.column),
                   end_column=column(span.end_line, span.end_column))


def _ignored_for_path(finding: Finding, settings: Settings) -> bool:
    try:
        relative = Path(os.path.abspath(finding.span.path)).relative_to(
            os.path.abspath(settings.config_root)).as_posix()
    except ValueError:
        relative = Path(finding.span.path).as_posix()
    return any((fnmatchcase(relative, pattern) or fnmatchcase(Path(relative).name, pattern))
               and any(selects(code, finding.rule, finding.name) for code in codes)
               for pattern, codes in settings.per_file_ignores)

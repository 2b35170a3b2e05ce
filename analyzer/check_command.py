"""The `check` and `merge` commands: find the files, analyze them (or load the shards' facts),
and write the reports.  Imported by the command line only when one of them runs, since it
brings in the whole analyzer."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace

from mmaplint import __version__

from . import baseline, fingerprints, merge, shard
from .changed_lines import ALL_LINES, changed_lines, on_changed_lines
from .config import FRONTENDS, find_config
from .confirm_options import add_confirm_options, confirm_settings
from .discovery import DEFAULT_EXCLUDE, Excludes, discover
from .engine import (DEFAULT_PARSE_MEMORY, DEFAULT_PARSE_TIMEOUT, Settings, analyze_facts, analyze_files,
                     read_facts, rules_matching, select_rules, uncollected)
from .errors import UsageError
from .exit_status import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from .facts_cache import DIRECTORY as CACHE_DIRECTORY, FactsCache, build_id
from .fileio import Refused, check_writable, same_file, write_whole
from .formats import FormatContext
from .progress import Progress, wanted
from .registry import load_formatters, load_rules

STATISTICS_FORMATS = ("text", "json")

def _comma_list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _check_parser(formats: list[str], merging: bool = False) -> argparse.ArgumentParser:
    name = "merge" if merging else "check"
    p = argparse.ArgumentParser(prog=f"mmaplint {name}", description=(
        "Run the rules once on the whole program whose facts the shards wrote "
        "(`mmaplint check --shard K/N -o sK.facts PATH ...` for K = 1..N), as an unsharded "
        "check would; give the options the shards had." if merging else
        "Find C/C++ I/O patterns that stall real kernels. Calls are followed across every "
        "file analyzed; facts are cached per file (.mmaplint_cache at the project root)."))
    if merging:
        p.add_argument("paths", nargs="+", metavar="FACTS", help="the facts every shard wrote")
    else:
        p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to analyze "
                       "(default: the current directory); - reads one file from the standard input")
    report = p.add_argument_group("report")
    report.add_argument("--format", default="text", choices=formats, help="output format (default: text)")
    report.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (with "
                        "--shard: the shard's facts, for `mmaplint merge`)")
    report.add_argument("--report", action="append", default=[], metavar="FORMAT=FILE",
                        help="also write the report in FORMAT to FILE (repeatable): one analysis for "
                        "several outputs, e.g. --format github --report sarif=mmaplint.sarif")
    report.add_argument("--statistics", action="store_true",
                        help="print how many findings each rule has instead of the findings")
    report.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    report.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text report (auto: when writing to a terminal and NO_COLOR "
                        "is unset; FORCE_COLOR forces it)")
    report.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings only: no summary line, notes or progress")
    report.add_argument("-v", "--verbose", action="store_true",
                        help="say per file which frontend ran and why")
    report.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show progress on stderr (default: when stderr is a terminal)")
    rules = p.add_argument_group("rules")
    rules.add_argument("--select", type=_comma_list, metavar="RULES",
                       help="rules to run (ids, id prefixes, names or ALL; comma-separated)")
    rules.add_argument("--ignore", type=_comma_list, default=None, metavar="RULES",
                       help="rules to skip (as --select)")
    changes = p.add_argument_group("changes")
    changes.add_argument("--diff", metavar="REF", help="report only findings that touch lines changed "
                         "since the git revision REF (their own lines, or the first line of their loop, "
                         "of a call on the way or of the I/O call it leads to)")
    changes.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE "
                         "(matched by fingerprint, so moved code and renamed files stay quiet)")
    changes.add_argument("--write-baseline", action="store_true",
                         help="record this run's findings in the --baseline FILE first")
    if not merging:
        changes.add_argument("--program", action="append", default=[], metavar="PATH",
                             help="analyze PATH too, as the rest of the program: calls are followed "
                             "into its files, but only findings that touch the PATHs named are "
                             "reported (hooks: the staged files, with --program .)")
        files = p.add_argument_group("files")
        files.add_argument("--exclude", type=_comma_list, metavar="GLOBS",
                           help="files and directories to leave out, replacing the configured or "
                           f"default ones ({', '.join(DEFAULT_EXCLUDE)}); a glob without / matches a "
                           "name anywhere, one with / a path from the working directory")
        files.add_argument("--extend-exclude", type=_comma_list, default=[], metavar="GLOBS",
                           help="more files and directories to leave out, besides --exclude")
        files.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                           help="leave out what .gitignore files ignore (default: on)")
        files.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=None,
                           help="apply the excludes to files named on the command line too "
                           "(default: a file named is analyzed even when excluded)")
        files.add_argument("--stdin-filename", metavar="PATH", help="with PATH -, the name of the file "
                           "read from the standard input (its language, and where findings point)")
        files.add_argument("--shard", metavar="K/N", help="parse only the K-th of N deterministic parts "
                           "of the files and write their facts to -o FILE; `mmaplint merge` then runs "
                           "the rules once on every shard's facts")
    parsing = p.add_argument_group("parsing")
    parsing.add_argument("--frontend", choices=FRONTENDS, help="auto (default): clang when the file "
                         "parses without errors, else tree-sitter; fast: clang only for files with a "
                         "compile_commands.json entry, tree-sitter for the rest (pre-commit hooks)")
    parsing.add_argument("-p", "--compile-commands", metavar="PATH",
                         help="compile_commands.json or the directory holding it")
    parsing.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                         help="add DIR to clang's include path (files without a compile_commands.json entry)")
    parsing.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                         help="define a macro for clang (files without a compile_commands.json entry)")
    parsing.add_argument("-j", "--jobs", type=int, metavar="N", help="worker processes for parsing, and for the rules of a large program (default: CPU count)")
    parsing.add_argument("--max-file-size", type=int, metavar="BYTES",
                         help="skip larger files (default: 4 MiB)")
    parsing.add_argument("--parse-timeout", type=float, metavar="SECONDS", help="skip a file whose parse "
                         f"takes longer (default: {DEFAULT_PARSE_TIMEOUT:g}; with auto, tree-sitter then "
                         "stands in for clang)")
    parsing.add_argument("--parse-memory", type=int, metavar="MIB", help="skip a file whose parse "
                         f"needs more memory (default: {DEFAULT_PARSE_MEMORY})")
    parsing.add_argument("--cache-dir", metavar="DIR", help="where parsed facts are kept between runs "
                         f"(default: {CACHE_DIRECTORY} at the project root)")
    parsing.add_argument("--no-cache", action="store_true", help="parse every file, neither reading "
                         "nor writing the facts cache")
    confirm = p.add_argument_group("confirm")
    confirm.add_argument("--confirm", action="store_true",
                         help="after the check, run each found rule's reproducer here")
    add_confirm_options(confirm)
    p.add_argument("--version", action="version", version=f"mmaplint {__version__}")
    return p


def _use_color(choice: str, stream) -> bool:
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or stream.isatty()


def _settings(args, config) -> Settings:
    return Settings(
        frontend=args.frontend or config.frontend or "auto",
        jobs=args.jobs,
        select=tuple(args.select) if args.select else config.select,
        ignore=tuple(args.ignore) if args.ignore is not None else config.ignore,
        compile_commands=args.compile_commands or config.compile_commands,
        include_dirs=tuple(args.include_dirs) + config.include_dirs,
        defines=tuple(args.defines) + config.defines,
        per_file_ignores=config.per_file_ignores,
        config_root=config.root,
        max_file_size=_first(args.max_file_size, config.max_file_size, Settings.max_file_size),
        parse_timeout=_first(args.parse_timeout, config.parse_timeout, Settings.parse_timeout),
        parse_memory=_first(args.parse_memory, config.parse_memory, Settings.parse_memory),
        models=config.models,
        models_source=config.source,
    )


def _first(*values):
    """The command line's value, else the configuration's, else the default."""
    return next(value for value in values if value is not None)


def _excludes(args, config) -> Excludes:
    """ruff's rules: the command line's --exclude replaces the configured exclude, which
    replaces the defaults; extend-exclude adds to whichever applies; config patterns are
    relative to the configuration file, the command line's to the working directory."""
    if args.exclude is not None:
        exclude = tuple((p, ".") for p in args.exclude)
    elif config.exclude is not None:
        exclude = tuple((p, config.root) for p in config.exclude)
    else:
        exclude = Excludes.exclude
    return Excludes(
        exclude=exclude,
        extend_exclude=tuple((p, config.root) for p in config.extend_exclude)
        + tuple((p, ".") for p in args.extend_exclude),
        respect_gitignore=next(v for v in (args.respect_gitignore, config.respect_gitignore, True)
                               if v is not None),
        force=next(v for v in (args.force_exclude, config.force_exclude, False) if v is not None))


def _validate(args, merging: bool) -> None:
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.write_baseline and not args.baseline:
        raise UsageError("--write-baseline needs --baseline FILE")
    if args.max_file_size is not None and args.max_file_size < 1:
        raise UsageError("--max-file-size must be a positive number of bytes")
    if args.parse_timeout is not None and not 0 < args.parse_timeout < float("inf"):
        raise UsageError("--parse-timeout must be a positive number of seconds")
    if args.parse_memory is not None and args.parse_memory < 1:
        raise UsageError("--parse-memory must be a positive number of MiB")
    if args.select is not None and not args.select:
        raise UsageError("--select names no rule (see `mmaplint rules`)")
    if args.plot and not args.confirm:
        raise UsageError("--plot draws what --confirm measures: add --confirm")
    if args.compile_commands and not os.path.exists(args.compile_commands):
        raise UsageError(f"-p {args.compile_commands}: no such file or directory")
    if args.statistics and args.format not in STATISTICS_FORMATS:
        raise UsageError(f"--statistics prints {' or '.join(STATISTICS_FORMATS)}, not {args.format}")
    if merging:
        return
    if "-" in args.paths and len(args.paths) > 1:
        raise UsageError("- (the standard input) is one file: name no other PATH with it")
    if args.stdin_filename and "-" not in args.paths:
        raise UsageError("--stdin-filename names the file read from the standard input: give PATH -")
    if args.shard and not args.output:
        raise UsageError("--shard writes its part's facts for `mmaplint merge`: give -o FILE")
    if args.shard and (args.program or "-" in args.paths):
        raise UsageError("--shard cannot be combined with --program or -")


def _reports(args, formatters) -> list[tuple[str, str]]:
    """The --report FORMAT=FILE pairs, checked before the analysis."""
    pairs = []
    for item in args.report:
        fmt, sep, path = item.partition("=")
        if not sep or not path:
            raise UsageError(f"--report {item!r}: expected FORMAT=FILE, e.g. sarif=mmaplint.sarif")
        if fmt not in formatters:
            raise UsageError(f"--report {item!r}: unknown format {fmt!r} (one of {', '.join(sorted(formatters))})")
        pairs.append((fmt, path))
    return pairs


def _cache(args, config, root: str) -> FactsCache | None:
    if args.no_cache:
        return None
    return FactsCache(args.cache_dir or config.cache_dir or os.path.join(root, CACHE_DIRECTORY))


def _read_for(settings: Settings) -> dict:
    """What shapes a shard's facts: merge refuses to join shards that differ in it."""
    return {"frontend": settings.frontend, "compile_commands": settings.compile_commands,
            "max_file_size": settings.max_file_size, "defines": settings.defines,
            "include_dirs": tuple(os.path.abspath(d) for d in settings.include_dirs)}


def run_check(argv: list[str], merging: bool = False) -> int:
    formatters = load_formatters()
    args = _check_parser(sorted(formatters), merging).parse_args(argv)
    _validate(args, merging)
    extra_reports = _reports(args, formatters)
    config = find_config()
    settings = _settings(args, config)
    available = load_rules()
    rules = select_rules(available, settings.select, settings.ignore)
    for _, codes in settings.per_file_ignores:
        for code in codes:
            rules_matching(available, code)     # a typo in per-file-ignores is an error too
    if not rules:
        raise UsageError("no rule is selected (see `mmaplint rules`)")
    root = _project_root(config)
    recorded = baseline.read(args.baseline) if args.baseline and not args.write_baseline else None
    sharding = not merging and args.shard
    progress = Progress(wanted(args.progress) and not args.quiet)
    # the facts merged or read, the program and its analyses live to the end of the run
    with progress, uncollected():
        if merging:
            files, results, errors = merge.load(args.paths, build_id())
            _check_outputs(args, extra_reports, [*args.paths, *files])
            report = analyze_facts(lambda: results, rules, settings, errors, progress)
            named, missing = files, []
        else:
            named, files, missing, settings = _files(args, config, settings)
            _check_outputs(args, extra_reports, files)
            if sharding:
                return _write_shard(args, files, missing, settings, _cache(args, config, root), progress)
            cache = None if settings.given else _cache(args, config, root)
            report = analyze_files(files, settings, rules, missing, cache, progress)
    prints = fingerprints.compute(report.findings, root)
    if args.diff:
        report.findings = on_changed_lines(report.findings, changed_lines(args.diff, named))
    elif len(named) < len(files):            # --program: findings that touch the files named
        report.findings = on_changed_lines(report.findings,
                                           {os.path.realpath(f): ALL_LINES for f in named})
    if args.write_baseline:
        baseline.write(args.baseline, report.findings, prints, root, __version__)
        if not args.quiet:
            print(f"mmaplint: recorded {len(report.findings)} findings in {args.baseline}", file=sys.stderr)
        report.findings = []                # all recorded: none is new
    elif recorded is not None:
        report.findings = baseline.new_findings(report.findings, prints, recorded, root)
    if args.verbose:
        if config.source:
            print(f"mmaplint: configuration from {config.source}", file=sys.stderr)
        for path in report.analyzed:
            print(f"{path}: {report.frontends[path]}", file=sys.stderr)
    extra = {"argv": argv, fingerprints.CONTEXT_KEY: prints, "quiet": args.quiet}
    confirmed = _confirm_findings(report, args, extra) if args.confirm and report.findings else EXIT_CLEAN
    context = FormatContext(rules=available, color=not args.output and _use_color(args.color, sys.stdout),
                            root=root, extra=extra)
    text = _statistics(report, args.format) if args.statistics else formatters[args.format](report, context)
    if args.output:
        _write_output(args.output, text)
    else:
        sys.stdout.write(text)
    for fmt, path in extra_reports:
        _write_output(path, formatters[fmt](report, FormatContext(rules=available, root=root, extra=extra)))
    if confirmed:
        return confirmed
    if missing or not report.analyzed:
        return EXIT_ERROR       # a path that does not exist is an error whatever else ran
    return EXIT_FINDINGS if report.findings and not args.exit_zero else EXIT_CLEAN


def _files(args, config, settings: Settings) -> tuple[list[str], list[str], list, Settings]:
    """(the files named, every file to analyze, missing paths, the settings with the standard
    input's text when PATH is -)."""
    paths = args.paths or ["."]
    if paths == ["-"]:
        name = args.stdin_filename or "stdin.c"
        settings = replace(settings, given=((name, sys.stdin.buffer.read()),))
        paths = [name]
    excludes = _excludes(args, config)
    found = discover(paths, excludes)
    if settings.given:
        found.files, found.missing = [paths[0]], []     # its text is given, whatever is on disk
    files = found.files
    if args.program:
        rest = discover(args.program, excludes)
        named = {os.path.realpath(f) for f in found.files}
        files = found.files + [f for f in rest.files if os.path.realpath(f) not in named]
        found.missing += rest.missing
    return found.files, files, found.missing, settings


def _write_shard(args, files: list[str], missing: list, settings: Settings, cache, progress) -> int:
    """Parse this shard's part of the files and write their facts; a path that does not exist
    fails every shard (and is reported again by the merge)."""
    part = shard.parse(args.shard)
    errors = list(missing)
    results = read_facts(shard.select(files, *part), settings, errors, cache, progress)
    shard.write(args.output, part, files, _read_for(settings), results, errors, build_id())
    return EXIT_ERROR if missing else EXIT_CLEAN


def _statistics(report, fmt: str) -> str:
    """Findings per rule, most first (ruff's --statistics)."""
    counts = Counter((f.rule, f.name) for f in report.findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if fmt == "json":
        return json.dumps([{"rule": rule, "name": name, "count": count}
                           for (rule, name), count in rows], indent=2) + "\n"
    width = len(str(max(counts.values(), default=0)))
    return "".join(f"{count:>{width}}  {rule}  {name}\n" for (rule, name), count in rows)


def _check_outputs(args, reports: list[tuple[str, str]], inputs: list[str]) -> None:
    """Before the analysis: no output (-o, --report, --write-baseline) is one of the files to
    analyze, nor (but the baseline written) the baseline read, and each can be written."""
    outputs = [("-o", args.output), *(("--report", path) for _, path in reports),
               ("--write-baseline", args.baseline if args.write_baseline else None)]
    for option, path in outputs:
        if path is None:
            continue
        kept = inputs + ([args.baseline] if args.baseline and option != "--write-baseline" else [])
        clash = same_file(path, kept)
        if clash is not None:
            what = "a file to analyze" if clash in inputs else "the baseline"
            raise UsageError(f"{option} {path}: refusing to overwrite {clash}, {what}")
        try:
            check_writable(path)
        except Refused as refusal:
            raise UsageError(str(refusal)) from None


def _write_output(path: str, text: str) -> None:
    """A report, written whole or not at all (fileio.write_whole)."""
    try:
        write_whole(path, text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def _project_root(config) -> str:
    """Where relative paths in reports and baselines start: the directory of the configuration
    file, else the git work tree, else the working directory; so that a baseline matches
    whichever directory mmaplint runs from."""
    if config.source:
        return config.root
    try:
        done = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return os.getcwd()
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else os.getcwd()


def _confirm_findings(report, args, context_extra: dict) -> int:
    """Measure each found rule with its reproducer; the results go into the report (each
    finding carries its rule's) through the formatters' context.  0, or the error's exit code."""
    from .confirm import ConfirmRequest, measure_rules
    from .confirm.progress import Progress
    from .confirm.session import guarded
    requests: dict[str, ConfirmRequest] = {}
    for finding in report.findings:
        if finding.reproducer is None:
            continue
        request = requests.setdefault(finding.rule, ConfirmRequest(finding.rule, {}, from_code=True))
        for name, value in finding.params:
            request.params.setdefault(name, value)
    if not requests:
        print("mmaplint: no finding has a reproducer to confirm", file=sys.stderr)
        return EXIT_CLEAN
    meter = Progress(sys.stderr.isatty())

    def measure():
        measured = measure_rules(list(requests.values()), confirm_settings(args), meter, skip_unknown=True)
        if args.plot and measured[0]:
            from .confirm import plot
            plot.write(measured[0], args.plot)
        return measured

    measured, code = guarded(meter, measure)
    if code is not None:
        return code
    results, env, skipped = measured
    for line in skipped:
        print(f"mmaplint: {line}", file=sys.stderr)
    context_extra["confirmations"] = (results, env)
    return EXIT_CLEAN


def run_merge(argv: list[str]) -> int:
    return run_check(argv, merging=True)


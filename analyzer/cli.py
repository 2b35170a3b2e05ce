"""The `mmaplint` command line.

    mmaplint [check] [PATH ...]    analyze (the default command; PATH defaults to .)
    mmaplint --confirm PATH ...    analyze, then measure each rule found with its reproducer
    mmaplint confirm MML001        run one rule's reproducer alone
    mmaplint corpus list           the reproducers
    mmaplint rules                 the rules, as a table
    mmaplint explain MML001        one rule's documentation
    mmaplint models                what calls of functions mmaplint does not analyze do
    mmaplint merge s1.facts ...    the rules on the facts of every --shard, run once
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import traceback
from collections import Counter
from dataclasses import replace

from mmaplint import __version__

from . import baseline, fingerprints, interrupts, merge, models, shard
from .baseline import BaselineError
from .changed_lines import ALL_LINES, DiffError, changed_lines, on_changed_lines
from .config import FRONTENDS, ConfigError, find_config
from .discovery import DEFAULT_EXCLUDE, Excludes, discover
from .engine import (DEFAULT_PARSE_MEMORY, DEFAULT_PARSE_TIMEOUT, Settings, UsageError, analyze_facts,
                     analyze_files, read_facts, rules_matching, select_rules)
from .facts_cache import DIRECTORY as CACHE_DIRECTORY, FactsCache, build_id
from .fileio import Refused, check_writable, same_file, write_whole
from .formats import FormatContext
from .merge import MergeError
from .models import ModelError
from .progress import Progress, wanted
from .registry import PluginError, load_formatters, load_rules
from .shard import ShardError

COMMANDS = {
    "check": "analyze C and C++ files (the default command: `mmaplint src/` is `mmaplint check src/`)",
    "rules": "list the installed rules",
    "explain": "print a rule's documentation: what, why it costs, what to use instead",
    "models": "list what calls of functions mmaplint does not analyze stand for (libc variants, plugins, config)",
    "confirm": "compile and run rules' reproducers here, to measure what a pattern costs",
    "corpus": "list the runtime reproducers",
    "merge": "run the rules once on the facts of every `check --shard K/N` (a CI matrix)",
}
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3    # and 128 + N: signal N (interrupts.py)
STATISTICS_FORMATS = ("text", "json")


def _comma_list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _overview() -> str:
    width = max(map(len, COMMANDS))
    commands = "\n".join(f"  {name.ljust(width)}  {text}" for name, text in COMMANDS.items())
    return (f"usage: mmaplint [COMMAND] [OPTIONS] [PATH ...]\n\n"
            "Find C/C++ I/O patterns that stall real kernels, and measure what they cost here.\n\n"
            f"commands:\n{commands}\n\n"
            "`mmaplint COMMAND --help` describes a command and its options; without a command,\n"
            "mmaplint checks the paths given (the current directory by default).\n\n"
            "options:\n  -h, --help   show this message\n  --version    print mmaplint's version\n")


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
    parsing.add_argument("-j", "--jobs", type=int, metavar="N", help="parallel jobs (default: CPU count)")
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
    _confirm_options(confirm)
    p.add_argument("--version", action="version", version=f"mmaplint {__version__}")
    return p


def _size(text: str) -> int:
    """A byte count with an optional K, M or G suffix (powers of 1024)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    number, unit = (text[:-1], units[text[-1].upper()]) if text and text[-1].upper() in units else (text, 1)
    try:
        return int(float(number) * unit)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a byte count such as 1G or 512M, not {text!r}") from None


def _confirm_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", default=".", help="where --confirm runs its reproducers (the "
                   "filesystem there decides the verdict; default: the current directory)")
    p.add_argument("--budget", type=float, default=30.0, metavar="SECONDS",
                   help="time per rule, build and warm-up included (default 30); the work is scaled "
                   "down to fit, and a run still going at the end is stopped")
    p.add_argument("--max-written", type=_size, default=1 << 30, metavar="BYTES",
                   help="bytes each rule's runs may write to the --dir filesystem (default 1G)")
    p.add_argument("--plot", metavar="FILE", help="draw each primary metric's two distributions to "
                   "FILE (.svg or .png; needs mmaplint[plot])")


def _confirm_settings(args, variants=("bad", "fixed")):
    from .confirm import Options
    return Options(directory=args.dir, budget=args.budget, max_written=args.max_written,
                   variants=variants, plot=args.plot)


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
    with progress:
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
        measured = measure_rules(list(requests.values()), _confirm_settings(args), meter, skip_unknown=True)
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


def run_rules(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mmaplint rules", description="List the installed rules.")
    p.add_argument("--format", choices=("text", "json"), default="text", help="a table (text) or JSON")
    args = p.parse_args(argv)
    rules = sorted(load_rules().values(), key=lambda r: r.id)
    if args.format == "json":
        import json
        print(json.dumps([{"id": r.id, "name": r.name, "severity": r.severity, "default": r.default,
                           "summary": r.summary, "reproducer": r.reproducer, "origin": r.origin}
                          for r in rules], indent=2))
        return EXIT_CLEAN
    rows = [("ID", "NAME", "SEVERITY", "DEFAULT", "SUMMARY")] + [
        (r.id, r.name, r.severity, "on" if r.default else "off", r.summary) for r in rules]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4])
    return EXIT_CLEAN


def run_explain(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mmaplint explain", description="Print a rule's documentation.")
    p.add_argument("rule", help="rule id (MML001) or name (msync-in-loop)")
    args = p.parse_args(argv)
    rules = load_rules()
    matches = [r for r in rules.values() if args.rule.upper() == r.id or args.rule == r.name]
    if not matches:
        raise UsageError(f"unknown rule {args.rule!r} (see `mmaplint rules`)")
    rule = matches[0]
    print(f"# {rule.id} {rule.name} ({rule.severity}{'' if rule.default else ', off by default'})\n")
    print(rule.doc)
    if rule.reproducer:
        print(f"\nReproducer: {rule.reproducer} (measure it here: {rule.confirm})")
    return EXIT_CLEAN


def run_models(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mmaplint models", description="List the models in force: what "
                                "calls of functions mmaplint does not analyze do (built-in, plugins', "
                                "the configuration's).")
    p.add_argument("--format", choices=("text", "json"), default="text", help="a table (text) or JSON")
    args = p.parse_args(argv)
    config = find_config()
    in_force = sorted(models.load(dict(config.models), config.source).values(), key=lambda m: m.name)
    if args.format == "json":
        print(json.dumps([{"function": m.name, "call": m.spec, "origin": m.origin} for m in in_force], indent=2))
        return EXIT_CLEAN
    width = max((len(m.name) for m in in_force), default=8)
    spec_width = max((len(m.spec) for m in in_force), default=4)
    for m in in_force:
        print(f"{m.name.ljust(width)}  is  {m.spec.ljust(spec_width)}  ({m.origin})")
    return EXIT_CLEAN


def run_confirm_command(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="mmaplint confirm", description="Compile and run rules' reproducers on this machine.",
        epilog="exit status: 0 measured, nothing CONFIRMED; 1 at least one rule CONFIRMED; 2 usage "
               "error or a rule that could not be measured; 128+N stopped by signal N (130 Ctrl-C)")
    p.add_argument("rules", nargs="+", metavar="RULE", help="rule ids whose reproducers to run (MML001)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a reproducer parameter (size=16M, fill=fault; see `mmaplint corpus list`)")
    p.add_argument("--variants", default="bad,fixed", metavar="A,B",
                   help="the two variants compared (default bad,fixed); fixed,fixed or bad,bad is an "
                   "A/A check of the harness, which must not find a cost")
    _confirm_options(p)
    args = p.parse_args(argv)
    from .confirm import ConfirmRequest, run_confirm
    params: dict[str, str] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise UsageError(f"--param {item!r}: expected NAME=VALUE")
        params[name.strip()] = value.strip()
    variants = tuple(v.strip() for v in args.variants.split(","))
    if len(variants) != 2:
        raise UsageError(f"--variants {args.variants}: expected two, such as bad,fixed or fixed,fixed")
    requests = [ConfirmRequest(r.upper(), dict(params)) for r in args.rules]
    return run_confirm(requests, _confirm_settings(args, variants), fmt=args.format)


def run_corpus(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mmaplint corpus", description="The runtime reproducers.")
    p.add_argument("action", choices=("list",), help="list: every reproducer and its rule")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    args = p.parse_args(argv)
    from .confirm import list_corpus
    return list_corpus(fmt=args.format)


def run_merge(argv: list[str]) -> int:
    return run_check(argv, merging=True)


HANDLERS = {"check": run_check, "rules": run_rules, "explain": run_explain, "models": run_models,
            "confirm": run_confirm_command, "corpus": run_corpus, "merge": run_merge}


def _command(argv: list[str]) -> tuple[str, list[str]]:
    """The command and its arguments: check unless the first word names another.  A first
    word that is neither a command nor an existing path, but close to a command, is a typo."""
    if argv and argv[0] in HANDLERS:
        return argv[0], argv[1:]
    word = argv[0] if argv else ""
    if word and not word.startswith("-") and not os.path.lexists(word) and not any(c in word for c in "/.\\"):
        close = difflib.get_close_matches(word, HANDLERS, n=1, cutoff=0.6)
        if close:
            raise UsageError(f"unknown command {word!r}; did you mean `mmaplint {close[0]}`? "
                             "(no file or directory of that name either)")
    return "check", argv


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(_overview(), end="")
        return EXIT_CLEAN
    try:
        command, rest = _command(argv)
        return HANDLERS[command](rest)
    except (UsageError, ConfigError, PluginError, DiffError, BaselineError, ShardError,
            MergeError, ModelError) as exc:
        print(f"mmaplint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as interrupt:
        print("mmaplint: interrupted", file=sys.stderr)
        return interrupts.exit_code(interrupt)
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as exc:   # noqa: BLE001 - a bug of mmaplint's: one line, and a code of its own
        print(f"mmaplint: internal error ({type(exc).__name__}: {' '.join(str(exc).split())}) at "
              f"{_where(exc)}; please report it", file=sys.stderr)
        return EXIT_INTERNAL


def _where(exc: Exception) -> str:
    """The innermost line of mmaplint's own code the exception went through (file:line)."""
    root = os.path.dirname(os.path.abspath(sys.modules["mmaplint"].__file__))
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [frame for frame in frames if os.path.abspath(frame.filename).startswith(root + os.sep)]
    frame = (ours or frames)[-1]
    return f"{os.path.relpath(frame.filename, root) if ours else frame.filename}:{frame.lineno}"

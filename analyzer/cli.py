"""The `mmaplint` command line.

    mmaplint [check] PATHS...      analyze (the default command)
    mmaplint --confirm PATHS...    analyze, then measure each rule found with its reproducer
    mmaplint confirm MML001        run one rule's reproducer alone
    mmaplint corpus list           the reproducers
    mmaplint rules                 the rules, as a table
    mmaplint explain MML001        one rule's documentation
    mmaplint models                what calls of functions mmaplint does not analyze do
    mmaplint merge A.sarif B.sarif -o OUT.sarif   join SARIF logs (one per --shard) into one run
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from mmaplint import __version__

from . import baseline, fingerprints, models, shard
from .baseline import BaselineError
from .changed_lines import DiffError, changed_lines, on_changed_lines
from .config import FRONTENDS, ConfigError, find_config
from .engine import Settings, UsageError, analyze, discover, rules_matching, select_rules
from .formats import FormatContext
from .merge import MergeError, merge
from .models import ModelError
from .registry import PluginError, load_formatters, load_rules
from .shard import ShardError

COMMANDS = ("check", "rules", "explain", "models", "confirm", "corpus", "merge")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _comma_list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _check_parser(formats: list[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mmaplint", description="Find C/C++ I/O patterns that stall "
                                "real kernels, and measure what they cost here.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to analyze")
    p.add_argument("--format", default="text", choices=formats, help="output format")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    p.add_argument("--select", type=_comma_list, metavar="RULES",
                   help="rules to run (ids, id prefixes or names, comma-separated)")
    p.add_argument("--ignore", type=_comma_list, default=None, metavar="RULES", help="rules to skip")
    p.add_argument("--frontend", choices=FRONTENDS, help="auto (default): clang when the file "
                   "parses without errors, else tree-sitter; fast: clang only for files with a "
                   "compile_commands.json entry, tree-sitter for the rest (pre-commit hooks)")
    p.add_argument("-p", "--compile-commands", metavar="PATH",
                   help="compile_commands.json or the directory holding it")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-j", "--jobs", type=int, metavar="N", help="parallel jobs (default: CPU count)")
    p.add_argument("--max-file-size", type=int, metavar="BYTES", help="skip larger files")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say per file which frontend ran and why")
    p.add_argument("--confirm", action="store_true",
                   help="after the check, run each found rule's reproducer here")
    p.add_argument("--diff", metavar="REF", help="report only findings on lines changed since "
                   "the git revision REF (work tree against REF)")
    p.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE "
                   "(matched by fingerprint, so moved code stays quiet)")
    p.add_argument("--write-baseline", action="store_true",
                   help="record this run's findings in the --baseline FILE first")
    p.add_argument("--shard", metavar="K/N", help="analyze only the K-th of N deterministic parts "
                   "of the files (a CI matrix; join the SARIF with `mmaplint merge`)")
    _confirm_options(p)
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
        max_file_size=next((size for size in (args.max_file_size, config.max_file_size)
                            if size is not None), Settings.max_file_size),
        models=config.models,
        models_source=config.source,
    )


def run_check(argv: list[str]) -> int:
    formatters = load_formatters()
    args = _check_parser(sorted(formatters)).parse_args(argv)
    if not args.paths:
        raise UsageError("no paths given (try `mmaplint check src/`)")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.write_baseline and not args.baseline:
        raise UsageError("--write-baseline needs --baseline FILE")
    if args.max_file_size is not None and args.max_file_size < 1:
        raise UsageError("--max-file-size must be a positive number of bytes")
    if args.plot and not args.confirm:
        raise UsageError("--plot draws what --confirm measures: add --confirm")
    if args.compile_commands and not os.path.exists(args.compile_commands):
        raise UsageError(f"-p {args.compile_commands}: no such file or directory")
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
    paths = args.paths
    if args.shard:
        found, missing = discover(args.paths)
        part, count = shard.parse(args.shard)
        # paths that do not exist are reported once, by the first shard
        paths = shard.select(found, part, count) + ([e.path for e in missing] if part == 1 else [])
    changed = changed_lines(args.diff, discover(paths)[0]) if args.diff else None
    recorded = baseline.read(args.baseline) if args.baseline and not args.write_baseline else None
    out = _open_output(args.output)
    report = analyze(paths, settings, rules)
    prints = fingerprints.compute(report.findings, root)
    if changed is not None:
        report.findings = on_changed_lines(report.findings, changed)
    if args.write_baseline:
        baseline.write(args.baseline, report.findings, prints, root, __version__)
        print(f"mmaplint: recorded {len(report.findings)} findings in {args.baseline}", file=sys.stderr)
        recorded = set(prints.values())
    if recorded is not None:
        report.findings = baseline.new_findings(report.findings, prints, recorded)
    if args.verbose:
        if config.source:
            print(f"mmaplint: configuration from {config.source}", file=sys.stderr)
        for path in report.analyzed:
            print(f"{path}: {report.frontends[path]}", file=sys.stderr)
    extra = {"argv": argv, fingerprints.CONTEXT_KEY: prints}
    confirmed = _confirm_findings(report, args, extra) if args.confirm and report.findings else EXIT_CLEAN
    try:
        context = FormatContext(rules=available, color=_use_color(args.color, out) and not args.output,
                                root=root, extra=extra)
        out.write(formatters[args.format](report, context))
    finally:
        if args.output:
            out.close()
    if confirmed:
        return confirmed
    if not report.analyzed and (paths or not args.shard):   # an empty shard is not an error
        return EXIT_ERROR
    return EXIT_FINDINGS if report.findings and not args.exit_zero else EXIT_CLEAN


def _open_output(path: str | None):
    """The report's destination, opened before the analysis so that a bad -o fails fast."""
    if path is None:
        return sys.stdout
    try:
        return open(path, "w", encoding="utf-8")
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
    p.add_argument("--format", choices=("text", "json"), default="text")
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
    p.add_argument("--format", choices=("text", "json"), default="text")
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
    p.add_argument("rules", nargs="+", metavar="RULE")
    p.add_argument("--format", choices=("text", "json"), default="text")
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
    p.add_argument("action", choices=("list",))
    p.add_argument("--format", choices=("text", "json"), default="text")
    args = p.parse_args(argv)
    from .confirm import list_corpus
    return list_corpus(fmt=args.format)


def run_merge(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mmaplint merge", description="Join mmaplint SARIF logs "
                                "(one per --shard) into one run.")
    p.add_argument("logs", nargs="+", metavar="SARIF")
    p.add_argument("-o", "--output", metavar="FILE", help="write the merged log to FILE")
    args = p.parse_args(argv)
    text = json.dumps(merge(args.logs), indent=2) + "\n"
    if not args.output:
        sys.stdout.write(text)
        return EXIT_CLEAN
    try:
        with open(args.output, "w", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        raise MergeError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return EXIT_CLEAN


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv and argv[0] in COMMANDS else "check"
    if argv and argv[0] == command:
        argv = argv[1:]
    handler = {"check": run_check, "rules": run_rules, "explain": run_explain, "models": run_models,
               "confirm": run_confirm_command, "corpus": run_corpus, "merge": run_merge}[command]
    try:
        return handler(argv)
    except (UsageError, ConfigError, PluginError, DiffError, BaselineError, ShardError,
            MergeError, ModelError) as exc:
        print(f"mmaplint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("mmaplint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_ERROR

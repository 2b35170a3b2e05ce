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
import sys
import traceback

from mmaplint import __version__

from . import interrupts
from .confirm_options import add_confirm_options, confirm_settings
from .errors import UsageError, UserError
from .exit_status import EXIT_CLEAN, EXIT_ERROR, EXIT_INTERNAL

COMMANDS = {
    "check": "analyze C and C++ files (the default command: `mmaplint src/` is `mmaplint check src/`)",
    "rules": "list the installed rules",
    "explain": "print a rule's documentation: what, why it costs, what to use instead",
    "models": "list what calls of functions mmaplint does not analyze stand for (libc variants, plugins, config)",
    "confirm": "compile and run rules' reproducers here, to measure what a pattern costs",
    "corpus": "list the runtime reproducers",
    "merge": "run the rules once on the facts of every `check --shard K/N` (a CI matrix)",
}


def _overview() -> str:
    width = max(map(len, COMMANDS))
    commands = "\n".join(f"  {name.ljust(width)}  {text}" for name, text in COMMANDS.items())
    return (f"usage: mmaplint [COMMAND] [OPTIONS] [PATH ...]\n\n"
            "Find C/C++ I/O patterns that stall real kernels, and measure what they cost here.\n\n"
            f"commands:\n{commands}\n\n"
            "`mmaplint COMMAND --help` describes a command and its options; without a command,\n"
            "mmaplint checks the paths given (the current directory by default).\n\n"
            "options:\n  -h, --help   show this message\n  --version    print mmaplint's version\n")


def run_rules(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mmaplint rules", description="List the installed rules.")
    p.add_argument("--format", choices=("text", "json"), default="text", help="a table (text) or JSON")
    args = p.parse_args(argv)
    from .registry import load_rules
    rules = sorted(load_rules().values(), key=lambda r: r.id)
    if args.format == "json":
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
    from .registry import load_rules
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
    from . import models
    from .config import find_config
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
    add_confirm_options(p)
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
    return run_confirm(requests, confirm_settings(args, variants), fmt=args.format)


def run_corpus(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mmaplint corpus", description="The runtime reproducers.")
    p.add_argument("action", choices=("list",), help="list: every reproducer and its rule")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    args = p.parse_args(argv)
    from .confirm import list_corpus
    return list_corpus(fmt=args.format)


def run_check(argv: list[str]) -> int:
    from .check_command import run_check
    return run_check(argv)


def run_merge(argv: list[str]) -> int:
    from .check_command import run_merge
    return run_merge(argv)


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
    if argv == ["--version"]:       # before the analyzer is imported: a start-up to measure
        print(f"mmaplint {__version__}")
        return EXIT_CLEAN
    try:
        command, rest = _command(argv)
        return HANDLERS[command](rest)
    except UserError as exc:
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

"""Speed and memory of mmaplint on a real code base, beside libclang's parse alone.

    python tests/realworld/benchmark.py [--cache DIR] [--repeat N] [--package fio]

Fetches Debian's fio source (like measure.py), configures it and builds it once under
`bear` for compile_commands.json, then, one job, file by file and side by side:
  parse only   libclang parsing each translation unit with the arguments mmaplint uses;
  clang mode   mmaplint's clang frontend on the same file (parse + facts);
  tree-sitter  mmaplint's tree-sitter frontend on the same file;
and a whole run (`analyze`, all rules) per mode, in a child process, for peak memory.
Prints lines/s and ratios.  A script that prints figures, never a test.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from clang.cindex import Index

from mmaplint.analyzer.compdb import CompilationDatabase
from mmaplint.analyzer.engine import Settings, language_of, parse_file, select_rules
from mmaplint.analyzer.facts import FileFacts, FrontendOptions
from mmaplint.analyzer.frontends.clang import compile_arguments
from mmaplint.analyzer.registry import load_rules

from measure import BUILDS, DEFAULT_CACHE, build
from sources import Apt, FetchError, fetch

WHOLE_RUN = """
import json, resource, sys, time
from mmaplint.analyzer.engine import Settings, analyze
paths, frontend, database = json.loads(sys.argv[1])
start = time.perf_counter()
report = analyze(paths, Settings(frontend=frontend, jobs=1, compile_commands=database))
print(json.dumps({"seconds": time.perf_counter() - start, "findings": len(report.findings),
                  "errors": len(report.errors),
                  "peak_mib": max(resource.getrusage(who).ru_maxrss    # files parse in workers
                                  for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024}))
"""


def best_of(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--package", default="fio", choices=sorted(BUILDS))
    parser.add_argument("--repeat", type=int, default=3, help="runs per file; the best counts")
    args = parser.parse_args(argv)
    try:
        source = fetch(args.package, args.cache, Apt(args.cache))
        database_path = build(source.root, BUILDS[args.package], jobs=2)
    except FetchError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2
    database = CompilationDatabase()
    entries = json.loads(database_path.read_text())
    files = sorted({str((Path(e["directory"]) / e["file"]).resolve()) for e in entries
                    if e["file"].endswith(".c")})
    rules = select_rules(load_rules(), None, ())
    callees = frozenset().union(*(r.callees for r in rules))
    index = Index.create()
    totals = {"parse only": 0.0, "clang mode": 0.0, "tree-sitter": 0.0}
    lines = clang_files = 0
    for path in files:
        compile_args = database.arguments(path, str(database_path))
        options = FrontendOptions(compile_args=compile_args, language=language_of(path))
        arguments = compile_arguments(options)
        clang_run = parse_file(path, Settings(frontend="clang"), callees, compile_args)
        if not isinstance(clang_run, FileFacts):
            continue          # clang cannot parse it alone: not a like-for-like file
        clang_files += 1
        lines += clang_run.lines
        totals["parse only"] += best_of(args.repeat, lambda: index.parse(path, arguments))
        totals["clang mode"] += best_of(args.repeat, lambda: parse_file(
            path, Settings(frontend="clang"), callees, compile_args))
        totals["tree-sitter"] += best_of(args.repeat, lambda: parse_file(
            path, Settings(frontend="tree-sitter"), callees))
    print(f"{args.package} {source.version}: {clang_files} of {len(files)} translation units "
          f"parse with clang alone; {lines:,} lines; best of {args.repeat} per file, one job")
    print(f"{'mode':<14}{'seconds':>10}{'lines/s':>12}{'vs parse only':>16}")
    for mode, seconds in totals.items():
        print(f"{mode:<14}{seconds:>10.2f}{lines / seconds:>12,.0f}"
              f"{seconds / totals['parse only']:>15.2f}x")
    print("\nwhole run (analyze, all default rules, one job), in a child process:")
    for frontend in ("clang", "tree-sitter"):
        done = subprocess.run([sys.executable, "-c", WHOLE_RUN,
                               json.dumps([files, frontend, str(database_path)])],
                              capture_output=True, text=True, check=True)
        result = json.loads(done.stdout)
        print(f"  {frontend:<12} {result['seconds']:7.2f} s  peak {result['peak_mib']:6.0f} MiB  "
              f"{result['findings']} findings, {result['errors']} errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())

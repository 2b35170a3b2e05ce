"""The figures of issue 19 (speed), each as whole processes run side by side.

    python tests/realworld/benchmark.py [--cache DIR] [--runs N] [--sections clang,tree-sitter,...]
        [--tree DIR] [--package fio]

Fetches Debian's fio source (like measure.py) and builds it once under `bear` for its
compile_commands.json.  Every figure is a pair of commands, each a whole Python process
with cyclic garbage collection on (its start-up included), run in turn A, B, A, B, ... N
times; a ratio is taken pair by pair (so that a machine whose speed drifts slows both
alike) and printed as its median with the smallest and largest.  CPU is user + system of
the process and the workers it waited for.  The sections:

  clang        the clang frontend's facts for every translation unit of the database,
               against the parse floor: libclang's Index.parse of the same files with
               mmaplint's own arguments, nothing else (and `mmaplint check` with clang)
  tree-sitter  the tree-sitter frontend's facts for every C/C++ file of the tree, in
               lines per CPU second, against tree-sitter's bare parse of the same files
  jobs         `mmaplint check -j 2` against -j 1, wall time, for both frontends
               (on --tree, default the package's tree)
  rules        `mmaplint merge -j 1` (load the facts, build the program, run every rule) of
               the tree copied four times against the same of one copy (tree-sitter facts,
               written once beforehand)
  imports      `python -m mmaplint --version` against `python -c pass`: what importing
               mmaplint adds to a process; and one file checked with --frontend fast

A script that prints figures, never a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from interleaved import whole_process
from measure import BUILDS, DEFAULT_CACHE, build, count_lines
from sources import Apt, FetchError, fetch

SECTIONS = ("clang", "tree-sitter", "jobs", "rules", "imports")
SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp")
HERE = Path(__file__).resolve()


# The children: one job each, in a process of their own.

def _database_files(database: str) -> list[tuple[str, tuple[str, ...]]]:
    """(file, its arguments) of every C entry of the compilation database."""
    from mmaplint.analyzer.compdb import CompilationDatabase
    compdb = CompilationDatabase()
    entries = json.loads(Path(database).read_text())
    files = sorted({str((Path(e["directory"]) / e["file"]).resolve()) for e in entries if e["file"].endswith(".c")})
    return [(path, compdb.arguments(path, database)) for path in files]


def child_parse_floor(database: str) -> None:
    from clang.cindex import Index
    from mmaplint.analyzer.discovery import language_of
    from mmaplint.analyzer.facts import FrontendOptions
    from mmaplint.analyzer.frontends.clang import compile_arguments
    index = Index.create()
    for path, compile_args in _database_files(database):
        arguments = compile_arguments(FrontendOptions(compile_args=compile_args, language=language_of(path)))
        index.parse(path, arguments, unsaved_files=[(path, Path(path).read_bytes())])


def child_clang_facts(database: str) -> None:
    from mmaplint.analyzer.engine import Settings, parse_file
    from mmaplint.analyzer.facts import EVERY_CALL
    settings = Settings(frontend="clang", jobs=1)
    for path, compile_args in _database_files(database):
        parse_file(path, settings, frozenset({EVERY_CALL}), compile_args)


def child_tree_sitter_floor(listing: str) -> None:
    """One parse of each file, by the grammar its suffix names (.h as C), nothing else."""
    import tree_sitter_c
    import tree_sitter_cpp
    from tree_sitter import Language, Parser
    parsers = {"c": Parser(Language(tree_sitter_c.language())), "c++": Parser(Language(tree_sitter_cpp.language()))}
    for path in Path(listing).read_text().splitlines():
        parsers["c" if path.endswith((".c", ".h")) else "c++"].parse(Path(path).read_bytes())


def child_tree_sitter_facts(listing: str) -> None:
    from mmaplint.analyzer.engine import Settings, parse_file
    from mmaplint.analyzer.facts import EVERY_CALL
    settings = Settings(frontend="tree-sitter", jobs=1)
    for path in Path(listing).read_text().splitlines():
        parse_file(path, settings, frozenset({EVERY_CALL}))


CHILDREN = {"parse-floor": child_parse_floor, "clang-facts": child_clang_facts,
            "tree-sitter-floor": child_tree_sitter_floor, "tree-sitter-facts": child_tree_sitter_facts}


# The parent: pairs of whole processes, in turn.

def one_run(command: list[str], cwd: str | None = None) -> dict:
    """One whole process (interleaved.whole_process); one that fails ends the benchmark."""
    result = whole_process(command, cwd)
    if result["status"] not in (0, 1):     # 1: findings
        raise SystemExit(f"benchmark: {' '.join(command)} exited {result['status']}: {result['error'][-500:]}")
    return result


def _spread(values: list[float], unit: str = "") -> str:
    return f"{statistics.median(values):.2f}{unit} [{min(values):.2f}-{max(values):.2f}]"


def side_by_side(title: str, a: tuple[str, list[str]], b: tuple[str, list[str]], runs: int,
                 measure: str = "cpu", cwd: str | None = None) -> dict:
    """A and B in turn, `runs` times each after one warm-up pair; prints both and A/B."""
    one_run(a[1], cwd), one_run(b[1], cwd)
    results: dict[str, list[dict]] = {a[0]: [], b[0]: []}
    for round_ in range(runs):
        for name, command in ((a, b) if round_ % 2 == 0 else (b, a)):
            results[name].append(one_run(command, cwd))
    ratios = [x[measure] / y[measure] for x, y in zip(results[a[0]], results[b[0]])]
    print(f"\n{title} ({runs} runs each, interleaved; median [min-max])")
    for name, rows in results.items():
        print(f"  {name:<34} wall {_spread([r['wall'] for r in rows], ' s'):<22}"
              f" CPU {_spread([r['cpu'] for r in rows], ' s'):<22} peak {max(r['rss'] for r in rows):5.0f} MiB")
    print(f"  {measure} {a[0]} / {b[0]}: {_spread(ratios, 'x')}")
    return {"ratios": ratios, **{name: rows for name, rows in results.items()}}


def _child(mode: str, argument: str) -> list[str]:
    return [sys.executable, str(HERE), "--child", mode, argument]


def _mmaplint(*args: str) -> list[str]:
    return [sys.executable, "-m", "mmaplint", *args]


def _tree_files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def _copies(root: Path, into: Path, count: int) -> list[Path]:
    """`count` copies of the tree's sources under `into` (made once)."""
    made = []
    for k in range(1, count + 1):
        copy = into / f"copy{k}"
        if not copy.exists():
            for path in _tree_files(root):
                target = copy / Path(path).relative_to(root)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        made.append(copy)
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--package", default="fio", choices=sorted(BUILDS))
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"some of {','.join(SECTIONS)}")
    parser.add_argument("--tree", type=Path, help="the tree for the jobs section (default: the package's)")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "ARGUMENT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        CHILDREN[args.child[0]](args.child[1])
        return 0
    sections = args.sections.split(",")
    if not set(sections) <= set(SECTIONS):
        parser.error(f"--sections: choose among {','.join(SECTIONS)}")
    try:
        source = fetch(args.package, args.cache, Apt(args.cache))
        database = str(build(source.root, BUILDS[args.package], jobs=2))
    except FetchError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="mmaplint-benchmark-"))
    try:
        files = _tree_files(source.root)
        listing = work / "files"
        listing.write_text("\n".join(files))
        units = [path for path, _ in _database_files(database)]
        print(f"{args.package} {source.version}: {len(files)} C/C++ files, {count_lines(files):,} lines; "
              f"{len(units)} translation units in compile_commands.json ({count_lines(units):,} lines); "
              f"mmaplint {subprocess.run(_mmaplint('--version'), capture_output=True, text=True).stdout.strip()}"
              f" at {subprocess.run(['git', '-C', str(HERE.parent), 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}")
        check = ("check", "--no-cache", "--exit-zero", "-q")
        if "clang" in sections:
            side_by_side("clang frontend, facts of every translation unit, one job, vs libclang's parse",
                         ("clang facts", _child("clang-facts", database)),
                         ("parse floor", _child("parse-floor", database)), args.runs)
            side_by_side("`mmaplint check --frontend clang -p` of those files (all rules), one job, vs the parse",
                         ("check clang -j1", _mmaplint(*check, "--frontend", "clang", "-j", "1", "-p", database, *units)),
                         ("parse floor", _child("parse-floor", database)), args.runs)
        if "tree-sitter" in sections:
            lines = count_lines(files)
            found = side_by_side("tree-sitter frontend, facts of every file of the tree, one job, vs tree-sitter's parse",
                                 ("tree-sitter facts", _child("tree-sitter-facts", str(listing))),
                                 ("tree-sitter parse", _child("tree-sitter-floor", str(listing))), args.runs)
            cpu = [r["cpu"] for r in found["tree-sitter facts"]]
            print(f"  tree-sitter facts: {lines / statistics.median(cpu):,.0f} lines per CPU second "
                  f"[{lines / max(cpu):,.0f}-{lines / min(cpu):,.0f}], start-up included")
        if "jobs" in sections:
            tree = str(args.tree or source.root)
            for frontend, extra in (("tree-sitter", ()), ("clang", ("-p", database))):
                side_by_side(f"`mmaplint check --frontend {frontend}` of {tree}: -j 2 vs -j 1, wall",
                             ("-j 1", _mmaplint(*check, "--frontend", frontend, "-j", "1", *extra, tree)),
                             ("-j 2", _mmaplint(*check, "--frontend", frontend, "-j", "2", *extra, tree)),
                             args.runs, measure="wall")
        if "rules" in sections:
            copies = _copies(source.root, work / "copies", 4)
            shards = {}
            for name, trees in (("one copy", copies[:1]), ("four copies", copies)):
                shards[name] = str(work / f"{len(trees)}.facts")
                subprocess.run(_mmaplint("check", "--no-cache", "--frontend", "tree-sitter", "--shard", "1/1",
                                         "-o", shards[name], *map(str, trees)), check=True, capture_output=True)
            # one job: how the phase grows with the code, which rule workers would hide (four
            # copies are large enough for them, one is not)
            merge = ("merge", "-q", "--exit-zero", "--frontend", "tree-sitter", "-j", "1")
            side_by_side("whole-program phase (`mmaplint merge -j 1`: load facts, program, every rule), tree x4 vs x1",
                         ("four copies", _mmaplint(*merge, shards["four copies"])),
                         ("one copy", _mmaplint(*merge, shards["one copy"])),
                         args.runs)
        if "imports" in sections:
            found = side_by_side("start-up: `python -m mmaplint --version` vs `python -c pass`",
                                 ("mmaplint --version", _mmaplint("--version")),
                                 ("python -c pass", [sys.executable, "-c", "pass"]), args.runs * 2, measure="wall")
            added = [x["wall"] - y["wall"] for x, y in zip(found["mmaplint --version"], found["python -c pass"])]
            print(f"  importing mmaplint adds {_spread([1000 * a for a in added], ' ms')} of wall time")
            one = next(f for f in units)
            side_by_side(f"one file, `mmaplint check --frontend fast` ({Path(one).name}) vs `mmaplint --version`",
                         ("check one file", _mmaplint(*check, "--frontend", "fast", one)),
                         ("mmaplint --version", _mmaplint("--version")), args.runs, measure="wall")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

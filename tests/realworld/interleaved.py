"""Whole-run time and peak memory of two or more mmaplint installations on one source tree,
run interleaved (A, B, A, B, ...) so that a busy machine slows each about alike.

    python tests/realworld/interleaved.py --tree DIR --python BASE_PY --python NEW_PY \\
        [--repeat 5] [--jobs 1] [--frontend tree-sitter] [-- extra check arguments]

Each run is `PY -m mmaplint check --frontend F -j N DIR-relative .` in DIR, its output
discarded; the child's wall time, CPU time (user + system, its workers included) and peak
resident memory (the largest of the process and its workers, from wait4) are recorded.
Prints per installation the mean, min and max of each, the findings line of the last run,
and each installation's mean against the first's.  A script that prints figures, never a
test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


# Children run as an installation runs: with their bytecode compiled (the first run writes
# it), whatever this process was started with.
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def whole_process(command: list[str], cwd: str | None = None) -> dict:
    """One whole process: its wall time, CPU time (user + system, the children it waited for
    included), peak resident memory (the largest of it and its reaped children), exit
    status and the last line it printed."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, env=ENVIRONMENT, stdout=subprocess.PIPE, stderr=errors)
        out = child.stdout.read().decode(errors="replace")
        _, status, usage = os.wait4(child.pid, 0)      # reaped here, for its resource usage
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        error = errors.read().decode(errors="replace")
    last = next((line for line in reversed(out.splitlines()) if line.strip()), "")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "last": last, "status": child.returncode, "error": error}


def one_run(python: str, tree: str, frontend: str, jobs: int | None, extra: list[str]) -> dict:
    command = [python, "-m", "mmaplint", "check", "--frontend", frontend]
    if jobs is not None:
        command += ["-j", str(jobs)]
    return whole_process([*command, *extra, "."], cwd=tree)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", required=True, help="the source tree to check")
    parser.add_argument("--python", action="append", required=True,
                        help="an interpreter with mmaplint installed (give two or more)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per installation")
    parser.add_argument("--jobs", type=int, default=None, help="-j; the CPU count when not given")
    parser.add_argument("--frontend", default="tree-sitter")
    parser.add_argument("extra", nargs="*", help="more `check` arguments (after --)")
    args = parser.parse_args(argv)
    runs: dict[str, list[dict]] = {python: [] for python in args.python}
    for round_ in range(args.repeat):
        for python in args.python:
            result = one_run(python, args.tree, args.frontend, args.jobs, args.extra)
            runs[python].append(result)
            print(f"  round {round_ + 1} {python}: {result['wall']:.2f} s wall, {result['cpu']:.2f} s CPU, "
                  f"{result['rss']:.0f} MiB", file=sys.stderr)
    jobs = args.jobs if args.jobs is not None else "default"
    print(f"{args.tree}: --frontend {args.frontend}, -j {jobs}, {args.repeat} interleaved runs each")
    print(f"{'installation':<28}{'wall mean':>10}{'min':>7}{'max':>7}{'CPU mean':>10}{'min':>7}{'max':>7}"
          f"{'peak MiB':>10}{'vs first (wall, CPU)':>22}")
    first = None
    for python, results in runs.items():
        wall = [r["wall"] for r in results]
        cpu = [r["cpu"] for r in results]
        rss = max(r["rss"] for r in results)
        means = (statistics.mean(wall), statistics.mean(cpu))
        first = first or means
        print(f"{python[-28:]:<28}{means[0]:>10.2f}{min(wall):>7.2f}{max(wall):>7.2f}{means[1]:>10.2f}"
              f"{min(cpu):>7.2f}{max(cpu):>7.2f}{rss:>10.0f}"
              f"{means[0] / first[0]:>13.2f}x{means[1] / first[1]:>7.2f}x")
        statuses = {r["status"] for r in results}
        print(f"    exit {sorted(statuses)}; last line: {results[-1]['last']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

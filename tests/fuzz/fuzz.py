"""The long fuzz run (not part of the test suite; tests/test_fuzz.py is its bounded version).

    python tests/fuzz/fuzz.py [--seed N] [--runs N] [--batch N] [-j N] [--timeout S]
                              [--frontends auto,clang,tree-sitter] [--keep DIR]

Each run is one mutant of the fixtures (tests/fuzz/mutants.py) analyzed by `mmaplint check
--format json`; the frontends are taken in turn, and --batch mutants of one frontend share a
process (one process per mutant spends most of its time starting Python).  A batch is
- a crash when it prints a traceback, exits with another code than 0, 1 or 2, prints anything
  but a JSON report, or leaves a mutant unaccounted for (neither analyzed nor an error line);
- a hang when it is still running after --timeout (mmaplint's per-file parse timeout) times
  its size, and a minute;
and its mutants are then run one by one to tell which did it.  The report's error lines count
the files mmaplint skipped of its own accord: over the parse timeout, a frontend that crashed
(its worker died), an internal error; the last two are bugs, listed one by one.  Peak memory
is the largest resident size of a batch's process tree (wait4).  The mutants of crashes, hangs
and those bugs are copied to --keep.  Prints the totals (also when interrupted); exits 1 when
there was a crash or a hang.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mutants import mutants     # this script's own directory is the first on sys.path

# what the report's error lines say when mmaplint skipped a file of its own accord
HANDLED = {"took longer than": "parse timeouts", "frontend crashed": "frontend crashes",
           "internal error": "internal errors", "needed more than": "over the memory budget"}
BUGS = ("frontend crashes", "internal errors")     # listed one by one, and kept with --keep


def run_batch(batch: list[tuple[str, bytes]], frontend: str, timeout: float) -> dict:
    """One mmaplint process on the batch's mutants: its verdict, the handled errors, its peak."""
    with tempfile.TemporaryDirectory(prefix="mmaplint-fuzz-") as directory:
        for name, data in batch:
            Path(directory, name).write_bytes(data)
        out, err = Path(directory, ".out.json"), Path(directory, ".err.txt")
        names = [name for name, _ in batch]
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "mmaplint", "check", "-v", "--no-cache", "--frontend", frontend,
                 "--format", "json", "--parse-timeout", str(timeout), "-j", "1", *names],
                cwd=directory, stdout=stdout, stderr=stderr)
            fired = threading.Event()
            killer = threading.Timer(timeout * len(batch) + 60, lambda: (fired.set(), process.kill()))
            killer.start()
            _, status, usage = os.wait4(process.pid, 0)
            killer.cancel()
        code = os.waitstatus_to_exitcode(status)
        text = err.read_text(errors="replace")
        result = {"frontend": frontend, "names": names, "maxrss": usage.ru_maxrss * 1024, "handled": [],
                  "stderr": text}
        if fired.is_set():
            result["verdict"] = "hang"
            return result
        try:
            report = json.loads(out.read_text())
            errors = {error["path"]: error["message"] for error in report["errors"]}
        except (ValueError, KeyError, TypeError):
            report, errors = None, {}
        analyzed = {line.split(": ", 1)[0] for line in text.splitlines()
                    if line.split(": ", 1)[-1].startswith(("clang", "tree-sitter"))}   # -v
        if "Traceback" in text or code not in (0, 1, 2) or report is None or set(names) - analyzed - set(errors):
            result["verdict"] = "crash"
            return result
        result["handled"] = [(what, path, message) for path, message in errors.items()
                             for key, what in HANDLED.items() if key in message]
        result["verdict"] = "ok"
        return result


def run(batch: list[tuple[str, bytes]], frontend: str, timeout: float, keep: Path | None) -> list[dict]:
    """The batch's results; a batch that crashed or hung is run again one mutant at a time."""
    result = run_batch(batch, frontend, timeout)
    if result["verdict"] == "ok" or len(batch) == 1:
        results = [result]
    else:
        results = [run_batch([one], frontend, timeout) for one in batch]
    if keep is not None:
        sources = dict(batch)
        for found in results:
            if found["verdict"] != "ok" and len(found["names"]) == 1:
                name = found["names"][0]
                _keep(keep, f"{found['verdict']}-{frontend}-{name}", sources[name], found["stderr"])
            for what, name, message in found["handled"]:
                if what in BUGS:
                    _keep(keep, f"{what.split()[-1]}-{frontend}-{name}", sources[name], message + "\n")
    return results


def _keep(keep: Path, name: str, data: bytes, why: str) -> None:
    keep.mkdir(parents=True, exist_ok=True)
    (keep / name).write_bytes(data)
    (keep / f"{name}.txt").write_text(why)


def totals(results: list[dict], frontends: list[str], seed: int, seconds: float) -> str:
    runs = Counter(found["frontend"] for found in results for _ in found["names"])
    bad = Counter(found["verdict"] for found in results if len(found["names"]) == 1 and found["verdict"] != "ok")
    handled = Counter(what for found in results for what, _, _ in found["handled"])
    peak = max(results, key=lambda found: found["maxrss"], default=None)
    lines = [f"runs: {sum(runs.values())} (seed {seed}; " + ", ".join(f"{f} {runs[f]}" for f in frontends)
             + f") in {seconds:.0f} s",
             f"crashes: {bad['crash']}  hangs: {bad['hang']}",
             "files mmaplint skipped itself: "
             + (", ".join(f"{what} {n}" for what, n in sorted(handled.items())) or "none")]
    lines += [f"  {name} ({found['frontend']}): {message}" for found in results
              for what, name, message in found["handled"] if what in BUGS]
    if peak is not None:
        lines.append(f"peak memory: {peak['maxrss'] / 2**20:.0f} MiB (a {peak['frontend']} batch of "
                     f"{len(peak['names'])}, from {peak['names'][0]})")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3000, help="mutants")
    parser.add_argument("--batch", type=int, default=20, help="mutants per mmaplint process")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="mmaplint processes at a time")
    parser.add_argument("--timeout", type=float, default=20.0, help="mmaplint's --parse-timeout")
    parser.add_argument("--frontends", default="auto,clang,tree-sitter")
    parser.add_argument("--keep", type=Path, help="where to copy the mutants of crashes and hangs")
    args = parser.parse_args()
    frontends = args.frontends.split(",")
    started = time.monotonic()
    generated = mutants(args.seed, args.runs)
    batches = [(generated[i:i + args.batch], frontends[n % len(frontends)])
               for n, i in enumerate(range(0, len(generated), args.batch))]
    results: list[dict] = []
    pool = ThreadPoolExecutor(args.jobs)
    try:
        for number, found in enumerate(pool.map(lambda b: run(b[0], b[1], args.timeout, args.keep), batches), 1):
            results.extend(found)
            if number % 10 == 0:
                print(f"... {sum(len(r['names']) for r in results)} runs", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("interrupted: the totals so far", file=sys.stderr)
        pool.shutdown(wait=False, cancel_futures=True)
    print(totals(results, frontends, args.seed, time.monotonic() - started))
    return 1 if any(found["verdict"] != "ok" for found in results) else 0


if __name__ == "__main__":
    sys.exit(main())

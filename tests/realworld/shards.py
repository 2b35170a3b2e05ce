"""Sharded and unsharded runs find the same, on a real code base.

    python tests/realworld/shards.py [--package fio] [--shards 4] [--cache DIR]

Fetches the package's source (sources.py, as measure.py does), then from its tree runs
`mmaplint check` once, and again as N shards (`check --shard K/N -o sK.facts`) joined by
`mmaplint merge`, all with --frontend tree-sitter, --select ALL and --no-cache.  Prints both
counts and whether the findings (rule, path, line, column, fingerprint, related locations)
are the same; exits 1 when they are not.  A script that prints figures, never a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import DEFAULT_CACHE
from sources import Apt, FetchError, fetch

COMMON = ["--frontend", "tree-sitter", "--select", "ALL", "--no-cache"]


def mmaplint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # one hash seed for every run: which chain a finding shows, when several lead to its call,
    # may follow the order of a set of names (a question for the rules, not for sharding)
    done = subprocess.run([sys.executable, "-m", "mmaplint", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    if done.returncode not in (0, 1):
        raise SystemExit(f"mmaplint {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done


def findings(report: str) -> list[tuple]:
    return [(f["rule"], f["path"], f["line"], f["column"], f["fingerprint"],
             tuple((r["path"], r["line"]) for r in f["related"])) for f in json.loads(report)["findings"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="fio")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args(argv)
    try:
        source = fetch(args.package, args.cache, Apt(args.cache))
    except FetchError as exc:
        print(f"{args.package}: unavailable: {exc}", file=sys.stderr)
        return 2
    whole = findings(mmaplint("check", *COMMON, "--format", "json", ".", cwd=source.root).stdout)
    with tempfile.TemporaryDirectory(prefix="mmaplint-shards-") as directory:
        facts = [str(Path(directory) / f"s{k}.facts") for k in range(1, args.shards + 1)]
        for k, path in enumerate(facts, 1):
            mmaplint("check", *COMMON, "--shard", f"{k}/{args.shards}", "-o", path, ".", cwd=source.root)
        merged = findings(mmaplint("merge", "--select", "ALL", "--format", "json", *facts,
                                   cwd=source.root).stdout)
    print(f"{args.package} {source.version}: unsharded {len(whole)} findings; "
          f"{args.shards} shards merged {len(merged)} findings; identical: {merged == whole}")
    return 0 if merged == whole else 1


if __name__ == "__main__":
    sys.exit(main())

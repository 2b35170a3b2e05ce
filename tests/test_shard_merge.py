"""`--shard K/N` splits the files deterministically; `mmaplint merge` joins the shards'
SARIF into one run that matches an unsharded run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmaplint.analyzer.shard import select, shard_of

from mmaplint_cli import MSYNC_LOOP, mmaplint, sarif
from test_sarif import schema_errors

SHARDS = 3


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for n in range(8):
        (tmp_path / "src" / f"d{n % 2}").mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / f"d{n % 2}" / f"f{n}.c").write_text(
            MSYNC_LOOP.replace("copy_pages", f"copy_{n}"))
    return tmp_path


def _results(log: dict) -> set[tuple]:
    return {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["partialFingerprints"]["mmaplint/v1"]) for run in log["runs"] for r in run["results"]}


def test_shards_partition_the_files_whatever_their_order():
    files = [f"src/{d}/f{n}.c" for d in "abc" for n in range(20)]
    parts = [select(files, k, SHARDS) for k in range(1, SHARDS + 1)]
    assert sorted(f for part in parts for f in part) == sorted(files)
    assert all(parts)                      # 60 files: no shard is empty
    assert [select(files[::-1], k, SHARDS) for k in range(1, SHARDS + 1)] == [p[::-1] for p in parts]
    assert shard_of("./src/a/f1.c", SHARDS) == shard_of("src/a/f1.c", SHARDS)


def test_the_split_is_fixed_across_releases_and_machines():
    # A stable hash (not Python's seeded hash()): CI matrix jobs agree on every machine.
    # Shard = first 8 bytes of sha256(path), big-endian, mod N, plus 1, as from
    # `printf src/f0.c | sha256sum`.
    assert [shard_of(f"src/f{n}.c", 4) for n in range(8)] == [1, 2, 4, 2, 2, 1, 1, 4]


def test_merged_shards_equal_one_unsharded_run(tree: Path):
    whole = sarif("src", cwd=tree)
    logs = []
    for k in range(1, SHARDS + 1):
        done = mmaplint("check", "--frontend", "tree-sitter", "--format", "sarif", "--shard",
                        f"{k}/{SHARDS}", "-o", f"shard{k}.sarif", "src", cwd=tree)
        assert done.returncode in (0, 1), done.stderr
        logs.append(f"shard{k}.sarif")
    done = mmaplint("merge", *logs, "-o", "merged.sarif", cwd=tree)
    assert done.returncode == 0, done.stderr
    merged = json.loads((tree / "merged.sarif").read_text())
    assert len(merged["runs"]) == 1 and schema_errors(merged) == []
    assert _results(merged) == _results(whole) and len(_results(whole)) == 8
    run = merged["runs"][0]
    assert run["properties"]["analyzed"] == 8
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_an_empty_shard_is_clean(tree: Path):
    only = "src/d0/f0.c"
    empty = next(k for k in range(1, 5) if k != shard_of(only, 4))
    done = mmaplint("check", "--frontend", "tree-sitter", "--shard", f"{empty}/4", only, cwd=tree)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("value", ["0/3", "4/3", "x", "1/0", "2"])
def test_bad_shard_values(tree: Path, value: str):
    done = mmaplint("check", "--shard", value, "src", cwd=tree)
    assert done.returncode == 2
    assert done.stderr == f"mmaplint: error: --shard {value!r}: expected K/N with 1 <= K <= N, e.g. 2/4\n"


def test_merge_rejects_what_it_cannot_join(tree: Path, tmp_path: Path):
    (tree / "a.sarif").write_text(json.dumps(sarif("src/d0", cwd=tree)))
    (tree / "not.sarif").write_text("{}")
    foreign = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "clang-tidy"}}}]}
    (tree / "foreign.sarif").write_text(json.dumps(foreign))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "p.c").write_text(MSYNC_LOOP)
    (tree / "elsewhere.sarif").write_text(json.dumps(sarif("p.c", cwd=elsewhere)))
    for other, message in [("missing.sarif", "cannot read missing.sarif"),
                           ("not.sarif", "not.sarif is not a SARIF 2.1.0 log"),
                           ("foreign.sarif", "foreign.sarif holds a run of clang-tidy, not of mmaplint"),
                           ("elsewhere.sarif", "elsewhere.sarif has another %SRCROOT% than a.sarif")]:
        done = mmaplint("merge", "a.sarif", other, cwd=tree)
        assert done.returncode == 2
        assert done.stderr.startswith(f"mmaplint: error: {message}") and done.stderr.count("\n") == 1

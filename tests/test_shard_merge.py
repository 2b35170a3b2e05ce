"""`--shard K/N` splits the files deterministically and writes their facts; `mmaplint merge`
runs the rules once on every shard's facts, so calls across files are followed whichever
shard parsed them: the merged report is the unsharded one."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from mmaplint.analyzer.cli import main
from mmaplint.analyzer.shard import select, shard_of

from mmaplint_cli import MSYNC_LOOP

SHARDS = 3
HELPER = """\
#include <sys/mman.h>

void flush_page(char *page) {
    msync(page, 4096, MS_SYNC);
}
"""
CALLER = """\
void flush_page(char *page);

void write_all_{n}(char *map, long pages) {{
    for (long i = 0; i < pages; i++)
        flush_page(map + i * 4096);
}}
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    """A helper whose msync runs per iteration only through loops in other files, and files
    with a finding of their own."""
    (tmp_path / "src" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "lib" / "flush.c").write_text(HELPER)
    for n in range(6):
        (tmp_path / "src" / f"d{n % 2}").mkdir(exist_ok=True)
        text = CALLER.format(n=n) if n % 2 else MSYNC_LOOP.replace("copy_pages", f"copy_{n}")
        (tmp_path / "src" / f"d{n % 2}" / f"f{n}.c").write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def mmaplint(capsys):
    """The command line, run in this process from the working directory: exit code and output."""
    def run(*args: str) -> SimpleNamespace:
        code = main(list(args))
        captured = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err)
    return run


@pytest.fixture
def check(mmaplint):
    return lambda *args: mmaplint("check", "--frontend", "tree-sitter", "-j", "1", *args)


@pytest.fixture
def shards(check):
    def write(count: int, *args: str, prefix: str = "s") -> list[str]:
        written = []
        for k in range(1, count + 1):
            done = check("--shard", f"{k}/{count}", "-o", f"{prefix}{k}.facts", *args, "src")
            assert (done.returncode, done.stdout) == (0, ""), done.stderr
            written.append(f"{prefix}{k}.facts")
        return written
    return write


def findings(done) -> list[tuple]:
    assert done.returncode in (0, 1), done.stderr
    return [(f["rule"], f["path"], f["line"], f["fingerprint"],
             tuple((r["path"], r["line"]) for r in f["related"])) for f in json.loads(done.stdout)["findings"]]


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


def test_merged_shards_equal_one_unsharded_run(tree: Path, check, mmaplint, shards):
    whole = findings(check("--format", "json", "src"))
    # each caller's loop makes the helper's msync per iteration: findings at the calls in
    # the loops, their chains ending in lib/flush.c, which another shard parses
    through = [f for f in whole if ("src/lib/flush.c", 4) in f[4]]
    assert len(whole) == 6 and [f[1] for f in through] == ["src/d1/f1.c", "src/d1/f3.c", "src/d1/f5.c"]
    assert shard_of("src/d1/f1.c", SHARDS) != shard_of("src/lib/flush.c", SHARDS)
    written = shards(SHARDS)
    done = mmaplint("merge", "--format", "json", *written)
    assert done.returncode == 1
    assert findings(done) == whole
    sarif = mmaplint("merge", "--format", "sarif", *written)
    assert json.loads(sarif.stdout)["runs"][0]["properties"]["analyzed"] == 7


def test_merge_takes_the_report_options(tree: Path, mmaplint, shards):
    written = shards(2, "--select", "MML001")
    done = mmaplint("merge", "--select", "MML001", "--statistics", *written)
    assert (done.returncode, done.stdout) == (1, "6  MML001  msync-in-loop\n")


def test_an_empty_shard_is_clean(tree: Path, check):
    only = "src/d0/f0.c"
    empty = next(k for k in range(1, 5) if k != shard_of(only, 4))
    done = check("--shard", f"{empty}/4", "-o", "empty.facts", only)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("value", ["0/3", "4/3", "x", "1/0", "2"])
def test_bad_shard_values(tree: Path, check, value: str):
    done = check("--shard", value, "-o", "s.facts", "src")
    assert done.returncode == 2
    assert done.stderr == f"mmaplint: error: --shard {value!r}: expected K/N with 1 <= K <= N, e.g. 2/4\n"


def test_a_shard_needs_somewhere_to_write(tree: Path, check):
    done = check("--shard", "1/2", "src")
    assert done.returncode == 2 and "give -o FILE" in done.stderr


def test_merge_rejects_what_it_cannot_join(tree: Path, tmp_path_factory, monkeypatch, mmaplint, shards):
    s1, s2, s3 = shards(3)
    other = shards(2, prefix="two")[0]
    narrow = shards(3, "-D", "X=1", prefix="narrow")
    (tree / "copy1.facts").write_bytes((tree / s1).read_bytes())
    (tree / "cut.facts").write_bytes((tree / s2).read_bytes()[:-40])
    (tree / "report.sarif").write_text(json.dumps({"version": "2.1.0", "runs": []}))
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    for name in (s1, s2, s3):
        (elsewhere / name).write_bytes((tree / name).read_bytes())
    for args, message, cwd in [
            ((s1, s2), "shard 3/3 missing", tree),
            ((s1, "copy1.facts", s2, s3), "copy1.facts and s1.facts are both shard 1/3", tree),
            ((s1, other), "two1.facts is a shard of another split than s1.facts", tree),
            ((s1, "cut.facts", s3), "cut.facts: not mmaplint facts, or truncated or corrupt", tree),
            (("report.sarif",), "report.sarif: not mmaplint facts", tree),
            (("missing.facts",), "cannot read missing.facts", tree),
            ((narrow[0], s2, s3), "s2.facts was parsed with other options than narrow1.facts", tree),
            ((s1, s2, s3), "src/", elsewhere)]:
        monkeypatch.chdir(cwd)
        done = mmaplint("merge", *args)
        assert done.returncode == 2, (args, done.stdout)
        assert done.stderr.startswith(f"mmaplint: error: {message}"), done.stderr
        assert done.stderr.count("\n") == 1


def test_a_missing_path_fails_every_shard(tree: Path, check):
    for k in (1, 2):
        done = check("--shard", f"{k}/2", "-o", f"s{k}.facts", "src", "no/such/dir")
        assert done.returncode == 2 and (tree / f"s{k}.facts").exists()

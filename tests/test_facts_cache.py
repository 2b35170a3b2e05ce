"""The facts cache: a run parses only what changed and reports what a run without the cache
reports; an entry is keyed by content, parse settings, the headers clang read and the
analyzer's build; concurrent runs share it; a damaged or planted entry is parsed again,
never trusted."""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from mmaplint.analyzer import engine
from mmaplint.analyzer.engine import Settings, analyze
from mmaplint.analyzer.facts_cache import MAGIC, FactsCache, _hash

from mmaplint_cli import CLEAN, MSYNC_LOOP, mmaplint

TREE_SITTER = Settings(frontend="tree-sitter", jobs=1)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    for n in range(4):
        (tmp_path / f"f{n}.c").write_text(MSYNC_LOOP.replace("copy_pages", f"copy_{n}"))
    (tmp_path / "clean.c").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """The files the run hands the frontends to parse (its workers)."""
    calls: list[str] = []
    real = engine._parse_many

    def counting(files, *args, **kwargs):
        calls.extend(files)
        return real(files, *args, **kwargs)

    monkeypatch.setattr(engine, "_parse_many", counting)
    return calls


def findings(report) -> list[tuple]:
    return [(f.rule, f.span, f.related) for f in report.findings]


def entries(cache_dir: Path) -> list[Path]:
    return [p for p in cache_dir.rglob("*") if p.is_file() and p.parent.parent.parent == cache_dir]


def test_a_warm_run_parses_only_what_changed(tree: Path, parsed: list[str]):
    cold = analyze(["."], TREE_SITTER, cache=FactsCache(str(tree / "cache")))
    assert sorted(parsed) == ["clean.c", "f0.c", "f1.c", "f2.c", "f3.c"]
    parsed.clear()
    cache = FactsCache(str(tree / "cache"))
    warm = analyze(["."], TREE_SITTER, cache=cache)
    assert (parsed, cache.hits, findings(warm)) == ([], 5, findings(cold))
    assert all(reason.endswith("(cached)") for reason in warm.frontends.values())
    (tree / "f2.c").write_text(CLEAN)
    cache = FactsCache(str(tree / "cache"))
    changed = analyze(["."], TREE_SITTER, cache=cache)
    assert (parsed, cache.hits) == (["f2.c"], 4)
    assert findings(changed) == findings(analyze(["."], TREE_SITTER))      # as without a cache
    assert len(entries(tree / "cache")) == 5       # one entry per file: f2.c's was replaced


def test_facts_name_the_file_as_the_run_names_it(tree: Path, parsed: list[str]):
    analyze(["f0.c"], TREE_SITTER, cache=FactsCache(str(tree / "cache")))
    cache = FactsCache(str(tree / "cache"))
    assert [f.span.path for f in analyze(["./f0.c"], TREE_SITTER, cache=cache).findings] == ["f0.c"]
    assert (parsed, cache.hits) == (["f0.c"], 1)         # ./f0.c is f0.c
    absolute = str(tree / "f0.c")
    assert [f.span.path for f in analyze([absolute], TREE_SITTER, cache=cache).findings] == [absolute]
    assert (parsed, cache.hits) == (["f0.c", absolute], 1)


def test_other_parse_settings_are_other_entries(tree: Path, parsed: list[str]):
    cache = FactsCache(str(tree / "cache"))
    analyze(["f0.c"], TREE_SITTER, cache=cache)
    analyze(["f0.c"], Settings(frontend="tree-sitter", jobs=1, defines=("X=1",)), cache=cache)
    analyze(["f0.c"], Settings(frontend="tree-sitter", jobs=1, include_dirs=("include",)), cache=cache)
    assert (len(parsed), cache.hits) == (3, 0)
    analyze(["f0.c"], Settings(frontend="tree-sitter", jobs=1, select=("MML005",)), cache=cache)
    assert (len(parsed), cache.hits) == (3, 1)     # the rules do not shape the facts
    analyze(["f0.c"], TREE_SITTER, cache=FactsCache(str(tree / "cache"), build="another-build"))
    assert len(parsed) == 4                    # another build never reads this one's entries


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_entry_is_parsed_again(tree: Path, parsed: list[str], damage: str):
    cold = analyze(["."], TREE_SITTER, cache=FactsCache(str(tree / "cache")))
    for entry in entries(tree / "cache"):
        data = entry.read_bytes()
        entry.write_bytes({"truncate": data[:len(data) // 2],
                           "flip": data[:-10] + bytes([data[-10] ^ 1]) + data[-9:],
                           "empty": b"", "garbage": os.urandom(300)}[damage])
    parsed.clear()
    cache = FactsCache(str(tree / "cache"))
    assert findings(analyze(["."], TREE_SITTER, cache=cache)) == findings(cold)
    assert (len(parsed), cache.hits) == (5, 0)
    cache = FactsCache(str(tree / "cache"))
    analyze(["."], TREE_SITTER, cache=cache)
    assert cache.hits == 5                     # written anew


class _Planted:
    def __reduce__(self):
        return (os.system, ("touch planted-code-ran",))


def test_a_planted_entry_cannot_run_code(tree: Path, parsed: list[str]):
    analyze(["f0.c"], TREE_SITTER, cache=FactsCache(str(tree / "cache")))
    (entry,) = entries(tree / "cache")
    body = pickle.dumps((_Planted(), "x", ()))
    entry.write_bytes(MAGIC + bytes.fromhex(_hash(body)) + body)     # a well-formed entry
    cache = FactsCache(str(tree / "cache"))
    report = analyze(["f0.c"], TREE_SITTER, cache=cache)
    assert not (tree / "planted-code-ran").exists()
    assert (cache.hits, len(report.findings)) == (0, 1)


HEADER_USER = """\
#include <sys/mman.h>
#include "mode.h"

void flush_pages(char *map, unsigned long len) {
    for (unsigned long off = 0; off < len; off += 4096)
        msync(map + off, 4096, SYNC_MODE);
}
"""


def test_a_changed_header_invalidates_the_files_clang_read_it_with(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pages.c").write_text(HEADER_USER)
    (tmp_path / "mode.h").write_text("#define SYNC_MODE MS_SYNC\n")
    settings = Settings(frontend="clang", jobs=1)
    assert len(analyze(["pages.c"], settings, cache=FactsCache("cache")).findings) == 1
    (tmp_path / "mode.h").write_text("#define SYNC_MODE MS_ASYNC\n")    # MS_ASYNC: no wait
    cache = FactsCache("cache")
    report = analyze(["pages.c"], settings, cache=cache)
    assert (cache.hits, report.findings) == (0, [])
    cache = FactsCache("cache")
    analyze(["pages.c"], settings, cache=cache)
    assert cache.hits == 1


def test_clangs_fallback_to_tree_sitter_is_parsed_again(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.c").write_text(MSYNC_LOOP.replace("memcpy(", "memcpy(,"))
    for _ in range(2):
        cache = FactsCache("cache")
        report = analyze(["broken.c"], Settings(frontend="auto", jobs=1), cache=cache)
        assert (cache.hits, report.findings[0].frontend) == (0, "tree-sitter")


def test_the_command_line_keeps_it_at_the_project_root(tree: Path):
    (tree / "pyproject.toml").write_text('[tool.mmaplint]\nfrontend = "tree-sitter"\n')
    (tree / "sub").mkdir()
    done = mmaplint("check", "-v", "..", cwd=tree / "sub")
    assert done.returncode == 1
    assert (tree / ".mmaplint_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert not (tree / "sub" / ".mmaplint_cache").exists()
    again = mmaplint("check", "-v", "..", cwd=tree / "sub")
    assert again.stderr.count("(cached)") == 5 and again.stdout == done.stdout
    mmaplint("check", "--cache-dir", "elsewhere", ".", cwd=tree)
    assert (tree / "elsewhere" / ".gitignore").exists()
    mmaplint("check", "--no-cache", "-v", ".", cwd=tree / "sub")
    assert "(cached)" not in mmaplint("check", "--no-cache", "-v", ".", cwd=tree).stderr


def test_concurrent_runs_share_it(tree: Path):
    for n in range(4, 24):
        (tree / f"f{n}.c").write_text(MSYNC_LOOP.replace("copy_pages", f"copy_{n}"))
    command = [sys.executable, "-m", "mmaplint", "check", "--frontend", "tree-sitter", "-j", "1",
               "--format", "json", "--cache-dir", "shared", "."]
    runs = [subprocess.Popen(command, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [1, 1, 1], [err for _, err in outputs]
    assert len({out for out, _ in outputs}) == 1
    assert len(json.loads(outputs[0][0])["findings"]) == 24
    warm = mmaplint("check", "--frontend", "tree-sitter", "-v", "--format", "json", "--cache-dir", "shared",
                    ".", cwd=tree)
    assert warm.stderr.count("(cached)") == 25 and warm.stdout == outputs[0][0]
    assert not [p for p in (tree / "shared").rglob(".tmp-*")]


def test_a_changed_header_invalidates_the_files_tree_sitter_read_its_macros_from(tmp_path: Path, monkeypatch):
    """tree-sitter reads a header only for a macro a guard is spelled with (ts_headers.py):
    the entry depends on the headers it read as clang's does."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "append.c").write_text(
        '#include <unistd.h>\n#include "batch.h"\n'
        "void append(int fd, const char *p, long n) {\n"
        "    for (long i = 0; i < n; i++) {\n"
        "        if (write(fd, p + i, 1) < 0) return;\n"
        "        if (END_OF_BATCH(i)) fdatasync(fd);\n"
        "    }\n}\n")
    (tmp_path / "batch.h").write_text("#define END_OF_BATCH(i) ((i) % 64 == 63)\n")
    assert analyze(["append.c"], TREE_SITTER, cache=FactsCache("cache")).findings == []
    (tmp_path / "batch.h").write_text("#define END_OF_BATCH(i) ((i) >= 0)\n")     # every record
    cache = FactsCache("cache")
    report = analyze(["append.c"], TREE_SITTER, cache=cache)
    assert (cache.hits, [f.rule for f in report.findings]) == (0, ["MML009"])
    cache = FactsCache("cache")
    analyze(["append.c"], TREE_SITTER, cache=cache)
    assert cache.hits == 1


def test_the_files_the_cache_holds_load_while_the_changed_one_parses(tree: Path, monkeypatch):
    cold = analyze(["."], TREE_SITTER, cache=FactsCache(str(tree / "cache")))
    (tree / "f0.c").write_text(MSYNC_LOOP.replace("copy_pages", "copy_changed"))
    slow = engine._parse_encoded

    def parse_slowly(*args):        # in the worker: the parse outlasts the loading by far
        import time
        time.sleep(1)
        return slow(*args)
    monkeypatch.setattr(engine, "_parse_encoded", parse_slowly)
    real, during = engine._parse_many, []

    def watched(files, settings, callees, args, done, meanwhile):
        parsed, steps = [], []       # the parsed files' results as they came; per step, how many had

        def counted():
            for step in meanwhile:
                steps.append(len(parsed))
                yield step

        def arrived(*result):
            parsed.append(result)
            done(*result)
        result = real(files, settings, callees, args, arrived, counted())
        during.append((files, steps))
        return result
    monkeypatch.setattr(engine, "_parse_many", watched)
    cache = FactsCache(str(tree / "cache"))
    warm = analyze(["."], TREE_SITTER, cache=cache)
    assert during == [(["f0.c"], [0, 0, 0, 0])] and cache.hits == 4      # each before f0.c's came
    assert len(findings(warm)) == len(findings(cold))


@pytest.mark.parametrize("planted", ["code", "another file's facts", "bytes no pickle"])
def test_an_entry_holding_facts_not_of_its_file_is_parsed_again(tree: Path, parsed: list[str], planted: str):
    from mmaplint.analyzer.facts_cache import decode, encode
    analyze(["f0.c", "f1.c"], TREE_SITTER, cache=FactsCache(str(tree / "cache")))
    by_file = {decode(decode(e.read_bytes())[0]).path: e for e in entries(tree / "cache")}
    held = {"code": lambda: encode(_Planted()),
            "another file's facts": lambda: decode(by_file["f1.c"].read_bytes())[0],
            "bytes no pickle": lambda: MAGIC + bytes(32) + b"not a pickle"}[planted]()
    # whole (the entry's digest right), of f0.c's source and headers: only what it holds as facts
    # is not f0.c's
    by_file["f0.c"].write_bytes(encode((held, _hash((tree / "f0.c").read_bytes()), ())))
    parsed.clear()
    cache = FactsCache(str(tree / "cache"))
    report = analyze(["f0.c", "f1.c"], TREE_SITTER, cache=cache)
    assert not (tree / "planted-code-ran").exists()
    assert (parsed, cache.hits) == (["f0.c"], 1)
    assert sorted(f.span.path for f in report.findings) == ["f0.c", "f1.c"]

"""Which files a run analyzes, with ruff's semantics: exclude / extend-exclude in the
configuration and on the command line, .gitignore respected by default, and files named on
the command line analyzed even when excluded unless --force-exclude."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mmaplint.analyzer.cli import main

from mmaplint_cli import MSYNC_LOOP

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """A git work tree: sources, a vendored tree, a generated build/ folder, hidden and
    ignored files."""
    for name in ("src/io.c", "src/gen/table.c", "third-party/zlib/deflate.c", "build/out.c",
                 ".hidden/x.c", "node_modules/m/y.c", "src/notes/keep.c", "src/notes/drop.c",
                 "lib/sub/scratch.c"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(MSYNC_LOOP)
    (tmp_path / ".gitignore").write_text("/build/\n*.tmp\n")
    (tmp_path / "src" / "notes" / ".gitignore").write_text("*.c\n!keep.c\n")
    (tmp_path / "lib" / ".gitignore").write_text("scratch.c\n")
    subprocess.run([*GIT, "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def analyzed(capsys, *argv: str) -> list[str]:
    code = main(["check", "--frontend", "tree-sitter", "--format", "json", "--no-cache", *argv])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return sorted({f["path"] for f in json.loads(out)["findings"]})


def test_defaults_leave_out_hidden_vendored_by_node_and_gitignored_files(project, capsys):
    assert analyzed(capsys) == ["src/gen/table.c", "src/io.c", "src/notes/keep.c",
                                "third-party/zlib/deflate.c"]


def test_gitignore_can_be_turned_off(project, capsys):
    everything = ["build/out.c", "lib/sub/scratch.c", "src/gen/table.c", "src/io.c",
                  "src/notes/drop.c", "src/notes/keep.c", "third-party/zlib/deflate.c"]
    assert analyzed(capsys, "--no-respect-gitignore") == everything
    (project / "pyproject.toml").write_text("[tool.mmaplint]\nrespect-gitignore = false\n")
    assert analyzed(capsys) == everything
    assert analyzed(capsys, "--respect-gitignore")[0] == "src/gen/table.c"


def test_outside_git_nothing_is_gitignored(tmp_path, capsys, monkeypatch):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.c").write_text(MSYNC_LOOP)
    (tmp_path / ".gitignore").write_text("build/\n")
    monkeypatch.chdir(tmp_path)
    assert analyzed(capsys) == ["build/out.c"]


def test_extend_exclude_adds_to_the_defaults(project, capsys):
    (project / "pyproject.toml").write_text('[tool.mmaplint]\nextend-exclude = ["third-party", "src/gen/*"]\n')
    assert analyzed(capsys) == ["src/io.c", "src/notes/keep.c"]
    assert analyzed(capsys, "--extend-exclude", "notes") == ["src/io.c"]


def test_exclude_replaces_the_defaults(project, capsys):
    (project / "pyproject.toml").write_text('[tool.mmaplint]\nexclude = ["third-party"]\n')
    assert analyzed(capsys, "--no-respect-gitignore") == [
        ".hidden/x.c", "build/out.c", "lib/sub/scratch.c", "node_modules/m/y.c", "src/gen/table.c",
        "src/io.c", "src/notes/drop.c", "src/notes/keep.c"]
    # the command line's --exclude replaces the configured one
    assert "third-party/zlib/deflate.c" in analyzed(capsys, "--exclude", "build,.hidden")


def test_config_patterns_are_relative_to_the_config(project, capsys, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.mmaplint]\nextend-exclude = ["src/gen"]\n')
    monkeypatch.chdir(project / "src")
    assert analyzed(capsys, ".") == ["src/io.c", "src/notes/keep.c"]    # reports name them from the root
    # while the command line's are relative to the working directory
    assert analyzed(capsys, "--extend-exclude", "notes/*", ".") == ["src/io.c"]


def test_a_file_named_is_analyzed_unless_force_exclude(project, capsys):
    (project / "pyproject.toml").write_text('[tool.mmaplint]\nextend-exclude = ["third-party"]\n')
    named = ["third-party/zlib/deflate.c", "build/out.c", "src/io.c"]
    assert analyzed(capsys, *named) == sorted(named)
    assert analyzed(capsys, "--force-exclude", *named) == ["src/io.c"]
    (project / "pyproject.toml").write_text('[tool.mmaplint]\nextend-exclude = ["third-party"]\n'
                                            'force-exclude = true\n')
    assert analyzed(capsys, *named) == ["src/io.c"]


def test_a_directory_named_is_walked_even_when_excluded(project, capsys):
    assert analyzed(capsys, "build") == ["build/out.c"]
    assert analyzed(capsys, "--extend-exclude", "zlib", "third-party/zlib") == ["third-party/zlib/deflate.c"]
    code = main(["check", "--format", "json", "--force-exclude", "--extend-exclude", "zlib", "third-party/zlib"])
    assert code == 2 and json.loads(capsys.readouterr().out)["findings"] == []   # nothing left to analyze

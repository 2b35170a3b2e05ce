"""Plugins: the example rule pack under plugins/ installs with pip and runs as a rule of its
own; a second pack that claims the same rule id is a one-line error, not an override.

Packs are installed into a temporary --target directory put on PYTHONPATH, so the
environment the other tests use never sees them.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mmaplint.analyzer.registry import load_rules

from mmaplint_cli import mmaplint

PACK = Path(__file__).resolve().parent.parent / "plugins" / "mmaplint-example-pack"

DONTNEED_LOOP = """\
#include <sys/mman.h>

void scratch(char *buf, unsigned long len, int n) {
    for (int i = 0; i < n; i++) {
        buf[0] = (char)i;
        madvise(buf, len, MADV_DONTNEED);
    }
}
"""

CONFLICTING = {
    "pyproject.toml": """\
[build-system]
requires = ["setuptools>=64", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "conflicting-pack"
version = "0.1.0"

[project.entry-points."mmaplint.rules"]
EXA001 = "conflicting_pack_rule"

[tool.setuptools]
py-modules = ["conflicting_pack_rule"]
""",
    "conflicting_pack_rule.py": '''"""EXA001 also-fsync: the same id again."""
ID = "EXA001"
NAME = "also-fsync"
SEVERITY = "warning"
SUMMARY = "a second rule with the example pack's id"
HELP = "rename it"


def check(program):
    return ()
''',
}


def pip_install(source: Path, target: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--no-deps", "--target", str(target), str(source)],
                   check=True, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict:
    """An environment in which the example pack is installed."""
    target = tmp_path_factory.mktemp("site")
    # Built from a copy: building in place would leave build/ and egg-info in the repository.
    source = tmp_path_factory.mktemp("pack") / PACK.name
    shutil.copytree(PACK, source)
    pip_install(source, target)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(target),
                                                                     os.environ.get("PYTHONPATH")])))


def test_builtin_rules_register_through_entry_points():
    rules = load_rules()
    assert {"MML001", "MML002", "MML003", "MML004", "MML005", "MML100"} <= set(rules)
    assert {rules[r].origin for r in rules if r.startswith("MML")} == {"mmaplint"}
    assert "EXA001" not in rules        # the pack lives only in the test's own environment


def test_the_example_pack_rule_runs(site: dict, tmp_path: Path):
    (tmp_path / "log.c").write_text(DONTNEED_LOOP)
    done = mmaplint("check", "--frontend", "tree-sitter", "log.c", cwd=tmp_path, env=site)
    assert done.returncode == 1, done.stderr
    assert "log.c:6:9: EXA001 [dontneed-in-loop] madvise(MADV_DONTNEED) runs on every iteration " \
           "of the for loop at line 4" in done.stdout
    listed = mmaplint("rules", cwd=tmp_path, env=site).stdout
    assert any(line.split()[:2] == ["EXA001", "dontneed-in-loop"] for line in listed.splitlines())


def test_the_example_pack_rule_is_explained(site: dict, tmp_path: Path):
    done = mmaplint("explain", "EXA001", cwd=tmp_path, env=site)
    assert done.returncode == 0
    assert done.stdout.startswith("# EXA001 dontneed-in-loop (warning)")
    assert "## Use instead" in done.stdout


def test_a_duplicate_rule_id_is_a_clear_error(site: dict, tmp_path: Path):
    source, target = tmp_path / "conflicting-pack", tmp_path / "conflicting-site"
    source.mkdir()
    for name, text in CONFLICTING.items():
        (source / name).write_text(text)
    pip_install(source, target)
    env = dict(site, PYTHONPATH=os.pathsep.join([str(target), site["PYTHONPATH"]]))
    done = mmaplint("rules", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert done.stderr == ("mmaplint: error: duplicate rule id EXA001: from conflicting-pack and "
                           "from mmaplint-example-pack\n")


G_FSYNC_LOOP = """\
#include <glib/gstdio.h>

void store_all(int fd, int n) {
    for (int i = 0; i < n; i++)
        g_fsync(fd);
}
"""


def test_a_plugin_ships_models(site: dict, tmp_path: Path):
    (tmp_path / "store.c").write_text(G_FSYNC_LOOP)
    done = mmaplint("check", "--frontend", "tree-sitter", "store.c", cwd=tmp_path, env=site)
    assert done.returncode == 1, done.stderr
    assert "store.c:5:9: MML009 [sync-per-iteration] fsync() runs on every iteration" in done.stdout
    listed = mmaplint("models", cwd=tmp_path, env=site).stdout
    assert any(line.split()[:3] == ["g_fsync", "is", "fsync($0)"] and line.endswith("(mmaplint-example-pack)")
               for line in listed.splitlines()), listed

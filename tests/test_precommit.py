"""The pre-commit hook, through the real `pre-commit try-repo` in a temporary git repository:
it fails on a file with a finding and passes on a clean one.

try-repo installs mmaplint from a git repository, so the test first commits a copy of this
project's files (tracked and untracked, as `git ls-files` sees them) into a temporary one:
that works in a clean clone and in a work tree with changes nobody has committed yet.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mmaplint_cli import CLEAN, MSYNC_LOOP

ROOT = Path(__file__).resolve().parent.parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]

pytestmark = pytest.mark.skipif(shutil.which("pre-commit") is None or shutil.which("git") is None,
                                reason="pre-commit and git are needed (pre-commit is in the test extra)")


def git(*args: str, cwd: Path) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("mmaplint-repo")
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git("init", "-q", cwd=copy)
    git("add", "-A", cwd=copy)
    git("commit", "-q", "-m", "mmaplint", cwd=copy)
    return copy


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    """pre-commit's cache (the hook's virtualenv), shared by this module's tests only."""
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(hook_repo: Path, home: Path, project: Path, name: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home))
    return subprocess.run(["pre-commit", "try-repo", str(hook_repo), "mmaplint", "--files", name],
                          cwd=project, env=env, capture_output=True, text=True, timeout=1200)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    (tmp_path / "clean.c").write_text(CLEAN)
    git("add", ".", cwd=tmp_path)
    return tmp_path


def test_the_hook_fails_on_a_finding(hook_repo: Path, pre_commit_home: Path, project: Path):
    done = try_repo(hook_repo, pre_commit_home, project, "pages.c")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "mmaplint" in done.stdout and "Failed" in done.stdout
    assert "pages.c:7:9: MML001 [msync-in-loop]" in done.stdout


def test_the_hook_passes_on_a_clean_file(hook_repo: Path, pre_commit_home: Path, project: Path):
    done = try_repo(hook_repo, pre_commit_home, project, "clean.c")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout

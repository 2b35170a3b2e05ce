"""The pre-commit hook, for real: the README's snippet, run as written, pins this project's
hook to a commit of a clone of it, and `git commit` in a temporary project runs it.  A
staged change to a helper that makes its msync run per iteration through a loop in a file
the commit does not touch fails the commit; a clean change commits.

pre-commit installs the hook from a git repository, so the test first commits a copy of
this project's files (tracked and untracked, as `git ls-files` sees them) into a temporary
one: that works in a clean clone and in a work tree with changes nobody has committed yet.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mmaplint_cli import CALLER, HELPER

ROOT = Path(__file__).resolve().parent.parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]
pytestmark = pytest.mark.skipif(shutil.which("pre-commit") is None or shutil.which("git") is None,
                                reason="pre-commit and git are needed (pre-commit is in the test extra)")


def git(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=1200)


def readme_snippet() -> str:
    readme = (ROOT / "README.md").read_text()
    (snippet,) = [block for block in re.findall(r"```sh\n(.*?)```", readme, flags=re.S)
                  if ".pre-commit-config.yaml" in block]
    return snippet


@pytest.fixture(scope="module")
def mmaplint_clone(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("mmaplint-clone")
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "mmaplint"]):
        assert git(*args, cwd=copy).returncode == 0
    return copy


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    """pre-commit's cache (the hook's virtualenv), shared by this module's tests only."""
    return dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")))


@pytest.fixture
def project(tmp_path: Path, mmaplint_clone: Path, env: dict) -> Path:
    """A project with a helper (no sync yet) and a loop in another file that calls it,
    set up with the README's snippet."""
    assert git("init", "-q", cwd=tmp_path).returncode == 0
    (tmp_path / "helper.c").write_text(HELPER)
    (tmp_path / "caller.c").write_text(CALLER)
    done = subprocess.run(["bash", "-euc", readme_snippet()], cwd=tmp_path, capture_output=True, text=True,
                          env={**env, "MMAPLINT": str(mmaplint_clone)})
    assert done.returncode == 0, done.stderr
    config = (tmp_path / ".pre-commit-config.yaml").read_text()
    assert f"rev: {git('rev-parse', 'HEAD', cwd=mmaplint_clone).stdout.strip()}" in config
    git("add", ".", cwd=tmp_path)
    assert git("commit", "-q", "--no-verify", "-m", "start", cwd=tmp_path).returncode == 0
    return tmp_path


def commit(project: Path, env: dict) -> subprocess.CompletedProcess:
    git("add", "helper.c", cwd=project)
    return git("commit", "-m", "change the helper", cwd=project, env=env)


def test_a_sync_made_per_iteration_through_an_unchanged_file_fails_the_commit(project: Path, env: dict):
    (project / "helper.c").write_text(HELPER.replace("(void)page;", "msync(page, 4096, MS_SYNC);"))
    done = commit(project, env)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "mmaplint" in output and "Failed" in output
    # reported at the call in the unchanged file's loop, its chain through the staged line
    assert "caller.c:5:9: MML001 [msync-in-loop]" in output and "helper.c:4: msync() is made here" in output
    assert git("log", "--oneline", cwd=project).stdout.count("\n") == 1     # nothing committed


def test_a_clean_change_commits(project: Path, env: dict):
    (project / "helper.c").write_text(HELPER.replace("(void)page;", "page[0] = 1;"))
    done = commit(project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout + done.stderr

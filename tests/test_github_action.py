"""The GitHub Action's analysis step (.ci/github-action/run.sh), run as the Action runs it,
with the variables GitHub sets, in a temporary repository: a pull request that makes an
msync per iteration through an unchanged file fails, a clean one passes, a clone without the
base commit fails clearly, and one analysis writes both the annotations and the SARIF."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mmaplint_cli import CALLER, HELPER

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / ".ci" / "github-action"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main",
       "-c", "protocol.file.allow=always"]

def git(*args: str, cwd: Path) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A project whose base commit has a helper (no sync yet) and a loop in another file that
    calls it; the pull request's branch is checked out."""
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    (project / "helper.c").write_text(HELPER)
    (project / "caller.c").write_text(CALLER)
    git("add", ".", cwd=project)
    git("commit", "-q", "-m", "base", cwd=project)
    git("checkout", "-q", "-b", "pull-request", cwd=project)
    return project


def action(cwd: Path, tmp_path: Path, base: str, paths: str = ".") -> tuple[subprocess.CompletedProcess, dict]:
    """run.sh with what the Action's step gives it; (the run, its step outputs)."""
    outputs, temp = tmp_path / "github_output", tmp_path / "runner_temp"
    temp.mkdir(exist_ok=True)
    outputs.write_text("")
    env = {**os.environ, "GITHUB_OUTPUT": str(outputs), "RUNNER_TEMP": str(temp), "BASE": base,
           "PATHS": paths, "ARGS": "--frontend tree-sitter", "CHANGED_ONLY": "true",
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(["bash", str(ACTION / "run.sh")], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    return done, dict(line.split("=", 1) for line in outputs.read_text().splitlines())


def sarif_results(outputs: dict) -> list[tuple[str, int]]:
    log = json.loads(Path(outputs["sarif"]).read_text())
    return [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in log["runs"][0]["results"]]


def test_a_sync_made_per_iteration_through_an_unchanged_file_fails(repo: Path, tmp_path: Path):
    base = git("rev-parse", "main", cwd=repo)
    (repo / "helper.c").write_text(HELPER.replace("(void)page;", "msync(page, 4096, MS_SYNC);"))
    git("commit", "-qam", "sync each page", cwd=repo)
    done, outputs = action(repo, tmp_path, base)
    assert done.returncode == 0, done.stderr          # the Verdict step fails on status 1
    assert outputs["status"] == "1" and outputs["has-sarif"] == "true"
    # at the call in the unchanged file's loop; its chain reaches the changed line
    (annotation,) = done.stdout.splitlines()
    assert annotation.startswith("::warning file=caller.c,line=5,") and "helper.c:4" in annotation
    assert sarif_results(outputs) == [("caller.c", 5)]      # the same analysis, as SARIF


def test_a_clean_change_passes(repo: Path, tmp_path: Path):
    base = git("rev-parse", "main", cwd=repo)
    (repo / "helper.c").write_text(HELPER.replace("(void)page;", "page[0] = 1;"))
    git("commit", "-qam", "touch the page", cwd=repo)
    done, outputs = action(repo, tmp_path, base)
    assert (done.returncode, outputs["status"], done.stdout) == (0, "0", "")
    assert sarif_results(outputs) == []


def test_findings_the_change_does_not_touch_are_not_reported(repo: Path, tmp_path: Path):
    (repo / "old.c").write_text(CALLER.replace("flush_page(map + i * 4096);", "msync(map, 4096, MS_SYNC);")
                                .replace("void flush_page(char *page);", "#include <sys/mman.h>")
                                .replace("write_pages", "old_pages"))
    git("add", ".", cwd=repo)
    git("commit", "-qm", "an old finding", cwd=repo)
    base = git("rev-parse", "HEAD", cwd=repo)
    (repo / "README").write_text("docs\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "docs", cwd=repo)
    done, outputs = action(repo, tmp_path, base)
    assert (done.returncode, outputs["status"]) == (0, "0")
    done, outputs = action(repo, tmp_path, "")              # a push: everything is reported
    assert outputs["status"] == "1" and sarif_results(outputs) == [("old.c", 5)]


def test_a_clone_without_the_base_commit_fails_clearly(repo: Path, tmp_path: Path):
    base = git("rev-parse", "main", cwd=repo)
    (repo / "helper.c").write_text(HELPER.replace("(void)page;", "msync(page, 4096, MS_SYNC);"))
    git("commit", "-qam", "sync each page", cwd=repo)
    shallow = tmp_path / "shallow"
    git("clone", "-q", "--depth", "1", "--branch", "pull-request", repo.as_uri(), str(shallow), cwd=tmp_path)
    done, outputs = action(shallow, tmp_path, base)
    assert done.returncode == 1
    assert done.stdout.startswith(f"::error title=mmaplint::the pull request's base commit {base} is not "
                                  "in this clone")
    assert "fetch-depth: 0" in done.stdout and "status" not in outputs


def test_the_action_runs_the_script_with_what_it_reads():
    action_yml = yaml.safe_load((ACTION / "action.yml").read_text())
    (step,) = [s for s in action_yml["runs"]["steps"] if s.get("id") == "check"]
    assert step["run"] == 'bash "${GITHUB_ACTION_PATH}/run.sh"'
    script = (ACTION / "run.sh").read_text()
    for name in step["env"]:
        assert "${" + name in script
    assert script.count("mmaplint check") == 1           # one analysis for annotations and SARIF

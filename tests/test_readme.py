"""The README's two set-up commands stay true: CI runs the test command word for word, and the
example command finds what the README says it finds."""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def shell_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", README, flags=re.S)


def test_ci_runs_the_readme_test_command():
    (command,) = [line for block in shell_blocks() for line in block.splitlines()
                  if "pytest" in line]
    ci = (ROOT / ".ci" / "run").read_text()
    assert command.replace("python3 -m pip install", "python3 -m pip install --quiet "
                           "--disable-pip-version-check") in ci


def test_readme_example_reports_the_bad_variants():
    (command,) = [line for block in shell_blocks() for line in block.splitlines()
                  if line.startswith("python3 -m pip install . && mmaplint check")]
    check = command.split("&& ", 1)[1].split()
    done = subprocess.run([sys.executable, "-m", "mmaplint", *check[1:], "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    rules = {f["rule"] for f in json.loads(done.stdout)["findings"]}
    assert {"MML001", "MML004", "MML005"} <= rules       # what the README promises


def yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", README, flags=re.S)


def mmaplint_lines(block: str) -> list[list[str]]:
    """The `mmaplint ...` command lines of a shell block, without their comments."""
    import shlex
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.startswith("mmaplint ")]


def test_the_ci_commands_run_as_written(tmp_path):
    """Every `mmaplint` line of the README's CI blocks, in a project where its paths and refs
    exist: each runs (0 or 1, never a usage error), and the shards' merge is the whole run."""
    import shutil

    from mmaplint_cli import in_process
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    shutil.copytree(ROOT / "corpus", tmp_path / "src")
    (tmp_path / "pyproject.toml").write_text('[tool.mmaplint]\nfrontend = "tree-sitter"\n')    # no build
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=tmp_path, check=True)
    subprocess.run([*git, "branch", "origin/main"], cwd=tmp_path, check=True)
    (tmp_path / "src" / "io.c").write_text("void io(void) {}\n")
    blocks = [b for b in shell_blocks() if "--shard" in b or "--baseline" in b]
    commands = [c for b in blocks for c in mmaplint_lines(b)]
    assert len(commands) == 8
    for command in commands:
        done = in_process(*command[1:], cwd=tmp_path)
        assert done.returncode in (0, 1), (command, done.stderr)
    whole = in_process("check", "--format", "sarif", "src/", cwd=tmp_path)
    merged = json.loads((tmp_path / "mmaplint.sarif").read_text())["runs"][0]["results"]
    assert merged == json.loads(whole.stdout)["runs"][0]["results"] and merged


def test_the_github_workflow_uses_this_action_at_a_pinned_commit():
    import yaml
    (workflow,) = [yaml.safe_load(b) for b in yaml_blocks() if "github-action" in b]
    assert workflow["permissions"] == {"contents": "read", "security-events": "write"}
    project, mmaplint, action = workflow["jobs"]["mmaplint"]["steps"]
    assert project == {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}}   # --diff needs the base
    assert mmaplint["with"] == {"repository": "${{ vars.MMAPLINT_REPOSITORY }}",
                                "ref": "${{ vars.MMAPLINT_COMMIT }}", "path": ".mmaplint"}
    local = action["uses"].removeprefix("./")
    assert local.startswith(mmaplint["with"]["path"] + "/")   # a path in the checkout of mmaplint...
    assert (ROOT / local.removeprefix(".mmaplint/") / "action.yml").is_file()    # ...that holds the action
    assert "MMAPLINT_REPOSITORY" in README and "MMAPLINT_COMMIT" in README


def test_the_gitlab_job_installs_a_pinned_commit_and_reports(tmp_path):
    import os
    import yaml
    (job,) = [yaml.safe_load(b)["mmaplint"] for b in yaml_blocks() if "codequality" in b]
    install, check = job["script"]
    assert install == 'pip install "git+${MMAPLINT_URL}@${MMAPLINT_COMMIT}"'
    (tmp_path / "pages.c").write_text((ROOT / "corpus" / "msync_per_page" / "msync_per_page.c").read_text())
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(["bash", "-c", check], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / job["artifacts"]["reports"]["codequality"]).read_text())
    assert {issue["check_name"] for issue in report} == {"MML001"}

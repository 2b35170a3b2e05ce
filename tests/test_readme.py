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

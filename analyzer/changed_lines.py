"""`--diff REF`: the lines of each file that changed since a git revision.

Asks git for a zero-context diff of the work tree against REF and reads the hunk headers
(`@@ -a,b +c,d @@`: lines c to c+d-1 are new or changed in the work tree).  A file git does
not track yet is new, so all of it counts as changed; so is every file against the HEAD of a
repository with no commit yet (a pre-commit hook before the first commit).
"""
from __future__ import annotations

import ast
import os
import subprocess
from collections import defaultdict

from .errors import UserError
from .findings import Finding

ALL_LINES = None     # the value for a file that is new since REF


class DiffError(UserError):
    """A revision or file that git cannot diff; one line for the user."""


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd,
                              capture_output=True, text=True, encoding="utf-8",
                              errors="surrogateescape")
    except FileNotFoundError:
        raise DiffError("--diff needs git, which is not installed") from None


def _toplevel(path: str) -> str:
    directory = os.path.dirname(os.path.abspath(path))
    done = _git(["rev-parse", "--show-toplevel"], directory)
    if done.returncode != 0:
        raise DiffError(f"{path}: not in a git work tree, so --diff cannot tell its changed lines")
    return os.path.realpath(done.stdout.strip())


def _unquote(name: str) -> str:
    """A path as git prints it in a diff header: C-quoted when it holds odd characters."""
    if name.startswith('"'):
        return ast.literal_eval("b" + name).decode("utf-8", "surrogateescape")
    return name


def parse_hunks(diff: str, top: str) -> dict[str, set[int]]:
    """Changed lines per real path from `git diff -U0` output run in `top`."""
    changed: dict[str, set[int]] = {}
    current = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = _unquote(line[4:].rstrip("\t"))
            current = None if name == "/dev/null" else \
                changed.setdefault(os.path.realpath(os.path.join(top, name[2:])), set())
        elif line.startswith("@@ ") and current is not None:
            new = line.split(" ")[2]                 # "+c,d" or "+c"
            start, _, count = new[1:].partition(",")
            current.update(range(int(start), int(start) + int(count or 1)))
    return changed


def changed_lines(ref: str, files: list[str]) -> dict[str, set[int] | None]:
    """For each file (by real path): the lines changed since `ref`, or ALL_LINES when it is new."""
    by_top: dict[str, list[str]] = defaultdict(list)
    for path in files:
        by_top[_toplevel(path)].append(os.path.realpath(path))
    result: dict[str, set[int] | None] = {}
    for top, paths in by_top.items():
        if _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top).returncode != 0:
            if ref == "HEAD" and _git(["symbolic-ref", "--quiet", "HEAD"], top).returncode == 0:
                result.update((path, ALL_LINES) for path in paths)     # no commit yet
                continue
            raise DiffError(f"--diff {ref}: not a revision in the repository at {top}")
        tracked = _git(["ls-files", "-z", "--", *paths], top)
        known = {os.path.realpath(os.path.join(top, n)) for n in tracked.stdout.split("\0") if n}
        done = _git(["diff", "-U0", "--no-color", "--no-ext-diff", "-M", "--src-prefix=a/",
                     "--dst-prefix=b/", ref, "--", *paths], top)
        if done.returncode != 0:
            raise DiffError(f"git diff {ref} failed: {' '.join(done.stderr.split()) or 'no message'}")
        hunks = parse_hunks(done.stdout, top)
        for path in paths:
            result[path] = hunks.get(path, set()) if path in known else ALL_LINES
    return result


def on_changed_lines(findings: list[Finding], changed: dict[str, set[int] | None]) -> list[Finding]:
    """Findings that touch a changed line: one of their own lines, or the first line of a
    related location (the loop, each call on the way, the I/O call it leads to), so that a
    change in one file that makes a call in another run per iteration is reported."""
    def touches(path: str, first: int, last: int) -> bool:
        lines = changed.get(os.path.realpath(path), set())
        return lines is ALL_LINES or any(n in lines for n in range(first, last + 1))
    return [f for f in findings if touches(f.span.path, f.span.line, f.span.end_line)
            or any(touches(r.span.path, r.span.line, r.span.line) for r in f.related)]

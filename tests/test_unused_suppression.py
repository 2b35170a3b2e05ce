"""MML100 unused-suppression: suppression comments that silenced nothing in this run."""
from __future__ import annotations

import json
from pathlib import Path

from mmaplint_cli import mmaplint

SOURCE = """\
#include <sys/mman.h>
#include <stdio.h>

void per_page(char *map, unsigned long len) {
    for (unsigned long off = 0; off < len; off += 4096) {
        msync(map + off, 4096, MS_SYNC); /* mmaplint: ignore[MML001, MML003] */
        (void)len;  /* that comment also covers this line */
        msync(map + off, 4096, MS_SYNC); // NOLINT(mmaplint-msync-in-loop)
        // NOLINTNEXTLINE(mmaplint-*)
        msync(map + off, 4096, MS_SYNC);
    }
}

void once(char *map, unsigned long len) {
    /* mmaplint: ignore[MML001] */
    msync(map, len, MS_SYNC);
    msync(map, len, MS_SYNC); /* mmaplint: ignore */
    msync(map, len, MS_SYNC); // NOLINT(mmaplint-msync-in-loop)
    msync(map, len, MS_SYNC); // NOLINT
    msync(map, len, MS_SYNC); // NOLINT(bugprone-*)
    msync(map, len, MS_SYNC); /* mmaplint: ignore[MML004] */
}
"""


def findings(tmp_path: Path, *select: str) -> list[tuple[int, str, str]]:
    (tmp_path / "s.c").write_text(SOURCE)
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "json", *select, "s.c",
                    cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return [(f["line"], f["rule"], f["message"]) for f in json.loads(done.stdout)["findings"]]


def test_off_by_default(tmp_path: Path):
    assert findings(tmp_path) == []


def test_reports_the_codes_of_rules_that_ran_and_silenced_nothing(tmp_path: Path):
    assert findings(tmp_path, "--select", "ALL") == [
        (6, "MML100", "unused suppression: MML003 silenced no finding here"),
        (15, "MML100", "unused suppression: MML001 silenced no finding here"),
        (17, "MML100", "unused suppression: `mmaplint: ignore` silenced no finding here"),
        (18, "MML100", "unused suppression: mmaplint-msync-in-loop silenced no finding here"),
        (21, "MML100", "unused suppression: MML004 silenced no finding here"),
    ]


def test_codes_of_rules_that_did_not_run_are_not_judged(tmp_path: Path):
    lines = [line for line, _, _ in findings(tmp_path, "--select", "MML001,MML100")]
    assert lines == [15, 17, 18]

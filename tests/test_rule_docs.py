"""Every built-in rule documents itself like a ruff rule (`mmaplint explain` prints it), names a
reproducer that exists in the corpus when it has a runtime cost, and has a stable id and slug."""
import re

import pytest

from mmaplint.analyzer.confirm import manifest
from mmaplint.analyzer.registry import load_rules

BUILTIN = sorted((r for r in load_rules().values() if r.origin == "mmaplint"), key=lambda r: r.id)
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead")


@pytest.mark.parametrize("rule", BUILTIN, ids=lambda r: r.id)
def test_the_doc_has_every_section_in_order(rule):
    assert rule.doc.startswith(f"{rule.id} {rule.name}:")
    positions = [rule.doc.find(section) for section in SECTIONS]
    assert -1 not in positions and positions == sorted(positions), positions
    assert "```c" in rule.doc, "the example is C code"


@pytest.mark.parametrize("rule", BUILTIN, ids=lambda r: r.id)
def test_id_slug_and_reproducer(rule):
    assert re.fullmatch(r"MML\d{3}", rule.id) and re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
    if rule.reproducer is not None:
        entry = manifest.entry_for_rule(rule.id, manifest.load_entries())
        assert f"corpus/{entry.name}" == rule.reproducer

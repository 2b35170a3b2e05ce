"""Findings against labels, matched by (path in the package, enclosing function, rule).

The enclosing function comes from mmaplint's own tree-sitter facts for the file,
so a finding and a label agree on what "the function" is whatever frontend ran."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from mmaplint.analyzer.engine import language_of
from mmaplint.analyzer.facts import FrontendError, FrontendOptions, Function
from mmaplint.analyzer.findings import Finding
from mmaplint.analyzer.frontends import treesitter

from labels import Label

Key = tuple[str, str, str]      # (path, function, rule)


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def labels(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def add(self, other: "Tally") -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.tn += other.tn


@dataclass
class Score:
    by_rule: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    false_positives: list[tuple[Label, list[Finding]]] = field(default_factory=list)
    false_negatives: list[Label] = field(default_factory=list)
    unlabelled: list[tuple[Key, Finding]] = field(default_factory=list)


def _functions(path: Path) -> tuple[Function, ...]:
    try:
        source = path.read_bytes()
        facts = treesitter.parse(str(path), source, FrontendOptions(language=language_of(str(path), source)))
    except (OSError, FrontendError):
        return ()
    return facts.functions


def _enclosing(functions: tuple[Function, ...], line: int) -> str:
    """The innermost function whose definition spans the line ("" at file scope)."""
    around = [f for f in functions if f.span.line <= line <= f.span.end_line]
    return min(around, key=lambda f: f.span.end_line - f.span.line).qualified if around else ""


def keyed(findings: list[Finding], root: Path) -> dict[Key, list[Finding]]:
    functions: dict[str, tuple[Function, ...]] = {}
    grouped: dict[Key, list[Finding]] = defaultdict(list)
    for finding in findings:
        path = Path(finding.span.path).resolve()
        if finding.span.path not in functions:
            functions[finding.span.path] = _functions(path)
        relative = path.relative_to(root.resolve()).as_posix()
        grouped[(relative, _enclosing(functions[finding.span.path], finding.span.line), finding.rule)].append(finding)
    return grouped


def score(findings: dict[Key, list[Finding]], labels: list[Label], rules: set[str]) -> Score:
    """Only labels of the rules that ran are counted (a rule not run has no findings to judge)."""
    result = Score()
    labelled = set()
    for label in labels:
        if label.rule not in rules:
            continue
        labelled.add(label.key)
        hits = findings.get(label.key, [])
        tally = result.by_rule[label.rule]
        if label.verdict == "report":
            if hits:
                tally.tp += 1
            else:
                tally.fn += 1
                result.false_negatives.append(label)
        elif hits:
            tally.fp += 1
            result.false_positives.append((label, hits))
        else:
            tally.tn += 1
    result.unlabelled = [(key, hits[0]) for key, hits in sorted(findings.items()) if key not in labelled]
    return result

"""What a run produces: findings and per-file errors, in a deterministic order."""
from __future__ import annotations

from dataclasses import dataclass, field

from .facts import Span


@dataclass(frozen=True)
class Related:
    span: Span
    message: str


@dataclass(frozen=True)
class Finding:
    rule: str                 # "MML001"
    name: str                 # "msync-in-loop"
    severity: str             # "error" | "warning" | "note"
    span: Span
    message: str
    frontend: str             # which frontend produced the facts
    related: tuple[Related, ...] = ()
    reproducer: str | None = None      # corpus path, e.g. "corpus/msync_per_page"
    confirm: str | None = None         # command that measures it, e.g. "mmaplint confirm MML001"
    params: tuple[tuple[str, int], ...] = ()   # constants for the reproducer (mapping length, stride)

    @property
    def sort_key(self):
        return (self.span.path, self.span.line, self.span.column, self.rule, self.message)


@dataclass(frozen=True, order=True)
class FileError:
    path: str
    message: str


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    analyzed: list[str] = field(default_factory=list)       # paths that produced facts
    frontends: dict[str, str] = field(default_factory=dict)  # path -> "frontend: reason"
    directives: dict[str, list] = field(default_factory=dict)  # path -> suppression directives

    def sort(self) -> None:
        self.findings.sort(key=lambda f: f.sort_key)
        self.errors.sort()

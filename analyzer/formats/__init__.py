"""Output formats.  Each is `render(report, context) -> str`, registered under the
`mmaplint.formatters` entry-point group (the built-ins too)."""
from __future__ import annotations

from dataclasses import dataclass, field

from mmaplint import __version__

from .. import sources
from ..registry import Rule


@dataclass(frozen=True)
class FormatContext:
    rules: dict[str, Rule]                 # every installed rule, by id
    color: bool = False
    root: str = "."                        # paths are shown relative to it where they can be
    version: str = __version__
    extra: dict = field(default_factory=dict)   # format-specific options


def source_lines(path: str) -> tuple[str, ...]:
    """A file's lines for excerpts; empty when it cannot be read any more."""
    return sources.text_lines(path)


CONFIRMATIONS = "confirmations"     # context.extra key: (rule results, environment) of `check --confirm`


def confirmations(context: FormatContext) -> tuple[dict, object | None]:
    """`check --confirm`'s results by rule id, and the environment they were measured in."""
    results, env = context.extra.get(CONFIRMATIONS, ([], None))
    return {r.rule: r for r in results}, env

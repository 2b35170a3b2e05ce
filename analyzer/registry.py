"""Rules and output formats, loaded from entry points (the built-ins register the same way).

A rule is a module (flake8/pylint style plugin) with:

    \"\"\"Its documentation: what it does, why it costs, example, use instead.\"\"\"
    ID = "MML001"                    # stable id
    NAME = "msync-in-loop"           # slug, also used by NOLINT(mmaplint-<slug>)
    SEVERITY = "warning"             # "error" | "warning" | "note"
    SUMMARY = "one line for tables and SARIF shortDescription"
    HELP = "one line: what to do instead"
    CALLEES = {"msync"}              # calls whose arguments the rule reads
    REPRODUCER = "corpus/msync_per_page"    # or None
    DEFAULT = True                   # enabled unless selected explicitly (optional, default True)
    ANALYSES = {"provenance"}        # the program's costly analyses it asks (optional; so far
                                     # "provenance", where mapped addresses flow): rules spread
                                     # over worker processes go together by them, so that each
                                     # is built once, beside the other rules
    def check(program) -> Iterable[Hit]

A formatter is a callable `render(report, context) -> str` registered under
`mmaplint.formatters`.
"""
from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .errors import UserError
from .facts import Span
from .findings import Related

RULE_GROUP = "mmaplint.rules"
FORMAT_GROUP = "mmaplint.formatters"
SEVERITIES = ("error", "warning", "note")


class PluginError(UserError):
    """A broken or conflicting plugin; the message is one line for the user."""


@dataclass(frozen=True)
class Hit:
    """What a rule reports; the engine adds the rule's metadata and the frontend."""

    span: Span
    message: str
    related: tuple[Related, ...] = ()
    params: dict[str, int] = field(default_factory=dict)
    # where the costly operation is written, when the finding points at a call leading to it
    # (a suppression comment there silences it too)
    operation: Span | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    summary: str
    help: str
    doc: str
    callees: frozenset[str]
    reproducer: str | None
    default: bool
    check: Callable[..., Iterable[Hit]]
    origin: str          # the distribution (or module) it came from
    analyses: frozenset[str] = frozenset()      # the program's costly analyses its check asks

    @property
    def confirm(self) -> str | None:
        return f"mmaplint confirm {self.id}" if self.reproducer else None

    @classmethod
    def from_module(cls, module: types.ModuleType, origin: str) -> "Rule":
        try:
            rule = cls(
                id=module.ID, name=module.NAME, severity=module.SEVERITY,
                summary=module.SUMMARY, help=module.HELP,
                doc=(module.__doc__ or "").strip(),
                callees=frozenset(getattr(module, "CALLEES", ())),
                reproducer=getattr(module, "REPRODUCER", None),
                default=getattr(module, "DEFAULT", True),
                check=module.check, origin=origin,
                analyses=frozenset(getattr(module, "ANALYSES", ())),
            )
        except AttributeError as exc:
            raise PluginError(f"rule module {module.__name__} ({origin}) lacks {exc.name}") from None
        if rule.severity not in SEVERITIES:
            raise PluginError(f"rule {rule.id} ({origin}) has severity {rule.severity!r}; "
                              f"expected one of {', '.join(SEVERITIES)}")
        return rule


def _origin(ep) -> str:
    return ep.dist.name if ep.dist is not None else ep.value


def entry_points(group: str):
    """The installed entry points of a group (importlib.metadata is imported when first asked:
    `mmaplint --version` and the confirm commands never read it)."""
    from importlib.metadata import entry_points as installed
    return installed(group=group)


def load_rules() -> dict[str, Rule]:
    """Every installed rule by id; two rules claiming one id is an error, not an override."""
    rules: dict[str, Rule] = {}
    slugs: dict[str, str] = {}
    for ep in sorted(entry_points(group=RULE_GROUP), key=lambda e: (e.name, e.value)):
        try:
            module = ep.load()
        except Exception as exc:  # a plugin's import error must not take the run down
            raise PluginError(f"cannot load rule {ep.name} from {_origin(ep)}: {exc}") from None
        rule = Rule.from_module(module, _origin(ep))
        if rule.id != ep.name:
            raise PluginError(f"entry point {ep.name} ({rule.origin}) names a rule with id {rule.id}")
        if rule.id in rules:
            if rules[rule.id].check is rule.check:
                continue     # the same module seen twice (an editable install beside a build)
            raise PluginError(f"duplicate rule id {rule.id}: from {rules[rule.id].origin} and "
                              f"from {rule.origin}")
        if rule.name in slugs:
            raise PluginError(f"duplicate rule name {rule.name}: {slugs[rule.name]} and {rule.id}")
        rules[rule.id] = rule
        slugs[rule.name] = rule.id
    return rules


def load_formatters() -> dict[str, Callable]:
    """Every installed output format by name; its module is imported when it first renders, so
    that a run imports only the formats it writes."""
    formatters: dict[str, Callable] = {}
    for ep in entry_points(group=FORMAT_GROUP):
        if ep.name in formatters:
            raise PluginError(f"duplicate output format {ep.name} from {_origin(ep)}")
        formatters[ep.name] = _Format(ep)
    return formatters


class _Format:
    """An output format's render(report, context), loaded on its first call."""

    def __init__(self, ep) -> None:
        self.ep = ep
        self.render: Callable | None = None

    def __call__(self, report, context) -> str:
        if self.render is None:
            try:
                self.render = self.ep.load()
            except Exception as exc:
                raise PluginError(f"cannot load format {self.ep.name} from {_origin(self.ep)}: {exc}") from None
        return self.render(report, context)

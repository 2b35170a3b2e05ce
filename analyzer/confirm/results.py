"""What a confirmation found, per metric, per case and per rule, and the sentence that sums it up."""
from __future__ import annotations

from dataclasses import dataclass, field

from .environment import Environment
from .manifest import Entry
from .metrics import DESCRIPTIONS, format_value
from .stats import CONFIRMED, INCONCLUSIVE, NOT_REPRODUCED, Comparison


@dataclass
class MetricResult:
    name: str
    primary: bool
    comparison: Comparison | None      # None: this kernel does not provide the metric

    @property
    def verdict(self) -> str:
        return self.comparison.verdict if self.comparison else "n/a"


@dataclass
class CaseResult:
    name: str
    expect: str
    pairs: int
    seconds: float
    params: dict                       # as the program resolved them
    metrics: list[MetricResult]
    verdict: str


@dataclass
class RuleResult:
    rule: str
    entry: Entry
    notes: list[str]
    cases: list[CaseResult]
    verdict: str
    conclusion: str = ""
    environment: Environment | None = field(default=None, repr=False)


def _phrase(m: MetricResult) -> str:
    c = m.comparison
    return (f"{DESCRIPTIONS.get(m.name, m.name)} {c.ratio:.1f}x "
            f"({format_value(m.name, c.bad)} vs {format_value(m.name, c.fixed)})")


def _confirmed(case: CaseResult, primary: bool) -> list[MetricResult]:
    return [m for m in case.metrics if m.primary == primary and m.verdict == CONFIRMED]


def _absence_reason(entry: Entry, env: Environment, verdict: str) -> str | None:
    """The environment's part in a cost that did not show.  The filesystem is known from the mount
    table, so it explains even noise; the libc's change is inferred from the counters themselves,
    so it is named only when they refute the cost."""
    values = {"fstype": env.fstype, "libc": env.libc or "this libc"}
    if "filesystem" in entry.depends_on and env.memory_filesystem:
        return entry.depends_on["filesystem"].format(**values)
    if "libc" in entry.depends_on and verdict == NOT_REPRODUCED:
        return entry.depends_on["libc"].format(**values)
    return None


def _case_sentence(case: CaseResult) -> str:
    evidence = _confirmed(case, primary=True)
    wall = next((m for m in case.metrics if m.name == "wall_s" and m.comparison), None)
    if case.verdict == CONFIRMED:
        parts = [_phrase(m) for m in evidence]
        if wall and wall not in evidence:
            parts.append(f"effect: {_phrase(wall)}")
        return "; ".join(parts)
    if case.verdict == NOT_REPRODUCED:
        primaries = ", ".join(DESCRIPTIONS.get(m.name, m.name) for m in case.metrics if m.primary)
        residual = [_phrase(m) for m in _confirmed(case, primary=False)]
        text = f"no clear difference in {primaries}"
        return text + (f"; still measurable: {', '.join(residual)}" if residual else "")
    noisy = [m for m in case.metrics if m.primary and m.verdict == INCONCLUSIVE]
    spreads = ", ".join(f"{m.name} {m.comparison.ratio:.2f}x (spread {m.comparison.spread[0]:.2f}-"
                        f"{m.comparison.spread[1]:.2f}x)" for m in noisy)
    return f"noisy: {spreads}" if spreads else "the evidence disagrees across metrics"


def conclude(result: RuleResult, env: Environment) -> str:
    where = f"on {env.fstype}" + (f" ({env.block_device})" if env.block_device else "")
    head = f"{result.rule} {result.verdict} {where}"
    if len(result.cases) == 1:
        case = result.cases[0]
        text = f"{head}: {_case_sentence(case)}"
    else:
        text = f"{head}: " + "; ".join(
            f"[{c.name}] {c.verdict}" + (" as expected" if c.expect == "none" and c.verdict == NOT_REPRODUCED
                                         else "") + f": {_case_sentence(c)}" for c in result.cases)
    reason = _absence_reason(result.entry, env, result.verdict) if result.verdict != CONFIRMED else None
    if reason:
        text += f". Why: {reason}"
    elif result.verdict == INCONCLUSIVE:
        text += ". Rerun with a larger --budget or on a quieter machine"
    return text + "."

"""What a confirmation found, per metric, per case and per rule, and the sentence that sums it up."""
from __future__ import annotations

from dataclasses import dataclass

from .environment import Environment
from .manifest import Entry, Metric
from .metrics import DESCRIPTIONS, format_value
from .schedule import Measured
from .stats import CONFIRMED, INCONCLUSIVE, NOT_REPRODUCED, WORSE, Comparison

VARIANTS = ("bad", "fixed")


@dataclass
class MetricResult:
    metric: Metric
    comparison: Comparison | None      # None: this kernel does not provide the metric

    @property
    def name(self) -> str:
        return self.metric.name

    @property
    def primary(self) -> bool:
        return self.metric.primary

    @property
    def verdict(self) -> str:
        return self.comparison.verdict if self.comparison else "n/a"


@dataclass
class CaseResult:
    name: str
    expect: str
    variants: tuple[str, str]
    measured: Measured
    seconds: float
    params: dict                       # as the program resolved them (after any scaling)
    metrics: list[MetricResult]
    verdict: str

    @property
    def pairs(self) -> int:
        return len(self.measured.pairs)

    @property
    def labels(self) -> tuple[str, str]:
        """The two slots as shown: the variants, told apart in an A/A check."""
        a, b = self.variants
        return (f"{a} (A)", f"{b} (B)") if a == b else (a, b)


@dataclass
class RuleResult:
    rule: str
    entry: Entry
    notes: list[str]
    cases: list[CaseResult]
    verdict: str
    seconds: float = 0.0               # the whole confirm of the rule: build, warm-up, pairs
    conclusion: str = ""
    variants: tuple[str, str] = VARIANTS

    @property
    def bytes_written(self) -> int:
        return sum(c.measured.bytes_written for c in self.cases)

    @property
    def aa(self) -> bool:
        return self.variants != VARIANTS


def ratio_text(value: float) -> str:
    if value == float("inf"):
        return "inf"
    return f"{value:.2f}x" if value < 10 else f"{value:.0f}x" if value < 1e6 else f"{value:.1e}x"


def interval_text(c: Comparison) -> str:
    low, high = c.interval
    return f"{ratio_text(low)}-{ratio_text(high)}"


def phrase(m: MetricResult) -> str:
    c = m.comparison
    return (f"{DESCRIPTIONS.get(m.name, m.name)} {ratio_text(c.ratio)} (95 % CI {interval_text(c)}; "
            f"{format_value(m.name, c.bad)} vs {format_value(m.name, c.fixed)})")


def _with(case: CaseResult, verdict: str, primary: bool) -> list[MetricResult]:
    return [m for m in case.metrics if m.primary == primary and m.verdict == verdict
            and not m.metric.by_construction]


def _case_sentence(case: CaseResult) -> str:
    if case.measured.stopped:
        return f"no verdict could be drawn: {case.measured.stopped}"
    if case.verdict == CONFIRMED:
        parts = [phrase(m) for m in _with(case, CONFIRMED, primary=True)]
        effects = [m for m in case.metrics if not m.primary and m.name == "wall_s" and m.comparison]
        return "; ".join(parts + [f"effect: {phrase(m)}" for m in effects])
    if case.verdict == WORSE:
        return "the fix costs more: " + "; ".join(phrase(m) for m in _with(case, WORSE, primary=True))
    if case.verdict == NOT_REPRODUCED:
        primaries = ", ".join(f"{DESCRIPTIONS.get(m.name, m.name)} {ratio_text(m.comparison.ratio)} "
                              f"(95 % CI {interval_text(m.comparison)})" for m in case.metrics if m.primary)
        residual = [phrase(m) for m in _with(case, CONFIRMED, primary=False)]
        text = f"no cost in {primaries}"
        return text + (f"; still measurable: {'; '.join(residual)}" if residual else "")
    undecided = [m for m in case.metrics if m.primary and m.verdict in (INCONCLUSIVE, "n/a")]
    if any(m.verdict in (CONFIRMED, WORSE) for m in case.metrics if m.primary):
        return "the primary metrics disagree: " + "; ".join(
            f"{phrase(m)} {m.verdict}" for m in case.metrics if m.primary and m.comparison)
    return "the interval is too wide to tell: " + "; ".join(phrase(m) for m in undecided if m.comparison)


def _absent(case: CaseResult, env: Environment) -> list[str]:
    """The reasons a manifest gives for costs of its metrics that did not show here."""
    values = {"fstype": env.fstype, "libc": env.libc or "this libc"}
    return [f"{DESCRIPTIONS.get(m.name, m.name)} {ratio_text(m.comparison.ratio)}: " + m.metric.absent.format(**values)
            for m in case.metrics if m.metric.absent and m.comparison and m.verdict != CONFIRMED]


def _environment_reasons(result: RuleResult, env: Environment) -> list[str]:
    """What in this environment the manifest says can make the cost vanish, when it did not show:
    a filesystem that keeps files in memory, a device that needs no stable pages."""
    if result.verdict == CONFIRMED:
        return []
    reasons, depends = [], result.entry.depends_on
    if "filesystem" in depends and env.memory_filesystem:
        reasons.append(depends["filesystem"].format(fstype=env.fstype))
    elif "stable_writes" in depends and env.device_flags.get("stable_writes") == "0":
        reasons.append(depends["stable_writes"].format(device=env.block_device))
    return reasons


def conclude(result: RuleResult, env: Environment) -> str:
    where = f"on {env.fstype}" + (f" ({env.block_device})" if env.block_device else "")
    label = f"A/A check {result.variants[0]} vs {result.variants[1]}: " if result.aa else ""
    head = f"{result.rule} {label}{result.verdict} {where}"
    if len(result.cases) == 1:
        text = f"{head}: {_case_sentence(result.cases[0])}"
    else:
        text = f"{head}: " + "; ".join(
            f"[{c.name}] {c.verdict}" + (" as expected" if c.expect == "none" and c.verdict == NOT_REPRODUCED
                                         and not result.aa else "") + f": {_case_sentence(c)}"
            for c in result.cases)
    extra = _environment_reasons(result, env) + [reason for case in result.cases for reason in _absent(case, env)]
    if extra:
        text += ". Why: " + "; ".join(dict.fromkeys(extra))
    elif result.verdict == INCONCLUSIVE and not result.aa:
        text += ". Rerun with a larger --budget or on a quieter machine"
    return text + "."

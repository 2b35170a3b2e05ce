"""`mmaplint confirm`: build each requested rule's reproducer, run it here, judge, report."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from . import build, environment, manifest, metrics, report, run, stats
from .errors import ConfirmError
from .manifest import Case, Entry
from .progress import Progress
from .results import CaseResult, MetricResult, RuleResult, conclude

FORMATS = ("text", "json")


@dataclass
class ConfirmRequest:
    rule: str
    params: dict[str, int] = field(default_factory=dict)


def _finding_args(entry: Entry, params: dict[str, int]) -> tuple[list[str], list[str]]:
    """Flags for the finding's constants the reproducer accepts, clamped to what runs in budget."""
    args, notes = [], []
    for key, value in sorted(params.items()):
        spec = entry.finding_params.get(key)
        if spec is None:
            continue
        used = min(max(int(value), spec.minimum), spec.maximum)
        if used != value:
            notes.append(f"{key}={value} from the code, run with {used} (limits {spec.minimum}-{spec.maximum})")
        args += [f"--{spec.flag}", str(used)]
    return args, notes


def _compare(pairs: list[run.Pair], entry: Entry) -> list[MetricResult]:
    out = []
    for m in entry.metrics:
        bad = [metrics.value(p.bad, m.name) for p in pairs]
        fixed = [metrics.value(p.fixed, m.name) for p in pairs]
        if None in bad or None in fixed:
            out.append(MetricResult(m.name, m.primary, None))
            continue
        out.append(MetricResult(m.name, m.primary, stats.compare(bad, fixed, metrics.floor(m.name))))
    return out


def _confirm_case(binary: Path, entry: Entry, case: Case, args: list[str], work: Path,
                  budget: float, progress: Progress, label: str) -> CaseResult:
    started = time.monotonic()
    pairs = run.measure(
        lambda variant: run.run_once(binary, variant, args, work, entry.timeout),
        budget, lambda variant, pair: progress.update(label, variant, pair, budget))
    found = _compare(pairs, entry)
    verdict = stats.combine([m.verdict for m in found if m.primary])
    return CaseResult(case.name, case.expect, len(pairs), time.monotonic() - started,
                      pairs[-1].bad.get("params", {}), found, verdict)


def _confirm_rule(request: ConfirmRequest, entry: Entry, compiler: build.Compiler, work: Path,
                  budget: float, progress: Progress, env: environment.Environment) -> RuleResult:
    binary = build.build(entry, compiler)
    finding_args, notes = _finding_args(entry, request.params)
    cases = []
    for case in entry.cases:
        args = entry.default_args() + list(case.args) + finding_args
        label = request.rule + (f" [{case.name}]" if len(entry.cases) > 1 else "")
        cases.append(_confirm_case(binary, entry, case, args, work, budget / len(entry.cases), progress, label))
    verdict = stats.rule_verdict([(c.verdict, c.expect) for c in cases])
    result = RuleResult(request.rule, entry, notes, cases, verdict)
    result.conclusion = conclude(result, env)
    return result


def _space_needed(requests: list[tuple[ConfirmRequest, Entry]], compiler: build.Compiler, work: Path) -> int:
    """The largest single run: runs happen one at a time in an emptied directory."""
    needed = 0
    for request, entry in requests:
        binary = build.build(entry, compiler)
        finding_args, _ = _finding_args(entry, request.params)
        for case in entry.cases:
            planned = run.plan(binary, entry.default_args() + list(case.args) + finding_args, work)
            needed = max(needed, int(planned.get("disk_bytes", 0)))
    return needed


def _resolve(requests: list[ConfirmRequest]) -> list[tuple[ConfirmRequest, Entry]]:
    if not requests:
        raise ConfirmError("no rule to confirm")
    entries = manifest.load_entries()
    seen, resolved = set(), []
    for request in requests:
        if request.rule in seen:
            continue
        seen.add(request.rule)
        resolved.append((request, manifest.entry_for_rule(request.rule, entries)))
    return resolved


def run_confirm(requests: list[ConfirmRequest], directory: str = ".", budget: float = 20.0,
                fmt: str = "text", out: TextIO = sys.stdout, progress: bool | None = None) -> int:
    """Confirm each requested rule once; 0 when it ran (verdicts in the output), 2 on an error."""
    show = progress if progress is not None else out.isatty()
    meter = Progress(show)
    try:
        if fmt not in FORMATS:
            raise ConfirmError(f"unknown format {fmt!r}; choose {' or '.join(FORMATS)}")
        if not budget > 0:
            raise ConfirmError(f"--budget must be a positive number of seconds, not {budget}")
        resolved = _resolve(requests)
        compiler = build.find_compiler()
        env = environment.detect(directory, compiler.version)
        with run.sigterm_as_interrupt(), run.workspace(directory) as work:
            run.check_space(directory, _space_needed(resolved, compiler, work))
            results = [_confirm_rule(request, entry, compiler, work, budget, meter, env)
                       for request, entry in resolved]
    except ConfirmError as exc:
        meter.clear()
        print(f"mmaplint: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        meter.clear()
        print("mmaplint: error: interrupted; temporary files removed", file=sys.stderr)
        return 2
    meter.clear()
    (report.render_json if fmt == "json" else report.render_text)(results, env, out)
    return 0


def list_corpus(fmt: str = "text", out: TextIO = sys.stdout) -> int:
    try:
        if fmt not in FORMATS:
            raise ConfirmError(f"unknown format {fmt!r}; choose {' or '.join(FORMATS)}")
        report.render_corpus(manifest.load_entries(), fmt, out)
    except ConfirmError as exc:
        print(f"mmaplint: error: {exc}", file=sys.stderr)
        return 2
    return 0

"""`mmaplint confirm`: build each requested rule's reproducer, run it here within its budget,
judge, report.

Exit codes (also of `mmaplint confirm`): 0 every rule measured and none CONFIRMED; 1 at least one
CONFIRMED (a cost measured here, like a finding); 2 a usage error, or a rule that could not be
measured at all (no compiler, a build failure, no space); 128 + N when signal N stopped it
(130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), its temp dir removed and its runs ended.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO, TypeVar

from ..interrupts import Interrupted, interrupts
from . import build, environment, manifest, metrics, report, run, schedule, stats
from .errors import ConfirmError
from .manifest import Case, Entry
from .progress import Progress
from .results import VARIANTS, CaseResult, MetricResult, RuleResult, conclude

T = TypeVar("T")
FORMATS = ("text", "json")
EXIT_NONE_CONFIRMED, EXIT_CONFIRMED, EXIT_ERROR = 0, 1, 2
DEFAULT_BUDGET_S = 30.0
DEFAULT_MAX_WRITTEN = 1 << 30


@dataclass
class ConfirmRequest:
    rule: str
    params: dict[str, int | str] = field(default_factory=dict)
    from_code: bool = False     # params read from a finding: clamped to the reproducer's limits


@dataclass
class Options:
    directory: str = "."
    budget: float = DEFAULT_BUDGET_S          # seconds per rule, build and warm-up included
    max_written: int = DEFAULT_MAX_WRITTEN    # bytes per rule written to --dir's filesystem
    variants: tuple[str, str] = VARIANTS
    plot: str | None = None


def _finding_args(entry: Entry, params: dict) -> tuple[list[str], list[str]]:
    """Flags for the finding's constants the reproducer accepts, clamped to what runs in budget
    (and said so)."""
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


def _user_args(entry: Entry, params: dict, known: dict) -> list[str]:
    """`--param NAME=VALUE`: a parameter of the program (numbers with K/M/G, or words such as
    fill=fault, checked by the program) or a finding parameter the manifest maps to one."""
    args = []
    for key, value in params.items():
        flag = entry.finding_params[key].flag if key in entry.finding_params else key
        if flag not in known:
            names = ", ".join(sorted(set(known) | set(entry.finding_params)))
            raise ConfirmError(f"--param {key}: corpus/{entry.name} has no such parameter; it takes {names}")
        args += [f"--{flag}", str(value)]
    return args


def _compare(pairs: list[schedule.Pair], entry: Entry, case: Case) -> list[MetricResult]:
    out = []
    for m in entry.metrics:
        if case.primary is not None:
            m = dataclasses.replace(m, primary=m.name in case.primary)
        bad = [metrics.value(p.bad, m.name) for p in pairs]
        fixed = [metrics.value(p.fixed, m.name) for p in pairs]
        if not pairs or None in bad or None in fixed:
            out.append(MetricResult(m, None))
            continue
        out.append(MetricResult(m, stats.compare(bad, fixed, metrics.floor(m.name))))
    return out


class _Rule:
    """One rule's confirm: its deadline and write budget shared out over its cases."""

    def __init__(self, request: ConfirmRequest, entry: Entry, compiler: build.Compiler, work: Path,
                 options: Options, meter: Progress) -> None:
        self.request, self.entry, self.work, self.options, self.meter = request, entry, work, options, meter
        self.started = time.monotonic()
        self.deadline = self.started + options.budget
        self.binary = build.build(entry, compiler)

    def args(self) -> tuple[list[str], list[str]]:
        if self.request.from_code:
            return _finding_args(self.entry, self.request.params)
        if not self.request.params:
            return [], []
        known = run.plan(self.binary, [], self.work)["params"]
        return _user_args(self.entry, self.request.params, known), []

    def confirm(self) -> RuleResult:
        extra, notes = self.args()
        plans = [run.plan(self.binary, self.entry.default_args() + list(c.args) + extra, self.work)
                 for c in self.entry.cases]
        run.check_space(self.options.directory, max(int(p.get("disk_bytes", 0)) for p in plans))
        cases, written = [], 0
        for index, (case, planned) in enumerate(zip(self.entry.cases, plans)):
            left = len(self.entry.cases) - index
            deadline = time.monotonic() + (self.deadline - time.monotonic()) / left
            share = (self.options.max_written - written) // left
            cases.append(self._case(case, extra, planned["params"], deadline, share))
            written += cases[-1].measured.bytes_written
        verdict = stats.rule_verdict([(c.verdict, c.expect) for c in cases])
        return RuleResult(self.request.rule, self.entry, notes, cases, verdict,
                          seconds=time.monotonic() - self.started, variants=self.options.variants)

    def _case(self, case: Case, extra: list[str], params: dict, deadline: float, max_bytes: int) -> CaseResult:
        args = self.entry.default_args() + list(case.args) + extra
        label = self.request.rule + (f" [{case.name}]" if len(self.entry.cases) > 1 else "")
        scale = schedule.Scale(self.entry.scale, params.get(self.entry.scale) if self.entry.scale else None)
        started = time.monotonic()

        def one(variant: str, more: list[str], left: float, max_written: float) -> dict:
            return run.run_once(self.binary, variant, args + more, self.work, min(self.entry.timeout, left),
                                max_written)

        def decided(pairs: list[schedule.Pair]) -> bool:
            verdict = stats.combine([m.verdict for m in _compare(pairs, self.entry, case) if m.primary])
            return verdict != stats.INCONCLUSIVE

        measured = schedule.measure(one, self.options.variants, deadline, max_bytes, scale,
                                    lambda variant, pair: self.meter.update(label, variant, pair, self.deadline),
                                    decided=decided)
        found = _compare(measured.pairs, self.entry, case)
        verdict = (stats.INCONCLUSIVE if measured.stopped
                   else stats.combine([m.verdict for m in found if m.primary]))
        if measured.scaled_to is not None:
            params = {**params, self.entry.scale: measured.scaled_to}
        return CaseResult(case.name, case.expect, self.options.variants, measured, time.monotonic() - started,
                          params, found, verdict)


def _resolve(requests: list[ConfirmRequest], skip_unknown: bool) -> tuple[list[tuple[ConfirmRequest, Entry]], list[str]]:
    """Each requested rule's corpus entry.  With `skip_unknown` (check --confirm), a rule whose
    reproducer is not in mmaplint's corpus (a plugin's) is skipped with a notice, not an error."""
    entries = manifest.load_entries()
    seen, resolved, skipped = set(), [], []
    for request in requests:
        if request.rule in seen:
            continue
        seen.add(request.rule)
        try:
            resolved.append((request, manifest.entry_for_rule(request.rule, entries)))
        except ConfirmError as exc:
            if not skip_unknown:
                raise
            skipped.append(f"{request.rule} not confirmed: {exc}")
    return resolved, skipped


def _validate(options: Options) -> None:
    if not options.budget > 0:
        raise ConfirmError(f"--budget must be a positive number of seconds, not {options.budget}")
    if not options.max_written > 0:
        raise ConfirmError(f"--max-written must be a positive number of bytes, not {options.max_written}")
    for variant in options.variants:
        if variant not in VARIANTS:
            raise ConfirmError(f"--variants {','.join(options.variants)}: each must be bad or fixed")
    if options.plot:
        from . import plot
        plot.check(options.plot)


def measure_rules(requests: list[ConfirmRequest], options: Options, meter: Progress,
                  skip_unknown: bool = False) -> tuple[list[RuleResult], environment.Environment, list[str]]:
    """Confirm each requested rule once.  Raises ConfirmError, or Interrupted on a signal
    (install interrupts() around it), always with the temp dir gone and no run left."""
    _validate(options)
    if not requests:
        raise ConfirmError("no rule to confirm")
    resolved, skipped = _resolve(requests, skip_unknown)
    if not resolved:
        return [], environment.detect(options.directory), skipped
    compiler = build.find_compiler()
    env = environment.detect(options.directory, compiler.version)
    results = []
    with run.workspace(options.directory) as work:
        for request, entry in resolved:
            result = _Rule(request, entry, compiler, work, options, meter).confirm()
            results.append(result)
    meter.clear()
    environment.finish(env)
    for result in results:
        result.conclusion = conclude(result, env)
    return results, env, skipped


def exit_code(results: list[RuleResult]) -> int:
    return EXIT_CONFIRMED if any(r.verdict == stats.CONFIRMED for r in results) else EXIT_NONE_CONFIRMED


def guarded(meter: Progress, work: Callable[[], T]) -> tuple[T | None, int | None]:
    """Run `work` with SIGINT, SIGTERM and SIGHUP as clean interrupts: (its result, None), or
    (None, exit code) once the one-line error is printed (2, or 128 + the signal)."""
    try:
        with interrupts():
            return work(), None
    except ConfirmError as exc:
        meter.clear()
        print(f"mmaplint: error: {exc}", file=sys.stderr)
        return None, EXIT_ERROR
    except Interrupted as exc:
        meter.clear()
        print("mmaplint: interrupted; its runs ended and temporary files removed", file=sys.stderr)
        return None, 128 + exc.signum


def run_confirm(requests: list[ConfirmRequest], options: Options | None = None, fmt: str = "text",
                out: TextIO | None = None, progress: bool | None = None) -> int:
    """`mmaplint confirm`: measure, print the report, return the exit code (module docstring)."""
    options = options or Options()
    out = out or sys.stdout
    meter = Progress(sys.stderr.isatty() if progress is None else progress)

    def work() -> list[RuleResult]:
        if fmt not in FORMATS:
            raise ConfirmError(f"unknown format {fmt!r}; choose {' or '.join(FORMATS)}")
        results, env, _ = measure_rules(requests, options, meter)
        (report.render_json if fmt == "json" else report.render_text)(results, env, out)
        if options.plot:
            from . import plot
            plot.write(results, options.plot)
            print(f"mmaplint: wrote {options.plot}", file=sys.stderr)
        return results

    results, code = guarded(meter, work)
    return exit_code(results) if code is None else code


def list_corpus(fmt: str = "text", out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        if fmt not in FORMATS:
            raise ConfirmError(f"unknown format {fmt!r}; choose {' or '.join(FORMATS)}")
        report.render_corpus(manifest.load_entries(), fmt, out)
    except ConfirmError as exc:
        print(f"mmaplint: error: {exc}", file=sys.stderr)
        return 2
    return 0

"""Rendering results: a table and a picture per rule in text, or one JSON document with every
run's raw sample; and the summary a finding carries under `check --confirm`."""
from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import TextIO

from mmaplint import __version__

from . import metrics, picture
from .environment import Environment, Load
from .manifest import Entry
from .metrics import DESCRIPTIONS, format_value
from .results import CaseResult, MetricResult, RuleResult, interval_text, ratio_text

LEGEND = ("  (* primary evidence: the verdict rests on these; (by construction): fixed by the code, shown only; "
          "ratio = Hodges-Lehmann estimate of {a}/{b} with its 95 % confidence interval; sep = P(a {a} run "
          "costs more than a {b} run); counts compare with {count:g} added to both sides, CPU times {cpu} s, "
          "bytes {page:g})")


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def _load(sample: Load | None) -> str:
    if sample is None:
        return "unknown"
    parts = []
    if sample.loadavg:
        parts.append("load " + " ".join(f"{v:.2f}" for v in sample.loadavg))
    some = (sample.io_pressure or {}).get("some")
    if some:
        parts.append(f"io pressure some avg10={some.get('avg10', 0):g} avg60={some.get('avg60', 0):g}")
    return ", ".join(parts) or "unknown"


def environment_lines(env: Environment) -> list[str]:
    fs = env.fstype + (" (through overlayfs)" if env.fs_via else "")
    device = env.block_device or "no block device"
    if env.device_flags:
        device += " (" + ", ".join(f"{k}={v}" for k, v in env.device_flags.items()) + ")"
    dirty = ", ".join(f"{k}={v}" for k, v in env.vm_dirty.items() if v)
    lines = [
        f"environment: mmaplint {env.mmaplint}, Linux {env.kernel}, {env.cpus} CPUs, "
        f"{env.libc or 'libc unknown'}, {env.compiler}",
        f"  target: {env.directory} on {fs} (mount {env.mount_point}, options {env.mount_options}), {device}",
        f"  vm: {dirty or 'unreadable'}; transparent hugepages: {env.thp or 'unknown'}",
        f"  {env.started} -> {env.finished}; at start {_load(env.load_start)}; at end {_load(env.load_end)}",
    ]
    return lines + [f"  warning: {w}" for w in env.warnings]


def _table(case: CaseResult) -> list[str]:
    a, b = case.labels
    rows = [("metric", a, b, "ratio", "95% CI", "sep", "verdict")]
    for m in case.metrics:
        c = m.comparison
        label = m.name + (" *" if m.primary else " (by construction)" if m.metric.by_construction else "")
        if c is None:
            rows.append((label, "-", "-", "-", "-", "-", "n/a"))
            continue
        rows.append((label, format_value(m.name, c.bad), format_value(m.name, c.fixed), ratio_text(c.ratio),
                     interval_text(c), f"{c.separation:.2f}", c.verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def _pictures(case: CaseResult) -> list[str]:
    lines = []
    a, b = case.labels
    for m in case.metrics:
        if not m.primary or m.comparison is None:
            continue
        series = [(a, [metrics.value(p.bad, m.name) for p in case.measured.pairs]),
                  (b, [metrics.value(p.fixed, m.name) for p in case.measured.pairs])]
        drawn = picture.boxes(m.name, series)
        if drawn:
            lines += [f"  {m.name}: {DESCRIPTIONS.get(m.name, m.name)}, one value per run"] + drawn
    return lines


def _case_lines(case: CaseResult, several: bool) -> list[str]:
    lines = [f"  case: {case.name}"] if several else []
    lines.append("  params: " + ", ".join(f"{k}={v}" for k, v in case.params.items()))
    lines += [f"  note: {note}" for note in case.measured.notes]
    lines.append(f"  {case.pairs} pairs (n) after a warm-up pair, alternating which runs first; {case.seconds:.1f} s, "
                 f"{_gib(case.measured.bytes_written)} written")
    if case.measured.stopped:
        lines.append(f"  stopped: {case.measured.stopped}")
    if case.measured.pairs:
        lines += _table(case) + _pictures(case)
    return lines


def render_text(results: list[RuleResult], env: Environment, out: TextIO) -> None:
    lines = environment_lines(env)
    for result in results:
        entry = result.entry
        a, b = result.variants
        lines += ["", f"{result.rule}  corpus/{entry.name}: {entry.summary}",
                  f"  bad:   {entry.variants.get('bad', '')}",
                  f"  fixed: {entry.variants.get('fixed', '')}"]
        if result.aa:
            lines.append(f"  A/A check: {a} against {b}, the same harness: it must not find a cost")
        lines += [f"  note: {note}" for note in result.notes]
        for case in result.cases:
            lines += _case_lines(case, len(result.cases) > 1)
        lines.append(LEGEND.format(a=a, b=b, count=metrics.COUNT_FLOOR, cpu=metrics.CPU_FLOOR,
                                   page=metrics.BYTES_FLOOR))
        lines.append(f"  {result.seconds:.1f} s, {_gib(result.bytes_written)} written to {env.directory}")
        lines.append(f"=> {result.conclusion}")
    out.write("\n".join(lines) + "\n")


def number(value: float | None) -> float | str | None:
    """JSON has no infinity: an infinite ratio is the string "inf", never null (null: unknown)."""
    if value is None:
        return None
    return "inf" if math.isinf(value) else value


def _metric(m: MetricResult) -> dict:
    c = m.comparison
    doc = {"name": m.name, "description": DESCRIPTIONS.get(m.name, m.name), "primary": m.primary,
           "verdict": m.verdict}
    if c is not None:
        doc.update(bad=c.bad, fixed=c.fixed, ratio=number(c.ratio), interval=[number(x) for x in c.interval],
                   confidence=0.95, separation=c.separation, n=c.n, floor=c.floor)
    return doc


def _case(case: CaseResult) -> dict:
    return {
        "name": case.name, "expect": case.expect, "verdict": case.verdict, "stopped": case.measured.stopped,
        "notes": case.measured.notes, "pairs": case.pairs, "seconds": round(case.seconds, 3),
        "bytes_written": case.measured.bytes_written, "params": case.params,
        "metrics": [_metric(m) for m in case.metrics],
        "samples": {"variants": list(case.variants), "warmup": case.measured.warmup,
                    "pairs": [[p.bad, p.fixed] for p in case.measured.pairs]},
    }


def rule_doc(r: RuleResult) -> dict:
    return {
        "rule": r.rule, "reproducer": f"corpus/{r.entry.name}", "variants": list(r.variants),
        "verdict": r.verdict, "conclusion": r.conclusion, "notes": r.notes, "seconds": round(r.seconds, 3),
        "bytes_written": r.bytes_written, "cases": [_case(c) for c in r.cases],
    }


def render_json(results: list[RuleResult], env: Environment, out: TextIO) -> None:
    json.dump({"version": __version__, "environment": asdict(env), "results": [rule_doc(r) for r in results]},
              out, indent=2)
    out.write("\n")


def finding_confirmation(r: RuleResult, env: Environment) -> dict:
    """What a finding carries under `check --confirm`: its rule's verdict, the primary metrics
    (keyed "case: metric" when the reproducer has several cases) and where it was measured."""
    several = len(r.cases) > 1
    primary = {(f"{c.name}: " if several else "") + m.name: _metric(m)
               for c in r.cases for m in c.metrics if m.primary}
    return {"verdict": r.verdict, "conclusion": r.conclusion, "reproducer": f"corpus/{r.entry.name}",
            "seconds": round(r.seconds, 3), "bytes_written": r.bytes_written, "primary": primary,
            "environment": asdict(env)}


def render_corpus(entries: list[Entry], fmt: str, out: TextIO) -> None:
    if fmt == "json":
        json.dump([{"name": e.name, "rules": list(e.rules), "summary": e.summary, "seed": e.seed,
                    "variants": e.variants, "cases": [c.name for c in e.cases],
                    "metrics": [m.name for m in e.metrics],
                    "primary": [m.name for m in e.metrics if m.primary]} for e in entries], out, indent=2)
        out.write("\n")
        return
    entries = sorted(entries, key=lambda e: e.rules)
    width = max(len(e.name) for e in entries)
    for e in entries:
        out.write(f"{', '.join(e.rules):8} corpus/{e.name.ljust(width)}  {e.summary}\n")

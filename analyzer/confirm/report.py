"""Rendering results: a small text table per rule, or one JSON document for tools."""
from __future__ import annotations

import json
from dataclasses import asdict
from typing import TextIO

from .environment import Environment
from .manifest import Entry
from .metrics import DESCRIPTIONS, format_value
from .results import RuleResult


def _environment_lines(env: Environment) -> list[str]:
    fs = env.fstype + (" (through overlayfs)" if env.fs_via else "")
    device = env.block_device or "no block device"
    if env.device_flags:
        device += " (" + ", ".join(f"{k}={v}" for k, v in env.device_flags.items()) + ")"
    dirty = ", ".join(f"{k}={v}" for k, v in env.vm_dirty.items() if v)
    return [
        f"environment: Linux {env.kernel}, {env.cpus} CPUs, {env.libc or 'libc unknown'}, {env.compiler}",
        f"  target: {env.directory} on {fs}, {device}",
        f"  vm: {dirty or 'unreadable'}",
    ]


def _ratio(value: float) -> str:
    return "inf" if value == float("inf") else f"{value:.2f}x"


def _table(result: RuleResult) -> list[str]:
    lines = []
    for case in result.cases:
        if len(result.cases) > 1:
            lines.append(f"  case: {case.name}")
        lines.append("  params: " + ", ".join(f"{k}={v}" for k, v in case.params.items()))
        lines.append(f"  {case.pairs} bad/fixed pairs after a warm-up pair, {case.seconds:.1f} s")
        rows = [("metric", "bad", "fixed", "ratio", "spread", "verdict")]
        for m in case.metrics:
            label = m.name + (" *" if m.primary else "")
            c = m.comparison
            if c is None:
                rows.append((label, "-", "-", "-", "-", "n/a"))
                continue
            rows.append((label, format_value(m.name, c.bad), format_value(m.name, c.fixed), _ratio(c.ratio),
                         f"{_ratio(c.spread[0])}-{_ratio(c.spread[1])}", c.verdict))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return lines


def render_text(results: list[RuleResult], env: Environment, out: TextIO) -> None:
    lines = _environment_lines(env)
    for result in results:
        entry = result.entry
        lines += ["", f"{result.rule}  corpus/{entry.name}: {entry.summary}",
                  f"  bad:   {entry.variants.get('bad', '')}",
                  f"  fixed: {entry.variants.get('fixed', '')}"]
        lines += [f"  note: {note}" for note in result.notes]
        lines += _table(result)
        lines.append("  (* primary evidence; ratio = median bad / median fixed, spread = IQR of per-pair ratios)")
        lines.append(f"=> {result.conclusion}")
    out.write("\n".join(lines) + "\n")


def _jsonable(value: float) -> float | None:
    return None if value == float("inf") else value


def render_json(results: list[RuleResult], env: Environment, out: TextIO) -> None:
    doc = {
        "environment": asdict(env),
        "results": [{
            "rule": r.rule,
            "reproducer": f"corpus/{r.entry.name}",
            "notes": r.notes,
            "verdict": r.verdict,
            "conclusion": r.conclusion,
            "cases": [{
                "name": c.name,
                "expect": c.expect,
                "pairs": c.pairs,
                "seconds": round(c.seconds, 3),
                "params": c.params,
                "verdict": c.verdict,
                "metrics": [{
                    "name": m.name,
                    "description": DESCRIPTIONS.get(m.name, m.name),
                    "primary": m.primary,
                    "bad": m.comparison.bad if m.comparison else None,
                    "fixed": m.comparison.fixed if m.comparison else None,
                    "ratio": _jsonable(m.comparison.ratio) if m.comparison else None,
                    "spread": [_jsonable(x) for x in m.comparison.spread] if m.comparison else None,
                    "separation": m.comparison.separation if m.comparison else None,
                    "verdict": m.verdict,
                } for m in c.metrics],
            } for c in r.cases],
        } for r in results],
    }
    json.dump(doc, out, indent=2)
    out.write("\n")


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

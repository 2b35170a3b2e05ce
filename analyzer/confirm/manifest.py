"""Corpus entries: each directory of the mmaplint.corpus package with a manifest.toml beside its C."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable

from .errors import ConfirmError

CORPUS_PACKAGE = "mmaplint.corpus"
COMMON_DIR = "common"          # shared header, not an entry


@dataclass(frozen=True)
class Metric:
    name: str
    primary: bool = False
    absent: str | None = None   # why this cost may not show here, said when it does not
    by_construction: bool = False   # fixed by the code (write calls, mappings kept): shown, not a cost


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...] = ()
    expect: str = "cost"       # "cost": bad should cost more; "none": no difference expected
    primary: tuple[str, ...] | None = None   # this case's primary metrics, when not the entry's


@dataclass(frozen=True)
class FindingParam:
    flag: str
    minimum: int
    maximum: int


@dataclass(frozen=True)
class Entry:
    name: str
    rules: tuple[str, ...]
    summary: str
    seed: str
    variants: dict[str, str]
    defaults: dict[str, int | str]
    metrics: tuple[Metric, ...]
    cases: tuple[Case, ...]
    finding_params: dict[str, FindingParam] = field(default_factory=dict)
    depends_on: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    scale: str | None = None    # the parameter the work grows with, lowered to fit the budget

    @property
    def source_name(self) -> str:
        return f"{self.name}.c"

    def default_args(self) -> list[str]:
        return [arg for key, value in self.defaults.items() for arg in (f"--{key}", str(value))]


def corpus_root() -> Traversable:
    return resources.files(CORPUS_PACKAGE)


def _parse(name: str, data: dict) -> Entry:
    try:
        cases = tuple(Case(c["name"], tuple(c.get("args", ())), c.get("expect", "cost"),
                           tuple(c["primary"]) if "primary" in c else None)
                      for c in data.get("cases", ())) or (Case("default"),)
        return Entry(
            name=name,
            rules=tuple(data["rules"]),
            summary=data["summary"],
            seed=data["seed"],
            variants=dict(data["variants"]),
            defaults=dict(data.get("defaults", {})),
            metrics=tuple(Metric(m["name"], bool(m.get("primary", False)), m.get("absent"),
                                 bool(m.get("by_construction", False))) for m in data["metrics"]),
            cases=cases,
            finding_params={k: FindingParam(v["flag"], int(v["min"]), int(v["max"]))
                            for k, v in data.get("finding_params", {}).items()},
            depends_on=dict(data.get("depends_on", {})),
            timeout=float(data.get("timeout", 60)),
            scale=data.get("scale"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfirmError(f"corpus entry {name}: malformed manifest.toml ({exc!r})") from exc


def load_entries() -> list[Entry]:
    entries = []
    for item in sorted(corpus_root().iterdir(), key=lambda t: t.name):
        manifest = item / "manifest.toml"
        if item.name == COMMON_DIR or not manifest.is_file():
            continue
        try:
            data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfirmError(f"corpus entry {item.name}: manifest.toml is not valid TOML ({exc})") from exc
        entries.append(_parse(item.name, data))
    return entries


def entry_for_rule(rule: str, entries: list[Entry]) -> Entry:
    for entry in entries:
        if rule in entry.rules:
            return entry
    known = ", ".join(sorted(r for e in entries for r in e.rules))
    raise ConfirmError(f"{rule} has no runtime reproducer in mmaplint's corpus; rules that have one: {known}")

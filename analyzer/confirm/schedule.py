"""The order and number of runs within a time and a write budget: a warm-up pair that is also
the first timed one, the work scaled down when that pair shows the rest would not fit, then pairs
alternating which variant goes first, until the budget or MAX_PAIRS."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .run import RunStopped
from .stats import MIN_PAIRS

MAX_PAIRS = 40
LOOKS = (15, 25)      # pair counts at which a decided verdict ends the measurement early
TARGET_PAIRS = 10     # what the scaling aims to fit in what the warm-up pair left
WARMUP_SHARE = 3      # a warm-up run may take a third of the time left, else the work is cut
WARMUP_CUT = 8
MIN_FACTOR = 1 / 512  # below this the reproducer would not measure the same thing any more


@dataclass
class Pair:
    bad: dict          # the first variant's sample (the pattern, or variant A of an A/A check)
    fixed: dict


@dataclass
class Scale:
    """The one parameter the work grows with (records, stores, passes), as the program resolved
    it; scaling sets it lower, never higher."""
    name: str | None
    value: int | None

    def args(self, factor: float) -> tuple[list[str], int | None]:
        if self.name is None or self.value is None or factor >= 1:
            return [], self.value
        scaled = max(1, int(self.value * factor))
        return [f"--{self.name}", str(scaled)], scaled


@dataclass
class Measured:
    pairs: list[Pair] = field(default_factory=list)
    warmup: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None        # why there is no verdict to draw, when there is none
    bytes_written: int = 0
    scaled_to: int | None = None


def unequal_work(pair: Pair) -> str | None:
    """Both variants must do the same work, counted by the programs as they do it: the useful
    bytes they stored, wrote or read, and the logical operations."""
    for key in ("useful_bytes", "ops"):
        if pair.bad.get(key) != pair.fixed.get(key):
            return (f"the variants did unequal work ({key} {pair.bad.get(key)} vs {pair.fixed.get(key)}): "
                    "the reproducer is broken, please report it")
    return None


def _written(sample: dict) -> int:
    return int(sample.get("total_write_bytes") or 0)


def _mib(n: float) -> str:
    return f"{n / (1 << 20):.0f} MiB"


def measure(run: Callable[[str, list[str], float, float], dict], variants: tuple[str, str], deadline: float,
            max_bytes: int, scale: Scale, on_run: Callable[[str, int], None] = lambda v, p: None,
            clock: Callable[[], float] = time.monotonic,
            decided: Callable[[list[Pair]], bool] = lambda pairs: False) -> Measured:
    """`run(variant, extra_args, timeout, max_written)` runs one variant, or raises RunStopped;
    nothing here runs past `deadline` or writes past `max_bytes` (a run is given only the time
    and the bytes left, give or take what it writes in run.POLL_S).  Pairs go on until MAX_PAIRS
    or the budget, or until `decided(pairs)` at one of a few LOOKS (a few looks, not one per
    pair: every look is a chance for noise to decide)."""
    out = Measured()
    extra: list[str] = []

    def timed(variant: str, pair: int, limit: float = float("inf"), byte_limit: float = float("inf")) -> dict:
        left = min(deadline - clock(), limit)
        if left <= 0:
            raise RunStopped(variant, "had no time left")
        on_run(variant, pair)
        try:
            sample = run(variant, extra, left, min(max(max_bytes - out.bytes_written, 0), byte_limit))
        except RunStopped as exc:
            out.bytes_written += exc.written
            raise
        out.bytes_written += _written(sample)
        return sample

    factor = 1.0
    while True:     # the warm-up pair, the first timed one; cut the work by 8 while it cannot
        extra, out.scaled_to = scale.args(factor)   # finish in a third of the time or the bytes left
        started = clock()
        try:
            limit = (deadline - started) / WARMUP_SHARE
            out.warmup = [timed(variant, 0, limit, max_bytes / WARMUP_SHARE / 2) for variant in variants]
            break
        except RunStopped as exc:
            where = f" at {scale.name}={scale.args(factor)[1]}" if scale.name else ""
            if not scale.name or factor / WARMUP_CUT < MIN_FACTOR or deadline - clock() <= 0:
                out.stopped = f"{exc}{where}: the budget is too small for even a warm-up pair"
                return out
            out.notes.append(f"warm-up: {exc}{where}; work cut by {WARMUP_CUT}")
            factor /= WARMUP_CUT
    pair_s = clock() - started
    pair_bytes = sum(_written(s) for s in out.warmup)
    out.stopped = unequal_work(Pair(*out.warmup))
    if out.stopped:
        return out
    left_s, left_bytes = deadline - clock(), max_bytes - out.bytes_written
    fit = min(1.0, left_s / (TARGET_PAIRS * pair_s) if pair_s > 0 else 1.0,
              left_bytes / (TARGET_PAIRS * pair_bytes) if pair_bytes else 1.0)
    if fit < 1 and scale.name:
        if fit * factor < MIN_FACTOR:
            out.stopped = (f"the warm-up pair took {pair_s:.1f} s and wrote {_mib(pair_bytes)} at "
                           f"{scale.name}={out.scaled_to}: too much for what is left of the budget "
                           f"({max(left_s, 0):.1f} s, {_mib(max(left_bytes, 0))} to write)")
            return out
        before = out.scaled_to
        extra, out.scaled_to = scale.args(factor * fit)
        out.notes.append(f"scaled {scale.name} {before} -> {out.scaled_to} to fit {TARGET_PAIRS} pairs in "
                         f"what is left of the budget ({left_s:.1f} s, {_mib(left_bytes)} to write): the "
                         f"warm-up pair took {pair_s:.1f} s" + (f" and wrote {_mib(pair_bytes)}" if pair_bytes else ""))
        pair_s, pair_bytes = pair_s * fit, pair_bytes * fit
    try:
        while len(out.pairs) < MAX_PAIRS:
            if clock() + pair_s > deadline or out.bytes_written + pair_bytes > max_bytes:
                break
            order = (0, 1) if len(out.pairs) % 2 == 0 else (1, 0)    # slots, so A/A alternates too
            started, before_bytes = clock(), out.bytes_written
            samples = {slot: timed(variants[slot], len(out.pairs) + 1) for slot in order}
            out.pairs.append(Pair(samples[0], samples[1]))
            out.stopped = unequal_work(out.pairs[-1])
            if out.stopped:
                return out
            pair_s = max(pair_s, clock() - started)
            pair_bytes = max(pair_bytes, out.bytes_written - before_bytes)
            if len(out.pairs) in LOOKS and decided(out.pairs):
                break
    except RunStopped as exc:
        if len(out.pairs) >= MIN_PAIRS:
            out.notes.append(f"{exc}: stopped at the budget's end")
            return out
        out.stopped = f"{exc} (the budget's end; {len(out.pairs)} of the {MIN_PAIRS} pairs a verdict needs were done)"
        return out
    if len(out.pairs) < MIN_PAIRS:
        limit = "the write budget" if out.bytes_written + pair_bytes > max_bytes else "the time budget"
        out.stopped = (f"only {len(out.pairs)} of the {MIN_PAIRS} pairs a verdict needs fit in {limit} "
                       f"(a pair takes {pair_s:.1f} s" + (f" and writes {_mib(pair_bytes)}" if pair_bytes else "")
                       + ")")
    return out

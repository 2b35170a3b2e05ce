"""The two distributions of a metric side by side in text: one box plot per variant on a shared
axis (whiskers from the smallest to the largest run, the box over the middle half, | the median),
logarithmic when the values span more than a factor of 20."""
from __future__ import annotations

import math
import statistics

from .metrics import format_value

WIDTH = 48
LOG_SPAN = 20.0


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def _axis(values: list[float]):
    low, high = min(values), max(values)
    log = low > 0 and high / low > LOG_SPAN
    if log:
        low, high = math.log(low), math.log(high)

    def position(v: float) -> int:
        x = math.log(v) if log else v
        return 0 if high == low else round((x - low) / (high - low) * (WIDTH - 1))
    return position, log


def _row(values: list[float], position) -> str:
    cells = [" "] * WIDTH
    q1, median, q3 = _quartiles(sorted(values))
    for i in range(position(min(values)), position(max(values)) + 1):
        cells[i] = "-"
    for i in range(position(q1), position(q3) + 1):
        cells[i] = "="
    cells[position(median)] = "|"
    return "".join(cells)


def boxes(name: str, series: list[tuple[str, list[float]]]) -> list[str]:
    """Lines drawing each (label, samples) of metric `name` on one axis."""
    values = [v for _, samples in series for v in samples if v is not None and math.isfinite(v)]
    if not values:
        return []
    position, log = _axis(values)
    width = max(len(label) for label, _ in series)
    lines = [f"    {label.ljust(width)} [{_row([v for v in samples if v is not None], position)}] "
             f"median {format_value(name, statistics.median(samples))}" for label, samples in series if samples]
    low, high = format_value(name, min(values)), format_value(name, max(values))
    scale = "log scale" if log else "linear"
    lines.append(f"    {' ' * width}  {low}{(scale).center(WIDTH - len(low) - len(high))}{high}")
    return lines

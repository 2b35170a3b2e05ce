"""`--plot FILE`: the two distributions of each primary metric drawn side by side with matplotlib
(the `mmaplint[plot]` extra), as SVG or PNG by the file's extension."""
from __future__ import annotations

import math
import os
import textwrap

from . import metrics
from .errors import ConfirmError
from .metrics import DESCRIPTIONS
from .results import RuleResult, interval_text, ratio_text

FORMATS = {".svg": "svg", ".png": "png"}


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")            # files only: never a window, works without a display
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfirmError("--plot needs matplotlib: pip install 'mmaplint[plot]'") from None
    return plt


def check(path: str) -> None:
    """Fail before measuring, not after: the extension and the library."""
    if os.path.splitext(path)[1].lower() not in FORMATS:
        raise ConfirmError(f"--plot {path}: the file name must end in .svg or .png")
    _pyplot()


def write(results: list[RuleResult], path: str) -> None:
    plt = _pyplot()
    panels = [(r, c, m) for r in results for c in r.cases for m in c.metrics
              if m.primary and m.comparison is not None and c.measured.pairs]
    if not panels:
        raise ConfirmError(f"--plot {path}: no measurement to draw")
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.4 * columns, 3.9 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (result, case, m) in zip(axes.flat, panels):
        a, b = case.labels
        series = [[metrics.value(p.bad, m.name) for p in case.measured.pairs],
                  [metrics.value(p.fixed, m.name) for p in case.measured.pairs]]
        ax.boxplot(series, widths=0.5, showfliers=False)
        for x, values in enumerate(series, 1):
            spread = [x + 0.12 * ((i % 5) - 2) / 2 for i in range(len(values))]   # jitter, deterministic
            ax.scatter(spread, values, s=14, alpha=0.7, zorder=3)
        ax.set_xticks([1, 2], [a, b])
        finite = [v for values in series for v in values if v > 0]
        if finite and max(finite) / min(finite) > 20 and min(v for values in series for v in values) > 0:
            ax.set_yscale("log")
        c = m.comparison
        title = result.rule + (f" [{case.name}]" if len(result.cases) > 1 else "")
        what = textwrap.shorten(DESCRIPTIONS.get(m.name, m.name), 44, placeholder="...")
        ax.set_title(f"{title}: {c.verdict}\n{what}\n{ratio_text(c.ratio)} (95% CI {interval_text(c)}), n={c.n}",
                     fontsize=9)
        ax.set_ylabel(m.name)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    try:
        fig.savefig(path, format=FORMATS[os.path.splitext(path)[1].lower()])
    except OSError as exc:
        raise ConfirmError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)

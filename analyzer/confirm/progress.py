"""A one-line progress display on stderr (when stderr is a terminal), shown once a confirmation
has taken two seconds."""
from __future__ import annotations

import sys
import time

SHOW_AFTER_S = 2.0


class Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.monotonic()
        self.shown = False

    def update(self, label: str, variant: str, pair: int, deadline: float) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.start < SHOW_AFTER_S:
            return
        step = "warm-up" if pair == 0 else f"pair {pair}"
        sys.stderr.write(f"\r\033[K{label}: {step}, {variant} ({now - self.start:.0f} s, "
                         f"{max(deadline - now, 0):.0f} s of its budget left)")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False

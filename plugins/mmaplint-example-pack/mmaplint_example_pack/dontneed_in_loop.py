"""EXA001 dontneed-in-loop: madvise(MADV_DONTNEED) on every iteration of a loop.

## What it does
Reports `madvise()` or `posix_madvise()` with `MADV_DONTNEED` when the call runs
once per iteration of a loop, directly or through the functions the loop calls.
This rule comes from mmaplint's example rule pack, which shows how a plugin is
written: a module with a docstring, a few constants and `check(program)`.

## Why is this bad?
`MADV_DONTNEED` drops the pages of the range at once: for a private or anonymous
mapping their contents are gone, and the next touch of each page takes a fresh
page fault (a zeroed page, or a read from the file). Dropping and touching the
same buffer every iteration turns each iteration into a page-fault storm and a
TLB shootdown on every core the process runs on.

## Example
```c
for (int i = 0; i < n; i++) {
    fill(buf, len);
    consume(buf, len);
    madvise(buf, len, MADV_DONTNEED);   /* EXA001 */
}
```

## Use instead
Reuse the buffer as it is; release memory once, after the loop, or use
`MADV_FREE`, which lets the kernel reclaim the pages only under memory pressure.
"""
from mmaplint.analyzer.constants import MADV_FLAGS
from mmaplint.analyzer.program import Program
from mmaplint.analyzer.registry import Hit

ID = "EXA001"
NAME = "dontneed-in-loop"
SEVERITY = "warning"
SUMMARY = "madvise(MADV_DONTNEED) on every iteration of a loop"
HELP = "release the memory once after the loop, or use MADV_FREE"
CALLEES = {"madvise", "posix_madvise"}
REPRODUCER = None


def check(program: Program):
    for call in program.calls(*CALLEES):
        if "MADV_DONTNEED" not in program.call_flags(call, 2, MADV_FLAGS):
            continue
        hot = program.call_per_iteration(call)
        if hot is not None:
            yield Hit(call.span, f"{call.callee}(MADV_DONTNEED) runs {hot.describe()}: every "
                      "iteration drops the pages and faults them back in", related=hot.related())

"""EXA001 fsync-in-loop: fsync() or fdatasync() on every iteration of a loop.

## What it does
Reports a call to `fsync()` or `fdatasync()` that runs once per iteration of a
loop, directly or through the functions the loop calls. This rule comes from
mmaplint's example rule pack, which shows how a plugin is written.

## Why is this bad?
Each call waits for the device to make the file's data durable. Called per
record, the loop runs at the device's flush latency instead of its bandwidth.

## Example
```c
for (int i = 0; i < n; i++) {
    write(fd, rec[i], size);
    fsync(fd);                      /* EXA001 */
}
```

## Use instead
Write the batch, then `fdatasync()` once per batch or commit.
"""
from mmaplint.analyzer.program import Program
from mmaplint.analyzer.registry import Hit

ID = "EXA001"
NAME = "fsync-in-loop"
SEVERITY = "warning"
SUMMARY = "fsync() or fdatasync() on every iteration of a loop"
HELP = "sync once per batch after the loop"
CALLEES = {"fsync", "fdatasync"}
REPRODUCER = None


def check(program: Program):
    for call in program.calls(*CALLEES):
        hot = program.call_per_iteration(call)
        if hot is not None:
            yield Hit(call.span, f"{call.callee}() runs {hot.describe()}: each call waits for "
                      "the device", related=hot.related())

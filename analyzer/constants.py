"""Linux (x86-64, glibc) values of the flag families the rules reason about.

Frontends keep a flag's spelling when the source spells it; these tables decode
the cases where only a number is known (a literal `msync(p, n, 4)`, or a value
clang evaluated from a macro whose spelling was lost in an expansion).
"""
from __future__ import annotations

OPEN_FLAGS = {
    "O_RDONLY": 0o0, "O_WRONLY": 0o1, "O_RDWR": 0o2, "O_CREAT": 0o100, "O_EXCL": 0o200,
    "O_NOCTTY": 0o400, "O_TRUNC": 0o1000, "O_APPEND": 0o2000, "O_NONBLOCK": 0o4000,
    "O_DSYNC": 0o10000, "O_ASYNC": 0o20000, "O_DIRECT": 0o40000, "O_DIRECTORY": 0o200000,
    "O_NOFOLLOW": 0o400000, "O_NOATIME": 0o1000000, "O_CLOEXEC": 0o2000000,
    "O_SYNC": 0o4010000, "O_RSYNC": 0o4010000, "O_PATH": 0o10000000, "O_TMPFILE": 0o20200000,
    "O_NDELAY": 0o4000, "O_FSYNC": 0o4010000, "O_LARGEFILE": 0o0,
}
# Open flags that make every write() on the descriptor wait for the device.
SYNC_OPEN_FLAGS = frozenset({"O_DSYNC", "O_SYNC", "O_FSYNC", "O_RSYNC"})
MSYNC_FLAGS = {"MS_ASYNC": 1, "MS_INVALIDATE": 2, "MS_SYNC": 4}
PROT_FLAGS = {"PROT_NONE": 0, "PROT_READ": 1, "PROT_WRITE": 2, "PROT_EXEC": 4}
MAP_FLAGS = {
    "MAP_SHARED": 0x1, "MAP_PRIVATE": 0x2, "MAP_SHARED_VALIDATE": 0x3, "MAP_FIXED": 0x10,
    "MAP_ANONYMOUS": 0x20, "MAP_ANON": 0x20, "MAP_GROWSDOWN": 0x100, "MAP_DENYWRITE": 0x800,
    "MAP_EXECUTABLE": 0x1000, "MAP_LOCKED": 0x2000, "MAP_NORESERVE": 0x4000,
    "MAP_POPULATE": 0x8000, "MAP_NONBLOCK": 0x10000, "MAP_STACK": 0x20000,
    "MAP_HUGETLB": 0x40000, "MAP_SYNC": 0x80000, "MAP_FIXED_NOREPLACE": 0x100000,
}
MADV_FLAGS = {
    "MADV_NORMAL": 0, "MADV_RANDOM": 1, "MADV_SEQUENTIAL": 2, "MADV_WILLNEED": 3,
    "MADV_DONTNEED": 4, "MADV_FREE": 8, "MADV_REMOVE": 9, "MADV_DONTFORK": 10,
    "MADV_DOFORK": 11, "MADV_MERGEABLE": 12, "MADV_UNMERGEABLE": 13, "MADV_HUGEPAGE": 14,
    "MADV_NOHUGEPAGE": 15, "MADV_DONTDUMP": 16, "MADV_DODUMP": 17, "MADV_WIPEONFORK": 18,
    "MADV_KEEPONFORK": 19, "MADV_COLD": 20, "MADV_PAGEOUT": 21,
}
STDIO_MODES = {"_IOFBF": 0, "_IOLBF": 1, "_IONBF": 2}
FCNTL_COMMANDS = {"F_GETFL": 3, "F_SETFL": 4}
SYNC_FILE_RANGE_FLAGS = {
    "SYNC_FILE_RANGE_WAIT_BEFORE": 1, "SYNC_FILE_RANGE_WRITE": 2, "SYNC_FILE_RANGE_WAIT_AFTER": 4,
}

# Families whose values are bit sets (decoded bit by bit) rather than enumerations.
BIT_FAMILIES = (OPEN_FLAGS, MSYNC_FLAGS, PROT_FLAGS, MAP_FLAGS, SYNC_FILE_RANGE_FLAGS)

ALL_CONSTANTS: dict[str, int] = {}
for _family in (OPEN_FLAGS, MSYNC_FLAGS, PROT_FLAGS, MAP_FLAGS, MADV_FLAGS, STDIO_MODES,
                FCNTL_COMMANDS, SYNC_FILE_RANGE_FLAGS):
    ALL_CONSTANTS.update(_family)


def decode(value: int, family: dict[str, int]) -> set[str]:
    """The names a numeric flag value stands for within one family."""
    if family not in BIT_FAMILIES:
        return {name for name, v in family.items() if v == value}
    names = {name for name, v in family.items() if v and v & value == v}
    if family is OPEN_FLAGS and value & 0o3 == 0:
        names.add("O_RDONLY")
    return names

# stdio's reads -> the index of the stream they read
STREAM_READS = {"fread": 3, "fgets": 2, "fgetc": 0, "getc": 0, "getline": 2, "getdelim": 3, "fscanf": 0}

# C library functions a program may define for platforms that lack them (a compat directory's
# vsnprintf, fio's fdatasync for Windows): on Linux the library's own run, not the program's.
LIBC_FUNCTIONS = frozenset({
    "open", "openat", "creat", "close", "dup", "dup2", "fcntl", "read", "write", "pread", "pwrite", "readv",
    "writev", "pwritev", "lseek", "ftruncate", "fallocate", "posix_fallocate", "fsync", "fdatasync", "sync",
    "syncfs", "sync_file_range", "mmap", "munmap", "msync", "mprotect", "madvise", "posix_madvise", "mremap",
    "fopen", "fdopen", "freopen", "fclose", "fflush", "setvbuf", "setbuf", "setbuffer", "setlinebuf", "fread",
    "fwrite", "fputs", "fputc", "putc", "fgets", "fgetc", "getc", "fseek", "ftell", "rewind", "fileno",
    "memcpy", "memmove", "memset", "strcpy", "strncpy", "bcopy", "sleep", "usleep", "nanosleep",
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf", "asprintf",
    "vasprintf", "dprintf", "vdprintf", "getline", "getdelim", "strdup", "strndup", "strnlen", "strlcpy",
    "strlcat", "strsep", "strcasestr", "strchrnul", "memmem", "memrchr", "mempcpy", "stpcpy", "setenv",
    "unsetenv", "mkstemp", "mkostemp", "mkdtemp", "pread", "pwrite", "readv", "writev", "fsync",
    "fdatasync", "fallocate", "posix_fallocate", "realpath", "basename", "dirname", "getopt",
    "getopt_long", "qsort", "timegm", "scandir", "alphasort", "fnmatch", "fmemopen", "open_memstream",
    "err", "errx", "warn", "warnx", "verr", "verrx", "vwarn", "vwarnx", "reallocarray", "explicit_bzero",
})

"""mmaplint: a static analyzer and workload lint for C and C++ I/O patterns."""
__version__ = "0.1.0"

"""mmaplint's exit statuses (and 128 + N when signal N stops it: interrupts.py)."""
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3

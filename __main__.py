"""`python -m mmaplint`."""
import sys

from mmaplint.analyzer.cli import main

sys.exit(main())

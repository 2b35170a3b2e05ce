"""`python -m mmaplint`."""
import sys

from mmaplint.analyzer.entry import main

sys.exit(main())

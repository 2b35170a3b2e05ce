"""`python -m mmaplint`."""
from mmaplint.analyzer.entry import main

main()

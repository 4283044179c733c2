"""`python -m statedump`."""

from statedump.cli import main

main()

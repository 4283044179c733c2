"""`python -m benchmarks`: see benchmarks/run.py."""

import sys

from benchmarks.run import run

sys.exit(run())

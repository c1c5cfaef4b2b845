import sys

from nodepools.cli import run

sys.exit(run())

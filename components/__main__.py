import sys

from nodepools.planning.cli import run

sys.exit(run())

import sys

from nodepools.planning.cli import main

sys.exit(main(owns_process=True))

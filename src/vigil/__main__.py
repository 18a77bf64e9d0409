"""``python -m vigil``: the command line."""

from vigil.cli import main

main()

"""`python -m pyir ...` is the `pyir` command."""

from pyir.cli.main import main

main()

"""`python -m tcplab.cli`: the `tcplab` script."""

from tcplab.cli.commands import main

main()

"""``python -m execlens`` runs the command line."""

from execlens.cli import main

main()

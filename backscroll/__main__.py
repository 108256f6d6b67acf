"""``python -m backscroll`` runs the command line."""

from backscroll.cli import main

main()

"""``python -m backscroll`` runs the command line."""

from .cli import main

main()

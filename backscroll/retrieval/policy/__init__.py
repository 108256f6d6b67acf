"""Search policies, one per module: repeated searches are not run again."""

"""``python -m backscroll.store DB``: open the store at DB, and so upgrade it to this version's schema (what
``upgrade.upgrade_apart`` starts for a recall hook, which cannot wait for it)."""

import sys
from pathlib import Path

from backscroll.store.db import Store

Store.open(Path(sys.argv[1])).close()

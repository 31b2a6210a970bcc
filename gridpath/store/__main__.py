"""``python -m gridpath.store push DIR``: see :mod:`gridpath.store.push`."""

import sys

from gridpath.store.push import main

if sys.argv[1:2] != ["push"]:
    print(
        "usage: python -m gridpath.store push DIR [--store redis://host:port/db]", file=sys.stderr
    )
    sys.exit(2)
sys.exit(main(sys.argv[2:]))

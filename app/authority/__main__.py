"""``python -m app.authority push DIR``: see :mod:`app.authority.push`."""

import sys

from app.authority.push import main

if sys.argv[1:2] != ["push"]:
    print("usage: python -m app.authority push DIR [--store redis://host:port/db]", file=sys.stderr)
    sys.exit(2)
sys.exit(main(sys.argv[2:]))

"""The search runners, one module each (see :mod:`app.search.runner` for the contract and
:mod:`app.search.registry` for which algorithm uses which)."""

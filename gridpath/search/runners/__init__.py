"""The search runners, one module each (see :mod:`gridpath.search.runner` for the contract and
:mod:`gridpath.search.algorithms` for which algorithm uses which)."""

"""The gridpath service: the FastAPI application around the gridpath library
(``uvicorn app.main:app``, ``python -m app``); docs/architecture.md draws it."""

"""The local API of `b2g gui`: a thin FastAPI adapter over bib2graph.service (extra `[gui]`).

Nothing here is imported by the core or by the CLI module: `b2g gui` imports `api.launch` when it
runs, and that checks for the extra before importing FastAPI (`app.create_app`). docs/api.md says
what it serves; `statuses` maps the contract's errors to HTTP statuses.
"""

"""Read-only SQL over the workspace's Parquet artifacts, with DuckDB as the engine.

Each call opens an in-memory DuckDB connection (nothing is written to disk, no lock is taken), so
readers never block a running workflow and never leave files behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def rows(sql: str, params: list[Any] | None = None) -> list[tuple]:
    """Run `sql` (which names Parquet files with read_parquet(?)) and return its rows."""
    import duckdb  # imported here: most CLI calls never query

    with duckdb.connect(":memory:") as con:
        return con.execute(sql, params or []).fetchall()


def count(path: str | Path) -> int | None:
    """Rows in a Parquet file, from its footer; None when the file does not exist."""
    path = Path(path)
    if not path.is_file():
        return None
    return rows("SELECT count(*) FROM read_parquet(?)", [str(path)])[0][0]


def column(path: str | Path, name: str) -> set:
    """The distinct values of one column of a Parquet file."""
    return {r[0] for r in rows(f'SELECT DISTINCT "{name}" FROM read_parquet(?)', [str(path)])}

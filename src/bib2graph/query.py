"""Read-only SQL over the workspace's Parquet artifacts, with DuckDB as the engine.

Each call opens an in-memory DuckDB connection (nothing is written to disk, no lock is taken), so
readers never block a running workflow and never leave files behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import DataError


def rows(sql: str, params: list[Any] | None = None) -> list[tuple]:
    """Run `sql` (which names Parquet files with read_parquet(?)) and return its rows.

    A file DuckDB cannot read (truncated, not Parquet, missing a column) is a DataError naming it.
    """
    return _run(sql, params, named=False)


def records(sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """As `rows`, each row a dict keyed by the query's column names (what the service layer returns)."""
    return _run(sql, params, named=True)


def arrow(sql: str, params: list[Any] | None = None):
    """As `rows`, the answer as one pyarrow Table (for a caller that keeps many rows)."""
    return _run(sql, params, named=None)


def _run(sql: str, params: list[Any] | None, named: bool | None) -> Any:
    import duckdb  # imported here: most CLI calls never query

    try:
        with duckdb.connect(":memory:") as con:
            if named is None:
                relation = con.sql(sql, params=params or [])
                fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table   # renamed in DuckDB 1.4
                return fetch()
            cursor = con.execute(sql, params or [])
            found = cursor.fetchall()
            if not named:
                return found
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in found]
    except duckdb.Error as exc:
        files = [p for p in params or [] if isinstance(p, str) and p.endswith(".parquet")]
        files = [f for f in files if f"'{f}'" in str(exc)] or files   # the one DuckDB names, when it names one
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(f"cannot read {', '.join(files) or 'the artifacts'}: {reason}; `b2g run` rebuilds it",
                        code="ARTIFACT_CORRUPT", details={"files": files}) from None


def count(path: str | Path) -> int | None:
    """Rows in a Parquet file, from its footer; None when the file does not exist."""
    path = Path(path)
    if not path.is_file():
        return None
    return rows("SELECT count(*) FROM read_parquet(?)", [str(path)])[0][0]


def columns(path: str | Path) -> list[str]:
    """The column names of a Parquet file (a table another version may have extended)."""
    return [r[0] for r in rows("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)])]


def column(path: str | Path, name: str) -> set:
    """The distinct values of one column of a Parquet file."""
    return {r[0] for r in rows(f'SELECT DISTINCT "{name}" FROM read_parquet(?)', [str(path)])}

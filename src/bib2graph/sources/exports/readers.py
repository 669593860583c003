"""Which reader reads which export format: the one table of formats (detect.py finds a file's format
from its content, and imports this table; nothing here imports detect.py)."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Iterator

from ...skips import Skips
from .record import Record

# format → (module, function); modules are imported only when a file of theirs is read.
READERS: dict[str, tuple[str, str]] = {
    "wos": ("wos", "read_wos"),
    "wos-tab": ("wos", "read_wos_tab"),
    "scopus-csv": ("scopus", "read_scopus_csv"),
    "ris": ("ris", "read_ris"),
    "bibtex": ("bibtex", "read_bibtex"),
    "pubmed": ("pubmed", "read_pubmed"),
    "pubmed-xml": ("pubmed_xml", "read_pubmed_xml"),
    "cochrane": ("cochrane", "read_cochrane"),
    "dimensions-csv": ("dimensions", "read_dimensions_csv"),
    "lens-csv": ("lens", "read_lens_csv"),
    "openalex-csv": ("openalex_csv", "read_openalex_csv"),
    "csl-json": ("csl_json", "read_csl_json"),
}
OPENALEX_JSON = "openalex-json"
FORMATS = (OPENALEX_JSON, *READERS)


def read_records(path: Path, name: str, fmt: str, skips: Skips) -> Iterator[Record]:
    """The records of one export file in `fmt` (not OpenAlex JSON, which sources/files.py reads)."""
    module, function = READERS[fmt]
    return getattr(import_module(f"{__package__}.{module}"), function)(path, name, skips)

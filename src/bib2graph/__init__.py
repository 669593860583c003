"""bib2graph: from a research spec to a reproducible map of a literature."""

__version__ = "0.1.0"
CONTRACT_VERSION = "1"

"""Identifier forms: short OpenAlex IDs and bare DOIs. Kept free of heavy imports, since every
CLI call that takes an ID uses them."""

from __future__ import annotations

_OPENALEX_PREFIXES = ("https://openalex.org/", "http://openalex.org/", "openalex.org/")
_DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:")


def short_id(value: str | None) -> str | None:
    """``https://openalex.org/W12`` → ``W12``; keyword IDs keep their path (``keywords/x``)."""
    if not value:
        return None
    value = str(value).strip()
    for prefix in _OPENALEX_PREFIXES:
        if value.lower().startswith(prefix):
            value = value[len(prefix):]
            break
    if value[:1].lower() in "wacitsp" and value[1:].isdigit():
        value = value[0].upper() + value[1:]
    return value or None


def normalize_doi(value: str | None) -> str | None:
    """A bare, lower-case DOI (``10.1/abc``), or None when `value` holds none."""
    if not value:
        return None
    value = str(value).strip()
    lowered = value.lower()
    for prefix in _DOI_PREFIXES:
        if lowered.startswith(prefix):
            value = value[len(prefix):]
            break
    value = value.strip().lower()
    return value if value.startswith("10.") else None

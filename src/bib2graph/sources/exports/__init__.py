"""Bibliographic export files (Web of Science, Scopus, Lens, RIS, BibTeX, OpenAlex CSV) as `Record`s.

    read_records(path, name, format=None, skips) ─► Record …   (format detected from content)
    parse_reference(raw, style) ─► ParsedRef | None            (references.py)
    bundle_from_records(records, …) ─► Bundle + cited references + origins   (bundle.py)
"""

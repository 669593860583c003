"""Bibliographic export files (Web of Science, Scopus, Lens, RIS, BibTeX, CSL-JSON, OpenAlex CSV) as
`Record`s, and what turns them into works.

    detect_format(path) ─► format                          (detect.py; or declared in source.formats)
    read_records(path, name, format, skips) ─► Record …    (readers.py: one reader module per format)
    entry_from_record(record) ─► Entry                     (entries.py: rows, merge keys, rank)
    parse_reference(raw, style) ─► ParsedRef | None        (references.py: identities, matching;
                                                            ParsedRef in parsed_ref.py)

sources/ingest.py merges the entries of every file into works and resolves their references.
"""

"""Document types as each export writes them, as OpenAlex's work types (conference papers are
"article", as OpenAlex has them since 2023). A label nobody maps becomes "other", so a new label in an
export never stops a run. (Languages: `languages.language_code`.)
"""

from __future__ import annotations

# Lower-cased labels of Scopus ("Conference Paper"), WoS ("Proceedings Paper"), Lens ("journal
# article"), OpenAlex, RIS TY codes ("JOUR") and BibTeX entry types ("inproceedings").
_TYPES = {
    "article": "article", "journal article": "article", "conference paper": "article",
    "proceedings paper": "article", "conference proceedings": "article", "data paper": "article",
    "article in press": "article", "meeting abstract": "article", "preprint": "preprint",
    "review": "review", "short survey": "review", "book review": "review",
    "book": "book", "book chapter": "book-chapter", "chapter": "book-chapter",
    "editorial": "editorial", "editorial material": "editorial",
    "letter": "letter", "note": "other", "erratum": "erratum", "correction": "erratum",
    "retracted": "article", "retraction": "retraction", "conference review": "other",
    "dissertation": "dissertation", "thesis": "dissertation", "report": "report", "dataset": "dataset",
    # Lens
    "conference proceedings article": "article", "component": "other", "clinical trial": "article",
    # OpenAlex's own (read back from an OpenAlex CSV), and its pre-2023 Crossref-style ones
    "book-chapter": "book-chapter", "paratext": "paratext", "libguides": "libguides",
    "peer-review": "peer-review", "reference-entry": "reference-entry", "standard": "standard",
    "grant": "grant", "supplementary-materials": "supplementary-materials", "other": "other",
    "journal-article": "article", "proceedings-article": "article", "posted-content": "preprint",
    # RIS TY
    "jour": "article", "ejour": "article", "jfull": "article", "mgzn": "article", "news": "article",
    "conf": "article", "cpaper": "article", "abst": "article", "inpr": "article",
    "chap": "book-chapter", "echap": "book-chapter", "ebook": "book", "edbook": "book",
    "thes": "dissertation", "rprt": "report", "data": "dataset", "gen": "other", "elec": "other",
    # BibTeX
    "inproceedings": "article", "conference": "article", "incollection": "book-chapter",
    "inbook": "book-chapter", "phdthesis": "dissertation", "mastersthesis": "dissertation",
    "techreport": "report", "misc": "other", "unpublished": "other", "proceedings": "book",
    "manual": "other", "booklet": "book",
}


def work_type(label: str | None) -> str | None:
    """OpenAlex's work type for an export's label; None when the file gives none."""
    if not label or not label.strip():
        return None
    key = " ".join(label.split(";")[0].split()).lower()     # WoS: "Article; Proceedings Paper"
    return _TYPES.get(key, "other")


def marks_retracted(label: str | None) -> bool:
    """Scopus and WoS mark a retracted work by its type ("Retracted"), not by a flag."""
    return bool(label) and label.strip().lower() == "retracted"

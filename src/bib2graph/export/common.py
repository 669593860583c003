"""Shared helpers of the exporters: node URLs, clean labels, native values and the corpus's node fields."""

from __future__ import annotations

import math
import re
from urllib.parse import quote

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..tables import Bundle
from .text import string_array
from .text_columns import PYTHON_SPACES

_OPENALEX_ID = re.compile(r"^(?:[WAISTCPF]\d+|keywords/.+)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
#: `_OPENALEX_ID` as RE2 reads an ASCII ID the same way (Python's ``$`` also matches before a final newline)
_OPENALEX_ID_RE2 = r"^(?:[WAISTCPF][0-9]+|keywords/.+)\n?$"


#: what a DOI may hold unescaped in a URL's path; the rest is %-encoded as the DOI Handbook asks (`#`
#: would cut the DOI short, `%` start an escape, `"<>{}` are no URL characters; Wiley's DOIs hold `<>#`)
_URL_SAFE = ":/;()@!$&'*,=-._~"
_URL_UNSAFE_RE2 = r"[^A-Za-z0-9:/;()@!$&'*,=._~-]"


def doi_url(doi: str) -> str:
    """``https://doi.org/<doi>``, the DOI %-encoded where a URL needs it."""
    return "https://doi.org/" + quote(doi, safe=_URL_SAFE)


def node_url(node_id: str, doi) -> str | None:
    """`doi_url` when the node has a DOI, else its OpenAlex page when the ID is one."""
    if isinstance(doi, str) and doi:
        return doi_url(doi)
    if _OPENALEX_ID.match(str(node_id)):
        return f"https://openalex.org/{node_id}"
    return None


def clean(text) -> str:
    """One line of text: control characters (tabs, newlines) become single spaces."""
    return _CONTROL.sub(" ", str(text)).strip()


def clean_cells(values) -> pa.Array:
    """`clean` of each cell, in Arrow (a column of labels, 100k at co-citation, once per format)."""
    text = string_array(values)
    if text is None or text.null_count:   # str() of what is not text, as `clean` writes it
        return pa.array([clean(v) for v in list(values)], type=pa.string())
    return pc.utf8_trim(pc.replace_substring_regex(text, _CONTROL.pattern, " "), PYTHON_SPACES)


def url_cells(node_ids, dois) -> pa.Array:
    """`node_url` of each node (null where it has none), in Arrow; a DOI counts where it is non-empty text.
    Non-ASCII IDs are matched by Python's regex (its ``\\d`` takes any script's digits)."""
    ids, doi = string_array(node_ids), string_array(dois)
    if ids is None or doi is None or ids.null_count:
        return pa.array([node_url(i, d if isinstance(d, str) else None) for i, d in zip(list(node_ids), list(dois))],
                        type=pa.string())
    with_doi = pc.fill_null(pc.not_equal(doi, ""), False)
    openalex = pc.match_substring_regex(ids, _OPENALEX_ID_RE2)
    wide = pc.invert(pc.string_is_ascii(ids))
    if pc.any(wide).as_py():
        found = [bool(_OPENALEX_ID.match(i)) for i in ids.filter(wide).to_pylist()]
        openalex = pc.replace_with_mask(openalex, wide, pa.array(found, type=pa.bool_()))
    none = pa.scalar(None, pa.string())
    by_doi = pc.binary_join_element_wise("https://doi.org/", doi, "")
    unsafe = pc.fill_null(pc.match_substring_regex(doi, _URL_UNSAFE_RE2), False)
    if pc.any(unsafe).as_py():      # the few DOIs a URL must escape
        by_doi = pc.replace_with_mask(by_doi, unsafe, pa.array([doi_url(d) for d in doi.filter(unsafe).to_pylist()],
                                                               by_doi.type))
    return pc.if_else(with_doi, by_doi,
                      pc.if_else(openalex, pc.binary_join_element_wise("https://openalex.org/", ids, ""), none))


def native(value):
    """A plain Python scalar, or None for missing values (so exporters can omit them)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def cluster_labels(network) -> dict[int, str]:
    return {int(c["cluster"]): str(c["label"]) for c in network.metrics.get("clusters", []) if c.get("label")}


#: the corpus's fields a work node carries in the visual formats, in their order
WORK_EXTRAS = ("venue", "type", "publication_date", "cited_by_count", "abstract")
_WORK_KINDS = ("coupling", "cocitation", "citation")


def _extras_table(network, corpus: Bundle) -> pd.DataFrame | None:
    """The corpus's extra attributes by node ID (its index), or None for kinds that take none: bibliographic
    fields of work nodes, the commonest country of an institution (ties to the first code)."""
    if network.kind in _WORK_KINDS:
        return corpus.works[["work_id", *WORK_EXTRAS]].drop_duplicates("work_id").set_index("work_id")
    if network.kind == "institutions":
        aff = corpus.affiliations.dropna(subset=["country_code"])
        counts = aff.groupby(["institution_id", "country_code"]).size().rename("n").reset_index()
        counts = counts.sort_values(["institution_id", "n", "country_code"], ascending=[True, False, True])
        return counts.drop_duplicates("institution_id").set_index("institution_id")[["country_code"]]
    return None


def corpus_columns(network, corpus: Bundle | None) -> dict[str, pd.Series]:
    """The corpus's extra attributes (`_extras_table`) as columns in node order, missing where a node is not
    in the corpus; none when no node is."""
    table = None if corpus is None else _extras_table(network, corpus)
    node_ids = network.nodes["node_id"]
    if table is None or not node_ids.isin(table.index).any():
        return {}
    aligned = table.reindex(node_ids)
    return {key: aligned[key].reset_index(drop=True) for key in table.columns}


NODE_ATTRIBUTES = ("label", "occurrences", "year", "mean_year", "doi", "in_corpus", "degree", "strength", "link_strength",
                   "pagerank", "betweenness", "eigenvector", "cluster", "silhouette")

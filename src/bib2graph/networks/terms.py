"""Which terms the keywords network counts: the field chosen (auto, one keyword field, topics,
concepts, all_keywords), with OpenAlex's constant topic triple guarded against, then the thesaurus.
"""

from __future__ import annotations

import pandas as pd

from ..tables import Bundle
from .coding import corpus_rows
from .item_thesaurus import with_thesaurus


#: OpenAlex's constant topic triple, assigned to ~22M mostly non-English works regardless of content.
TOPIC_TRIPLE = frozenset({"T14423", "T13154", "T14235"})


AUTO_ORDER = ("keywords", "author_keywords", "index_keywords", "concepts")


def select_terms(terms: pd.DataFrame, field_name: str) -> tuple[pd.DataFrame, int]:
    """Rows of the chosen term field. ``auto`` = per work the first field it has of `AUTO_ORDER`
    (OpenAlex keywords, an export's author keywords, indexer keywords, OpenAlex concepts);
    ``all_keywords`` = author and indexer keywords and MeSH together (VOSviewer's "all keywords").

    On ``topics``, a work whose topics are exactly OpenAlex's constant triple loses them. Returns the
    rows and the number of works so guarded.
    """
    if field_name == "auto":
        chosen = pd.Series(False, index=terms.index)
        done = pd.Index([])
        for name in AUTO_ORDER:
            rows = (terms["field"] == name) & ~terms["work_id"].isin(done)
            chosen |= rows
            done = done.union(pd.Index(terms.loc[rows, "work_id"].unique()))
        return terms[chosen], 0
    if field_name == "all_keywords":
        rows = terms[terms["field"].isin(["author_keywords", "index_keywords", "mesh"])]
        return rows.drop_duplicates(["work_id", "term_id"]), 0
    rows = terms[terms["field"] == field_name]
    if field_name != "topics" or rows.empty:
        return rows, 0
    per_work = rows.groupby("work_id")["term_id"].agg(["size", lambda s: s.isin(TOPIC_TRIPLE).sum()])
    per_work.columns = ["n", "triple"]
    guarded = per_work.index[(per_work["n"] == 3) & (per_work["triple"] == 3)]
    return rows[~rows["work_id"].isin(guarded)], int(len(guarded))


def term_rows(corpus: Bundle, params: dict) -> tuple[pd.DataFrame, dict]:
    """The term rows the keywords network counts (field choice, topic guard, thesaurus) and notes."""
    terms = corpus_rows(corpus, "terms")
    field_name = params.get("field", "auto")
    rows, guarded = select_terms(terms, field_name)
    notes: dict = {"topic_triple_guarded_works": guarded} if field_name == "topics" else {}
    if params.get("thesaurus"):
        items = pd.DataFrame({"work_id": rows["work_id"], "item_id": rows["term_id"], "label": rows["term"]})
        every = pd.DataFrame({"work_id": terms["work_id"], "item_id": terms["term_id"], "label": terms["term"]})
        items, more = with_thesaurus(items, params["thesaurus"], every)
        rows = pd.DataFrame({"work_id": items["work_id"], "term_id": items["item_id"], "term": items["label"]})
        notes.update(more)
    return rows, notes

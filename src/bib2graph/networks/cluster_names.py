"""Cluster labels: the terms that set a cluster apart from the rest of its network.

Each cluster C of two or more nodes has a set of documents D(C) (corpus works):

* coupling and citation: its member works;
* co-citation: the corpus works citing one of its members (as CiteSpace labels co-citation clusters
  from their citing articles);
* co-authorship, institutions, keywords: the works of its members.

U is the union of the D(C) of every cluster, singletons included. A document's terms are the word
n-grams of its title and abstract (lower case; a phrase never spans punctuation or a stop word, so
"memory of objects" gives "memory" and "objects", never "memory objects"; stop words are
scikit-learn's English list, `REPORTING_WORDS` and the spec's), its keywords, and its
concepts and topics when `fields` asks, each counted once per document; OpenAlex's generic fields
(`generic_terms`) and the spec's `stop_words` are left out. With a_t the documents of D(C) carrying t,
n = |D(C)|, b_t those of U outside D(C), N = |U|:

* ``llr`` (Dunning 1993): G² = 2 Σ O ln(O / E) over the 2 × 2 table (a_t, n − a_t; b_t, N − n − b_t),
  E from its margins, kept only where t is over-represented in C (a_t / n > b_t / (N − n)); a network
  of one cluster (N = n) has no rest to contrast, and its terms rank by a_t;
* ``ctfidf`` (Grootendorst 2022, BERTopic's class-based TF-IDF): the classes are the clusters of two
  or more nodes plus one class of all singletons' documents; tf_tc = a_t / Σ_t a_t,
  W = tf_tc · ln(1 + A / f_t), A the mean of Σ_t a_t over classes, f_t = Σ_c a_tc.

Terms carried by fewer than `min_works` documents of C are not candidates. The best `terms` are kept
(score, then a_t, descending; then the term), skipping a term whose words hold or are held by those of
a better one ("objects" after "object recognition", "episodic-like" after "episodic": words are
compared split at hyphens and without a plural s); the label joins the first `label_terms`. A cluster
with no candidate, and every cluster with ``by: members``, is named by its leading members instead (as
bib2graph did before: strength for coupling, occurrences elsewhere), generic fields skipped.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..tables import Bundle
from .builders import item_rows
from .cluster_table import DOCUMENT_KINDS
from .generic_terms import LEVEL0_CONCEPTS, is_generic

KEYWORD_FIELDS = ("keywords", "author_keywords", "index_keywords")
#: Words of scientific reporting and units: frequent in abstracts, never what a field is about. They
#: end a phrase like English stop words (scikit-learn's list) and the spec's `stop_words`.
REPORTING_WORDS = frozenset("""
    abstract addition aim aimed analyses analysis analyzed approach assessed associated available based
    compared comparison conclusion conclusions conducted current data demonstrate demonstrated demonstrates
    different does effect effects evidence examine examined experiment experiments explore explored finding
    findings given group groups high higher important improved including increase increased indicate
    indicates investigate investigated investigation level levels low lower main method methods new novel
    observed obtained order paper performed possible potential present presented previous previously
    propose proposed provide provides recent related report reported respectively result resulted results
    reveal revealed review role shown showed shows significant significantly specific studied studies study
    suggest suggests support tested total use used using various work
    min mins ms sec hr hrs mg kg ml mm cm nm hz khz db pmol nmol mmol
""".split())
_CHUNKS = re.compile(r"[^\w\s'’-]+")              # punctuation ends a phrase
_WORDS = re.compile(r"[^\W\d_][\w'’-]*[^\W_]|[^\W\d_]")   # starts with a letter; inner - and ' kept
_MAX_CHARS = 80


def _stop_words(extra) -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS) | REPORTING_WORDS | {" ".join(str(w).split()).casefold() for w in extra}


def phrases(text: str, stop: frozenset[str], ngrams: int) -> list[str]:
    """The word n-grams (1..ngrams) of `text` within its phrases: runs of words of two or more
    characters between punctuation and stop words."""
    grams: list[str] = []
    for chunk in _CHUNKS.split(str(text).casefold()):
        run: list[str] = []
        for word in [*_WORDS.findall(chunk), ""]:        # "" closes the last run
            if word and len(word) > 1 and word not in stop:
                run.append(word)
                continue
            for size in range(1, ngrams + 1):
                grams += [" ".join(run[k:k + size]) for k in range(len(run) - size + 1)]
            run = []
    return grams


def _term_rows(corpus: Bundle, work_ids: pd.Index, settings: dict, stop: frozenset[str]) -> pd.DataFrame:
    """(work_id, term) rows of the chosen fields, one per work and term, generic fields left out."""
    fields = settings["fields"]
    works = corpus.works[corpus.works["work_id"].isin(work_ids)]
    found = []
    for name in ("title", "abstract"):
        if name in fields:
            text = works[["work_id", name]].dropna()
            found.append(pd.DataFrame([(w, g) for w, t in zip(text["work_id"], text[name])
                                       for g in phrases(t, stop, settings["ngrams"])], columns=["work_id", "term"]))
    term_fields = [*(KEYWORD_FIELDS if "keywords" in fields else ()),
                   *(f for f in ("concepts", "topics") if f in fields)]
    terms = corpus.terms[corpus.terms["field"].isin(term_fields) & corpus.terms["work_id"].isin(work_ids)]
    terms = terms[~terms["term_id"].isin(list(LEVEL0_CONCEPTS))].dropna(subset=["term"])
    found.append(pd.DataFrame({"work_id": terms["work_id"],
                               "term": terms["term"].map(lambda t: " ".join(str(t).split()).casefold())}))
    rows = pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=["work_id", "term"])
    rows = rows[(rows["term"] != "") & ~rows["term"].isin(stop)]
    rows = rows[~rows["term"].map(lambda t: is_generic(name=t))]
    return rows.drop_duplicates().reset_index(drop=True)


def documents(kind: str, nodes: pd.DataFrame, corpus: Bundle, params: dict | None = None) -> pd.DataFrame:
    """(work_id, cluster): D(C) for every cluster (see the module), one row per document and cluster."""
    cluster_of = nodes.set_index("node_id")["cluster"]
    if kind in ("coupling", "citation"):
        rows = pd.DataFrame({"work_id": nodes["node_id"], "cluster": nodes["cluster"]})
        rows = rows[rows["work_id"].isin(corpus.works["work_id"])]
    elif kind == "cocitation":
        refs = corpus.references[corpus.references["referenced_id"].isin(cluster_of.index)]
        rows = pd.DataFrame({"work_id": refs["work_id"], "cluster": refs["referenced_id"].map(cluster_of)})
    else:
        items, _ = item_rows(kind, corpus, params)
        items = items[items["item_id"].isin(cluster_of.index)]
        rows = pd.DataFrame({"work_id": items["work_id"], "cluster": items["item_id"].map(cluster_of)})
    rows = rows.astype({"work_id": str, "cluster": "int64"}).drop_duplicates()
    return rows.sort_values(["cluster", "work_id"], kind="mergesort").reset_index(drop=True)


def _matrices(docs: pd.DataFrame, terms: pd.DataFrame):
    """Document × term (binary) and document × cluster incidence, over U, with their labels."""
    from scipy.sparse import csr_matrix

    universe = pd.Index(sorted(docs["work_id"].unique()))
    terms = terms[terms["work_id"].isin(universe)]
    vocabulary = pd.Index(sorted(terms["term"].unique()))
    clusters = pd.Index(sorted(docs["cluster"].unique()))
    x = csr_matrix((np.ones(len(terms)), (universe.get_indexer(terms["work_id"]), vocabulary.get_indexer(terms["term"]))),
                   shape=(len(universe), len(vocabulary)))
    m = csr_matrix((np.ones(len(docs)), (universe.get_indexer(docs["work_id"]), clusters.get_indexer(docs["cluster"]))),
                   shape=(len(universe), len(clusters)))
    return x, m, vocabulary, clusters


def llr(a: np.ndarray, n: np.ndarray, df: np.ndarray, total: int) -> np.ndarray:
    """Dunning's G² for each (a, n, df): a of the n documents of a cluster carry the term, df of all
    `total` documents do; 0 where the term is not over-represented in the cluster."""
    from scipy.special import xlogy

    b = df - a
    rest = total - n
    table = [(a, n, df), (n - a, n, total - df), (b, rest, df), (rest - b, rest, total - df)]
    g2 = 2 * sum(xlogy(o, o) - xlogy(o, row * col / total) for o, row, col in table)
    over = a * rest > b * n
    return np.where(over, np.maximum(g2, 0.0), 0.0)


def ctfidf(counts: np.ndarray) -> np.ndarray:
    """Class-based TF-IDF of a class × term count matrix (dense rows: classes)."""
    per_class = counts.sum(axis=1, keepdims=True)
    tf = np.divide(counts, per_class, out=np.zeros_like(counts, dtype=float), where=per_class > 0)
    average = per_class.mean()
    frequency = counts.sum(axis=0, keepdims=True)
    idf = np.log1p(np.divide(average, frequency, out=np.zeros_like(frequency, dtype=float), where=frequency > 0))
    return tf * idf


def term_scores(docs: pd.DataFrame, terms: pd.DataFrame, labelled: list[int], method: str,
                min_works: int) -> pd.DataFrame:
    """(cluster, term, works, score) of every candidate term of the `labelled` clusters."""
    columns = ["cluster", "term", "works", "score"]
    if docs.empty or terms.empty or not labelled:
        return pd.DataFrame(columns=columns)
    x, m, vocabulary, clusters = _matrices(docs, terms)
    counts = (m.T @ x).tocsr()                     # a_t per cluster: documents of D(C) carrying t
    total = x.shape[0]
    n = np.asarray(m.sum(axis=0)).ravel()
    df = np.asarray(x.sum(axis=0)).ravel()
    rows = clusters.get_indexer(labelled)
    if method == "ctfidf":
        singles = np.setdiff1d(np.arange(len(clusters)), rows)
        rest = np.asarray(counts[singles].sum(axis=0)) if len(singles) else np.zeros((0, len(vocabulary)))
        dense = np.vstack([counts[rows].toarray(), rest]) if len(singles) else counts[rows].toarray()
        score = ctfidf(dense)[:len(rows)]
        a = counts[rows].toarray()
    else:
        a = counts[rows].toarray()
        nn = n[rows][:, None]
        score = np.where(nn < total, llr(a, nn, df[None, :], total), a)   # one cluster: by frequency
    r, t = np.nonzero((a >= max(min_works, 1)) & (score > 0))
    out = pd.DataFrame({"cluster": clusters[rows][r], "term": vocabulary[t], "works": a[r, t].astype(np.int64),
                        "score": score[r, t]})
    return out.sort_values(["cluster", "score", "works", "term"], ascending=[True, False, False, True],
                           kind="mergesort").reset_index(drop=True)


def _stems(term: str) -> set[str]:
    """A term's words as `_distinct` compares them: split at hyphens too, a plural s dropped."""
    words = term.replace("-", " ").split()
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words}


def _distinct(candidates: pd.DataFrame, keep: int) -> list[dict]:
    """The first `keep` terms whose words neither hold nor are held by those of a term already kept."""
    chosen: list[dict] = []
    words: list[set[str]] = []
    for row in candidates.itertuples(index=False):
        mine = _stems(row.term)
        if any(mine <= w or w <= mine for w in words):
            continue
        chosen.append({"term": row.term, "score": float(row.score), "works": int(row.works)})
        words.append(mine)
        if len(chosen) == keep:
            break
    return chosen


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _MAX_CHARS else text[:_MAX_CHARS - 1] + "…"


def _member_label(entry: dict, names: pd.Series, parts: int) -> str:
    named = [names.get(node, node) for node in entry.get("top_nodes", [])]
    kept = [_short(x) for x in named if not is_generic(name=x)] or [_short(x) for x in named]
    return "; ".join(kept[:parts])


def name_clusters(kind: str, nodes: pd.DataFrame, metrics: dict, corpus: Bundle, settings: dict,
                  params: dict | None = None) -> tuple[pd.DataFrame, dict]:
    """`nodes` with `cluster_label` and `metrics` with each cluster's `label` and `terms` (see the
    module); `settings` the resolved `communities.labels`, `params` the network's (item rows)."""
    entries = [dict(e) for e in metrics.get("clusters", [])]
    labelled = [int(e["cluster"]) for e in entries]
    scores = pd.DataFrame(columns=["cluster", "term", "works", "score"])
    if settings["by"] == "terms" and labelled:
        docs = documents(kind, nodes, corpus, params)
        stop = _stop_words(settings["stop_words"])
        terms = _term_rows(corpus, pd.Index(docs["work_id"].unique()), settings, stop)
        scores = term_scores(docs, terms, labelled, settings["method"], settings["min_works"])
    names = nodes.set_index("node_id")["label"]
    by_cluster = {int(c): group for c, group in scores.groupby("cluster")}
    for entry in entries:
        found = by_cluster.get(int(entry["cluster"]))
        entry["terms"] = _distinct(found, settings["terms"]) if found is not None else []
        parts = [t["term"] for t in entry["terms"][:settings["label_terms"]]]
        entry["label"] = "; ".join(parts) if parts else _member_label(entry, names, settings["label_terms"])
        entry["labelled_by"] = "terms" if parts else "members"
    label_of = {e["cluster"]: e["label"] for e in entries}
    named = nodes.assign(cluster_label=nodes["cluster"].map(lambda c: label_of.get(int(c))))
    source = "member works" if kind in ("coupling", "citation") else \
        "citing works" if kind == "cocitation" else "works of the members"
    record = {**metrics, "clusters": entries,
              "cluster_labels": {**settings, "documents": source if settings["by"] == "terms" else None}}
    return named, record


__all__ = ["DOCUMENT_KINDS", "documents", "llr", "ctfidf", "name_clusters", "phrases", "term_scores"]

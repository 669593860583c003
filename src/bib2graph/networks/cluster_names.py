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
from .counting import row_blocks
from .item_networks import item_rows
from .cluster_table import DOCUMENT_KINDS
from .generic_terms import GENERIC_NAMES, LEVEL0_CONCEPTS, is_generic

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


def document_terms(corpus: Bundle, universe: pd.Index, settings: dict, stop: frozenset[str]):
    """The binary document × term matrix over `universe` (its rows in that order) and its vocabulary
    (sorted), built by scikit-learn's CountVectorizer. For `llr`, terms carried by fewer than
    `min_works` documents of U are dropped as it counts: they cannot reach `min_works` in any cluster,
    and a term's G² depends on its counts alone (c-TF-IDF's totals count every term)."""
    from sklearn.feature_extraction.text import CountVectorizer

    fields, ngrams = settings["fields"], settings["ngrams"]
    texts = [name for name in ("title", "abstract") if name in fields]
    works = corpus.works.set_index("work_id").reindex(universe)
    columns = [works[name].to_numpy(dtype=object, na_value=None) for name in texts]
    term_fields = [*(KEYWORD_FIELDS if "keywords" in fields else ()),
                   *(f for f in ("concepts", "topics") if f in fields)]
    terms = corpus.terms[corpus.terms["field"].isin(term_fields) & corpus.terms["work_id"].isin(universe)]
    terms = terms[~terms["term_id"].isin(list(LEVEL0_CONCEPTS))].dropna(subset=["term"])
    named = {}
    for work, term in zip(terms["work_id"], terms["term"]):
        named.setdefault(work, []).append(" ".join(str(term).split()).casefold())
    ids = universe.to_numpy()

    def analyse(k: int) -> list[str]:
        found = [g for column in columns if isinstance(column[k], str) for g in phrases(column[k], stop, ngrams)]
        found += named.get(ids[k], [])
        return [t for t in found if t and t not in stop and t not in GENERIC_NAMES]

    if not len(universe):
        return None, np.array([], dtype=object)
    least = max(settings["min_works"], 1) if settings["method"] == "llr" else 1
    vectorizer = CountVectorizer(analyzer=analyse, binary=True, min_df=least, dtype=np.float64)
    try:
        x = vectorizer.fit_transform(range(len(universe)))
    except ValueError:           # no term at all, or none carried by enough documents
        return None, np.array([], dtype=object)
    return x.tocsr(), vectorizer.get_feature_names_out()


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


def _incidence(docs: pd.DataFrame, universe: pd.Index, clusters: pd.Index):
    """Document × cluster incidence over U."""
    from scipy.sparse import csr_matrix

    return csr_matrix((np.ones(len(docs)), (universe.get_indexer(docs["work_id"]), clusters.get_indexer(docs["cluster"]))),
                      shape=(len(universe), len(clusters)))


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


def ctfidf(a: np.ndarray, row: np.ndarray, col: np.ndarray, n_classes: int, n_terms: int) -> np.ndarray:
    """Class-based TF-IDF of the nonzero counts `a` at (class `row`, term `col`) of a class × term
    matrix (sums of duplicate entries are the caller's)."""
    per_class = np.bincount(row, weights=a, minlength=n_classes)
    frequency = np.bincount(col, weights=a, minlength=n_terms)
    average = per_class.mean()
    return a / per_class[row] * np.log1p(average / frequency[col])


def term_scores(docs: pd.DataFrame, corpus: Bundle, settings: dict, labelled: list[int],
                stop: frozenset[str]) -> pd.DataFrame:
    """(cluster, term, works, score) of every candidate term of the `labelled` clusters, computed on
    the nonzero counts only (a cluster × vocabulary matrix would be dense)."""
    from scipy.sparse import coo_matrix

    columns = ["cluster", "term", "works", "score"]
    universe = pd.Index(sorted(docs["work_id"].unique()))
    x, vocabulary = document_terms(corpus, universe, settings, stop)
    if x is None or not labelled:
        return pd.DataFrame(columns=columns)
    clusters = pd.Index(sorted(docs["cluster"].unique()))
    m = _incidence(docs, universe, clusters)
    total = x.shape[0]
    n = np.asarray(m.sum(axis=0)).ravel()
    df = np.asarray(x.sum(axis=0)).ravel()
    position = np.full(len(clusters), -1)
    position[clusters.get_indexer(labelled)] = np.arange(len(labelled))
    if settings["method"] == "llr":
        row, col, a, score = _llr_candidates(m, x, np.flatnonzero(position >= 0), n, df, settings["min_works"])
        chosen = clusters.to_numpy()[row]
    else:                                          # c-TF-IDF: the labelled clusters, then all singletons
        counts = (m.T @ x).tocoo()
        rest = len(labelled)
        klass = np.where(position[counts.row] >= 0, position[counts.row], rest)
        n_classes = rest + int((position < 0).any())
        merged = coo_matrix((counts.data, (klass, counts.col)), shape=(n_classes, len(vocabulary))).tocsr().tocoo()
        row, col, a = merged.row, merged.col, merged.data
        score = ctfidf(a, row, col, n_classes, len(vocabulary))
        keep = (row < rest) & _kept(a, score, settings["min_works"])
        chosen, col, a, score = np.asarray(labelled)[row[keep]], col[keep], a[keep], score[keep]
    out = pd.DataFrame({"cluster": chosen.astype(np.int64), "term": vocabulary[col], "works": a.astype(np.int64),
                        "score": score})
    return out.sort_values(["cluster", "score", "works", "term"], ascending=[True, False, False, True],
                           kind="mergesort").reset_index(drop=True)


#: multiplications per block of clusters in `_llr_candidates` (each makes at most one count of some 40 bytes
#: with its score): about 650 MB a block
COUNT_BLOCK = 1 << 24


def _kept(a: np.ndarray, score: np.ndarray, min_works: int) -> np.ndarray:
    """The candidate terms a label may take: carried by at least `min_works` documents of the cluster, and
    over-represented there (score > 0)."""
    return (a >= max(min_works, 1)) & (score > 0)


def _llr_candidates(m, x, rows: np.ndarray, n: np.ndarray, df: np.ndarray, min_works: int):
    """(cluster index, term index, a_t, G²) of the terms of the clusters `rows` (indices into the columns of
    the document × cluster incidence `m`) that `term_scores` keeps (`_kept`).

    The counts a_t (documents of D(C) carrying t: integers, the same whatever the order they are summed
    in) are made for a block of clusters at a time and filtered before the next: every candidate term of
    every cluster at once was 6 GB for a co-citation network of 100,000 citing works, whose citing works
    lie in dozens of clusters each."""
    total = x.shape[0]
    labelled = m[:, rows].tocsc()                  # a block of clusters is then a slice of its columns
    work = np.asarray(labelled.T @ np.diff(x.indptr)).ravel().astype(np.int64)   # multiplications per cluster
    found = []
    for start, stop in row_blocks(np.concatenate([[0], np.cumsum(work)]), COUNT_BLOCK):
        counts = (labelled[:, start:stop].T @ x).tocoo()
        row, col, a = rows[start + counts.row], counts.col, counts.data
        del counts
        size = n[row]
        score = np.where(size < total, llr(a, size, df[col], total), a)   # one cluster: by frequency
        ok = _kept(a, score, min_works)
        found.append((row[ok], col[ok], a[ok], score[ok]))
    if not found:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    return tuple(np.concatenate(part) for part in zip(*found))


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
        scores = term_scores(docs, corpus, settings, labelled, _stop_words(settings["stop_words"]))
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


__all__ = ["DOCUMENT_KINDS", "document_terms", "documents", "llr", "ctfidf", "name_clusters", "phrases",
           "term_scores"]

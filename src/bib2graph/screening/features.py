"""What the screening model sees of each pooled work: its text, its place in the citation network and
how chaining found it. Built from the pool's tables alone, so every ranking is a function of the pool,
the decisions and the spec.

Four blocks, one row per pooled work (rows in work ID order):

- text: TF-IDF over the `text` fields (title, abstract, and keywords: the names of the work's terms),
  words and word n-grams up to `ngram_max`, sublinear term frequency, rows of unit length, as ASReview
  does over title and abstract;
- latent: the text block's leading `latent.components` singular vectors (latent semantic analysis:
  truncated SVD, seeded), rows of unit length. A work's place among the pool's themes, so a work whose
  words differ from those of the includes but whose theme is theirs still scores; with a few decisions
  the text block alone matches words only (docs/screening.md measures what it adds);
- network: the work's citation neighbourhood in the pool as a bag of pooled works, weighted like text
  (TF-IDF, sublinear, unit rows): the work itself, the pooled works it references and the pooled works
  citing it. Two works share a token exactly when one cites the other (its own token meets the other's
  reference or citation), when they share a pooled reference (bibliographic coupling within the pool) or
  when a pooled work cites both (co-citation); a linear model over these tokens learns which links go
  with includes. References to works outside the pool are left out: in reviews whose works do not cite
  one another they couple includes and excludes alike, and the ranking fell below the text's alone
  (docs/screening.md). A token carried by fewer than `network.min_df` works links nothing and is dropped;
- provenance: how chaining brought the work in (log of its links to the frontier, the inverse of its
  round, its direction); works chaining did not bring (seeds, a universe taken whole) take the mean of
  those it did, so the block never tells seeds from candidates.

Each block is scaled by its weight in the spec before the blocks are put side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

DIRECTIONS = ("backward", "forward", "both", "monitor")
PROVENANCE = ("log_links", "inverse_round") + tuple(f"direction_{d}" for d in DIRECTIONS)


@dataclass
class Features:
    """The blocks of every pooled work, and the citation structure the explanations read."""

    work_ids: np.ndarray                 # sorted; row i of every matrix
    text: sp.csr_matrix
    terms: np.ndarray                    # the text block's column names
    latent: np.ndarray                   # dense, n × components (0 columns when disabled)
    network: sp.csr_matrix
    provenance: np.ndarray               # dense, n × len(PROVENANCE)
    cites: sp.csr_matrix                 # n × n: row i cites column j (pooled works only)
    references: sp.csr_matrix            # n × m: row i references cited work j (pooled or not)
    cited_by: sp.csr_matrix              # cites transposed (row i: the pooled works citing i)
    settings: dict[str, Any]
    _matrix: sp.csr_matrix | None = field(default=None, repr=False)
    _index: dict[str, int] | None = field(default=None, repr=False)

    @property
    def matrix(self) -> sp.csr_matrix:
        """The blocks side by side, each scaled by its weight: what the learner is fitted on."""
        if self._matrix is None:
            s = self.settings
            blocks = [self.text]
            if s["latent"]["enabled"] and self.latent.shape[1]:
                blocks.append(sp.csr_matrix(self.latent * float(s["latent"]["weight"])))
            if s["network"]["enabled"]:
                blocks.append(self.network * float(s["network"]["weight"]))
            if s["provenance"]["enabled"]:
                blocks.append(sp.csr_matrix(self.provenance * float(s["provenance"]["weight"])))
            self._matrix = sp.hstack(blocks, format="csr", dtype=np.float64)
        return self._matrix

    def index(self) -> dict[str, int]:
        """work ID → row."""
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.work_ids)}
        return self._index

    def __len__(self) -> int:
        return len(self.work_ids)


def texts(works: pd.DataFrame, terms: pd.DataFrame | None, fields: list[str]) -> list[str]:
    """One document per work (in `works` order): its chosen fields joined by blank lines."""
    names = pd.Series(dtype=object)
    if "keywords" in fields and terms is not None and len(terms):
        named = terms[terms["term"].notna() & terms["work_id"].isin(set(works["work_id"]))]
        named = named.sort_values(["work_id", "field", "term_id"], kind="mergesort")
        names = named.groupby("work_id", sort=False)["term"].agg("; ".join)
    parts = []
    for column in ("title", "abstract"):
        if column in fields:
            parts.append(works[column].fillna("").astype(str).to_numpy())
    if "keywords" in fields:
        parts.append(works["work_id"].map(names).astype(object).fillna("").astype(str).to_numpy())
    if not parts:
        return [""] * len(works)
    return ["\n\n".join(chunk) for chunk in zip(*parts)]


def _text_block(docs: list[str], s: dict[str, Any]) -> tuple[sp.csr_matrix, np.ndarray]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not any(d.strip() for d in docs):
        return sp.csr_matrix((len(docs), 0)), np.array([], dtype=object)
    vectorizer = TfidfVectorizer(ngram_range=(1, int(s["ngram_max"])), sublinear_tf=True,
                                 min_df=int(s["min_df"]), max_df=float(s["max_df"]) if len(docs) > 1 else 1.0,
                                 dtype=np.float64)
    try:
        matrix = vectorizer.fit_transform(docs)
    except ValueError:      # every term pruned (a tiny pool): no text to learn from
        return sp.csr_matrix((len(docs), 0)), np.array([], dtype=object)
    return matrix.tocsr(), vectorizer.get_feature_names_out().astype(object)


def _latent_block(text: sp.csr_matrix, components: int, seed: int) -> np.ndarray:
    """The text block's leading singular vectors, scaled by their singular values (LSA), rows of unit
    length; ARPACK from a seeded start vector, signs fixed by scikit-learn (svd_flip), on one BLAS thread
    (two threads sum in another order: 3e-13 apart at 10,000 works, enough to move a score's 9th decimal),
    so the same pool gives the same block in every process."""
    from sklearn.decomposition import TruncatedSVD
    from threadpoolctl import threadpool_limits

    n = text.shape[0]
    k = min(int(components), min(text.shape) - 1)
    if k < 1:
        return np.zeros((n, 0))
    with threadpool_limits(limits=1, user_api="blas"):
        z = TruncatedSVD(n_components=k, algorithm="arpack", random_state=seed).fit_transform(text)
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    return np.divide(z, norms, out=np.zeros_like(z), where=norms > 0)


def _links(work_ids: np.ndarray, references: pd.DataFrame) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(cites, references): in-pool citations and every reference, as 0/1 matrices."""
    n = len(work_ids)
    pool = pd.Index(work_ids)
    rows = pool.get_indexer(references["work_id"])
    keep = rows >= 0
    rows, cited = rows[keep], references["referenced_id"].to_numpy()[keep]
    codes, uniques = pd.factorize(cited, sort=True)
    refs = sp.csr_matrix((np.ones(len(rows)), (rows, codes)), shape=(n, len(uniques)))
    refs.data[:] = 1.0
    column = pool.get_indexer(uniques)[codes]
    local = (column >= 0) & (column != rows)
    cites = sp.csr_matrix((np.ones(int(local.sum())), (rows[local], column[local])), shape=(n, n))
    cites.data[:] = 1.0
    return cites, refs


def _network_block(cites: sp.csr_matrix, cited_by: sp.csr_matrix, min_df: int) -> sp.csr_matrix:
    """TF-IDF over each work's neighbourhood in the pool: itself, the pooled works it references and the
    pooled works citing it (tokens are pooled works, one column each)."""
    from sklearn.feature_extraction.text import TfidfTransformer

    n = cites.shape[0]
    counts = (sp.identity(n, format="csr") + cites + cited_by).tocsr()
    df = np.asarray((counts > 0).sum(axis=0)).ravel()
    counts = counts[:, np.flatnonzero(df >= max(1, min_df))]
    if counts.shape[1] == 0:
        return sp.csr_matrix((n, 0))
    return TfidfTransformer(sublinear_tf=True).fit_transform(counts).tocsr()


def _provenance(work_ids: np.ndarray, candidates: pd.DataFrame | None) -> np.ndarray:
    """The provenance block (see the module docstring), dense."""
    out = np.zeros((len(work_ids), len(PROVENANCE)))
    if candidates is None or not len(candidates):
        return out
    admitted = candidates[candidates["admitted"]]
    rows = pd.Index(work_ids).get_indexer(admitted["work_id"])
    keep = rows >= 0
    admitted, rows = admitted[keep], rows[keep]
    if not len(rows):
        return out
    values = np.zeros((len(rows), len(PROVENANCE)))
    values[:, 0] = np.log1p(admitted["links"].to_numpy(dtype=np.float64))
    values[:, 1] = 1.0 / admitted["round"].to_numpy(dtype=np.float64)
    for j, direction in enumerate(DIRECTIONS):
        values[:, 2 + j] = (admitted["direction"].to_numpy() == direction)
    out[:] = values.mean(axis=0)
    out[rows] = values
    return out


def build(works: pd.DataFrame, terms: pd.DataFrame | None, references: pd.DataFrame,
          candidates: pd.DataFrame | None, settings: dict[str, Any]) -> Features:
    """The features of the pooled `works` (columns work_id, title, abstract) under the spec's
    `screening.model` `settings`."""
    works = works.sort_values("work_id", kind="mergesort").reset_index(drop=True)
    work_ids = works["work_id"].to_numpy(dtype=object)
    text, names = _text_block(texts(works, terms, settings["text"]["fields"]), settings["text"])
    latent = (_latent_block(text, int(settings["latent"]["components"]), int(settings["seed"]))
              if settings["latent"]["enabled"] else np.zeros((len(work_ids), 0)))
    cites, refs = _links(work_ids, references)
    cited_by = cites.T.tocsr()
    network = (_network_block(cites, cited_by, int(settings["network"]["min_df"]))
               if settings["network"]["enabled"]
               else sp.csr_matrix((len(work_ids), 0)))
    return Features(work_ids, text, names, latent, network, _provenance(work_ids, candidates), cites, refs, cited_by,
                    settings)


SPARSE = ("text", "network", "cites", "references", "cited_by")
DENSE = ("latent", "provenance")


def save(found: Features, path: str | Path, key: str) -> None:
    """Write `found` to `path` (an .npz, written under a temporary name and renamed) with the `key` that
    says what it was built from; `load` gives it back exactly, without pickles."""
    from ..atomic import atomic_path

    arrays: dict[str, np.ndarray] = {"key": np.array(key)}
    for name in ("work_ids", "terms"):      # UTF-8 and offsets: a fixed-width string array pads every term
        encoded = [str(v).encode("utf-8") for v in getattr(found, name)]
        arrays[f"{name}.utf8"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        arrays[f"{name}.ends"] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    for name in SPARSE:
        m = getattr(found, name)
        arrays.update({f"{name}.data": m.data, f"{name}.indices": m.indices, f"{name}.indptr": m.indptr,
                       f"{name}.shape": np.array(m.shape)})
    arrays.update({name: getattr(found, name) for name in DENSE})
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


def _strings(utf8: np.ndarray, ends: np.ndarray) -> np.ndarray:
    blob = utf8.tobytes()
    starts = np.r_[0, ends[:-1]] if len(ends) else ends
    return np.array([blob[a:b].decode("utf-8") for a, b in zip(starts.tolist(), ends.tolist())], dtype=object)


def load(path: str | Path, key: str, settings: dict[str, Any]) -> Features | None:
    """The features `save` wrote to `path` under the same `key`; None when there are none, the key differs
    or the file is damaged (they are then built again)."""
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["key"]) != key:
                return None
            strings = {name: _strings(z[f"{name}.utf8"], z[f"{name}.ends"]) for name in ("work_ids", "terms")}
            sparse = {name: sp.csr_matrix((z[f"{name}.data"], z[f"{name}.indices"], z[f"{name}.indptr"]),
                                          shape=tuple(int(v) for v in z[f"{name}.shape"])) for name in SPARSE}
            dense = {name: z[name] for name in DENSE}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    return Features(**strings, **sparse, **dense, settings=settings)


def read(pool: str | Path, candidates: str | Path | None, settings: dict[str, Any]) -> Features:
    """The features of the pool whose tables are in the folder `pool` (results/chain/pool), with the
    chaining step of each work from `candidates` (None: no provenance)."""
    from ..tables import CANDIDATES, REFERENCES, TERMS, WORKS, read_columns, read_table

    pool = Path(pool)
    return build(read_columns(pool / "works.parquet", WORKS, ["work_id", "title", "abstract"]),
                 read_columns(pool / "terms.parquet", TERMS, ["work_id", "field", "term_id", "term"]),
                 read_table(pool / "references.parquet", REFERENCES),
                 read_table(candidates, CANDIDATES) if candidates else None, settings)

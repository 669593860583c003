"""The screening model: a linear classifier fitted on the decisions so far, ranking the works not decided.

The learner is scikit-learn's LinearSVC (the classifier of ASReview's default model, ELAS u4) over the
feature blocks of `features`, with its seed fixed, on rows weighted as ASReview's "balanced" sampler
weighs them: an exclude weighs ``includes / (balance_ratio · excludes)`` of an include, then the
weights are scaled to sum to the number of rows. The ranking is by decision value, highest first, ties
by work ID; values are rounded to 9 decimals before they are compared, so the order does not hang on
the last bits of a float. The same decisions and the same pool give the same ranking, byte for byte.

Why a work ranks where it does (`explain`): the terms whose weight times the work's TF-IDF value
contribute most to its score, and the included works it is linked to (cites, is cited by, shares
references with, is co-cited with).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .features import Features

DECIMALS = 9
SHOWN_TERMS = 5
SHOWN_LINKS = 5


def sample_weights(y: np.ndarray, ratio: float) -> np.ndarray:
    """ASReview's balanced sample weights (see the module docstring)."""
    includes, excludes = int(y.sum()), int(len(y) - y.sum())
    weights = np.where(y == 1, 1.0, includes / (ratio * max(excludes, 1)))
    return weights * len(y) / weights.sum()


@dataclass
class Fitted:
    """A model fitted on some decisions, and the works it was fitted on."""

    features: Features
    coef: np.ndarray           # over features.matrix's columns
    intercept: float
    included: np.ndarray       # rows decided include (seeds among them)
    excluded: np.ndarray       # rows decided exclude

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """Decision values of `rows`, rounded (see the module docstring)."""
        values = (self.features.matrix @ self.coef)[rows] + self.intercept   # one pass, no copy of the rows
        return np.round(np.asarray(values, dtype=np.float64), DECIMALS)


def fit(features: Features, included: np.ndarray, excluded: np.ndarray, settings: dict[str, Any]) -> Fitted:
    """The model on the decided rows; needs at least one include and one exclude."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    included, excluded = np.asarray(included, dtype=np.int64), np.asarray(excluded, dtype=np.int64)
    if not len(included) or not len(excluded):
        raise ValueError("the model needs at least one include and one exclude")
    rows = np.concatenate([included, excluded])
    y = np.concatenate([np.ones(len(included)), np.zeros(len(excluded))])
    learner = LinearSVC(C=float(settings["C"]), random_state=int(settings["seed"]), dual=True, max_iter=5000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)   # a few decisions: the fit is exact enough
        learner.fit(features.matrix[rows], y, sample_weight=sample_weights(y, float(settings["balance_ratio"])))
    return Fitted(features, learner.coef_.ravel().astype(np.float64), float(learner.intercept_[0]),
                  included, excluded)


def rank(fitted: Fitted, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(`rows` best first, their scores in that order): by score, ties by work ID."""
    rows = np.asarray(rows, dtype=np.int64)
    scores = fitted.scores(rows)
    order = np.lexsort((rows, -scores))           # rows are in work ID order
    return rows[order], scores[order]


def top_terms(fitted: Fitted, row: int, shown: int = SHOWN_TERMS) -> list[dict[str, Any]]:
    """The text features that add most to the work's score (positive contributions only)."""
    text = fitted.features.text
    start, stop = text.indptr[row], text.indptr[row + 1]
    columns, values = text.indices[start:stop], text.data[start:stop]
    if not len(columns):
        return []
    weight = fitted.coef[: text.shape[1]][columns]
    contribution = values * weight
    order = np.lexsort((columns, -contribution))    # columns are in term order
    return [{"term": str(fitted.features.terms[columns[i]]), "weight": round(float(contribution[i]), 6)}
            for i in order[:shown] if contribution[i] > 0]


def _links(fitted: Fitted, rows: np.ndarray) -> dict[str, np.ndarray]:
    """Each work of `rows`' links to each included work (arrays |rows| × |included|): it cites it, is
    cited by it, the references they share, the pooled works citing both."""
    f, inc = fitted.features, fitted.included
    dense = lambda m: np.asarray(m.todense(), dtype=np.float64)   # noqa: E731
    return {"cites": dense(f.cites[rows][:, inc]), "cited_by": dense(f.cites[inc][:, rows].T),
            "shared": dense(f.references[rows] @ f.references[inc].T),
            "cocited": dense(f.cited_by[rows] @ f.cited_by[inc].T)}


def _described(links: dict[str, np.ndarray], rows: np.ndarray, ids: np.ndarray,
               shown: int) -> tuple[list[dict[str, Any]], int]:
    """One work's links (arrays over the includes at `rows`, named `ids`) strongest first, and how many
    includes it is linked to."""
    strength = sum(links.values())
    found = np.flatnonzero(strength > 0)
    order = found[np.lexsort((rows[found], -strength[found]))]     # rows are in work ID order
    out = []
    for j in order[:shown]:
        how = (["cites it"] if links["cites"][j] else []) + (["is cited by it"] if links["cited_by"][j] else [])
        how += [f"{int(links['shared'][j])} shared reference(s)"] if links["shared"][j] else []
        how += [f"co-cited {int(links['cocited'][j])} time(s)"] if links["cocited"][j] else []
        out.append({"work_id": str(ids[j]), "how": how, "strength": int(strength[j])})
    return out, len(found)


def explain(fitted: Fitted, rows: np.ndarray) -> list[dict[str, Any]]:
    """Why each work of `rows` ranks where it does: the terms that add most to its score, and the
    included works it is linked to, strongest first (direct citations either way, shared references
    (coupling), pooled works citing both (co-citation)), with how many there are in all."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return []
    links = _links(fitted, rows)          # a fitted model has at least one include
    ids = fitted.features.work_ids[fitted.included]
    out = []
    for k, row in enumerate(rows):
        linked, total = _described({name: m[k] for name, m in links.items()}, fitted.included, ids, SHOWN_LINKS)
        out.append({"terms": top_terms(fitted, int(row)), "linked_includes": linked,
                    "linked_includes_total": total})
    return out

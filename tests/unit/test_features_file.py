"""The screening features kept on disk (service.ranking.FEATURES_FILE): what a CLI call reads back is what
it would have built, byte for byte; other settings or a damaged file build them again."""

from __future__ import annotations

import numpy as np
import pytest

from bib2graph.screening import features, model
from bib2graph.service import ranking
from bib2graph.service.workspace import Workspace
from tests.unit.test_screening import MODEL, bundle


@pytest.fixture()
def ws(tmp_path, monkeypatch):
    bundle().write(tmp_path / ranking.POOL)
    monkeypatch.setattr(ranking, "_cache", {})          # this process remembers nothing yet
    return Workspace(root=tmp_path, source="flag")


def _same(a: features.Features, b: features.Features) -> None:
    assert a.work_ids.tolist() == b.work_ids.tolist() and a.terms.tolist() == b.terms.tolist()
    for name in features.SPARSE:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and x.dtype == y.dtype
        assert x.indptr.tobytes() == y.indptr.tobytes() and x.indices.tobytes() == y.indices.tobytes()
        assert x.data.tobytes() == y.data.tobytes()
    for name in features.DENSE:
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()


def test_a_second_process_reads_the_features_and_ranks_alike(ws, monkeypatch):
    built = ranking.features(ws, MODEL)
    assert ws.path(ranking.FEATURES_FILE).is_file()
    monkeypatch.setattr(ranking, "_cache", {})

    def build(*args):
        raise AssertionError("built again")

    monkeypatch.setattr(features, "read", build)
    kept = ranking.features(ws, MODEL)
    _same(built, kept)
    inc, exc = [0, 5], [1, 2, 3]
    rows = np.arange(6, len(built))
    fitted = [model.fit(found, inc, exc, MODEL) for found in (built, kept)]
    (rows1, scores1), (rows2, scores2) = (model.rank(f, rows) for f in fitted)
    assert rows1.tobytes() == rows2.tobytes() and scores1.tobytes() == scores2.tobytes()
    assert model.explain(fitted[0], rows[:10]) == model.explain(fitted[1], rows[:10])


def test_other_settings_or_a_damaged_file_build_again(ws, monkeypatch):
    ranking.features(ws, MODEL)
    path = ws.path(ranking.FEATURES_FILE)
    calls = []
    real = features.read

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(features, "read", counted)
    monkeypatch.setattr(ranking, "_cache", {})
    other = {**MODEL, "latent": {**MODEL["latent"], "components": 10}}
    assert ranking.features(ws, other).latent.shape[1] == 10 and len(calls) == 1
    path.write_bytes(path.read_bytes()[:1000])                   # cut short
    monkeypatch.setattr(ranking, "_cache", {})
    _same(ranking.features(ws, other), real(ws.path(ranking.POOL), None, other))
    assert len(calls) == 2
    monkeypatch.setattr(ranking, "_cache", {})
    ranking.features(ws, other)                                  # the rebuilt file is read
    assert len(calls) == 2

"""Golden vectors: the same requests must keep giving the same paths, byte for byte.

If this fails, a change altered paths. If that was the intent, regenerate with
``python -m tests.golden.regenerate`` and say so in the commit message.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.api.path_body import path_hash
from gridpath.search.algorithms import ALGORITHMS
from tests.conftest import ROOT

GOLDEN = sorted((ROOT / "tests" / "golden").glob("*.json"))


def test_every_option_family_has_vectors():
    families = {p.stem for p in GOLDEN}
    assert {
        "default",
        "algorithms",
        "heuristics",
        "movement",
        "cost_model",
        "terrain",
        "turns",
        "clearance",
        "limits",
        "overlay",
    } <= families
    assert all(json.loads(p.read_text()) for p in GOLDEN)


def test_every_algorithm_of_the_registry_has_vectors():
    """A new algorithm (a registry line) fails here until ``regenerate`` has written its
    vectors (the family lists the registry's algorithms)."""
    vectors = json.loads((ROOT / "tests" / "golden" / "algorithms.json").read_text())
    assert {v["request"]["algorithm"] for v in vectors} == {a.value for a in ALGORITHMS}


def test_path_hash_is_the_documented_function():
    # SHA-256 of little-endian int32 x, y pairs: [[1, 2], [3, 4]] -> 01000000 02000000 ...
    import hashlib

    expected = hashlib.sha256(bytes.fromhex("01000000020000000300000004000000")).hexdigest()
    assert path_hash([[1, 2], [3, 4]]) == expected


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: p.stem)
def test_golden_vectors(client, golden):
    for vector in json.loads(golden.read_text()):
        body = client.post("/path", json=vector["request"]).json()
        keys = ("found", "partial", "cost", "path_hash", "expanded", "waypoints_cost")
        got = {k: body.get(k) for k in keys if k in vector}
        if "waypoints_hash" in vector:
            got["waypoints_hash"] = path_hash(np.array(body["waypoints"]).reshape(-1, 2))
        want = {k: vector[k] for k in got}
        assert got == want, f"{golden.stem}: {vector['request']}"

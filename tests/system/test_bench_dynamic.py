"""bench.dynamic: map changes alternating with query batches, in process and over HTTP (real
servers), its tables printed and every tier's answers in agreement; the changes it makes
are legal and undone in pairs, and its cross-tier check catches a wrong answer."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bench.dynamic import KINDS, disagreement, find_doors, plan_changes
from tests.conftest import MOVINGAI_DIR, MOVINGAI_MISSING
from tests.system.test_bench import run_bench


@pytest.mark.skipif(not MOVINGAI_DIR.is_dir(), reason=MOVINGAI_MISSING)
def test_both_modes_print_their_tables_and_the_tiers_agree():
    out = run_bench(
        "bench.dynamic", "--maps", "arena", "--changes", "10", "--batches", "1", "4",
        "--time-limit", "120",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    kernel, http = text.split("### Kernels (in process)")[1].split(
        "### HTTP (PATCH, then POST /paths)"
    )
    for section, tiers in (
        (kernel, ("A*", "JPS", "subgoal")),
        (http, ("A*", "JPS", "subgoal")),
    ):
        assert (
            "| map | tier | change ms | query µs | q/s B=1 | q/s B=4 | overtakes JPS at B |"
            in section
        )
        for tier in tiers:
            rows = re.findall(rf"^\| arena \| {re.escape(tier)} \| ([^\n]*)\|$", section, re.M)
            assert len(rows) == 2, section  # the main table and the change kinds
            change_ms, query_us, *per_second, crossover = (c.strip() for c in rows[0].split("|"))
            figures = [change_ms, query_us, *per_second]
            assert all(float(f.replace(",", "")) > 0 for f in figures)
            assert crossover == "-" if tier in ("A*", "JPS") else crossover != "-"
            assert "-" not in rows[1]  # every kind of change ran (10 changes: 5 kinds x 2)
        compared, failed = re.search(
            r"cross-tier check: ([\d,]+) answers compared, (\d+) failed", section
        ).groups()
        # warm-up (2 changes x 10 queries) + 10 changes x (1 + 4) queries, per tier
        assert int(compared.replace(",", "")) == len(tiers) * (2 * 10 + 10 * 5)
        assert failed == "0"
    assert "commit" in text.splitlines()[-1]  # the machine line closes the output


def test_changes_are_legal_and_undone_in_pairs():
    rng = np.random.default_rng(3)
    walkable = rng.random((40, 50)) > 0.3
    walkable[10, :] = False
    walkable[9:12, 20:22] = True  # a door of two cells in a wall, open on both faces
    assert ((20, 10), (21, 10)) in find_doors(walkable)
    changes = plan_changes(walkable, 10, np.random.default_rng(1))
    assert [c.kind for c in changes[::2]] == list(KINDS)
    current = walkable.copy()
    for done, undone in zip(changes[::2], changes[1::2]):
        assert done.blocked or done.opened
        for x, y in done.blocked + done.opened:
            assert 0 <= x < 50 and 0 <= y < 40
        assert all(current[y, x] for x, y in done.blocked)
        assert not any(current[y, x] for x, y in done.opened)
        done.apply_to(current)
        assert (current != walkable).sum() == len(done.blocked) + len(done.opened)
        undone.apply_to(current)
        assert (current == walkable).all()
    flips = [c for c in changes[::2] if c.kind == "flip 100"][0]
    assert len(flips.blocked) + len(flips.opened) == 100


def test_the_cross_tier_check_catches_a_wrong_cost():
    assert disagreement({"A*": 10.0, "JPS": 10.0 + 1e-12, "subgoal": 10.0}) is None
    assert disagreement({"A*": None, "JPS": None}) is None
    assert "differ" in disagreement({"A*": 10.0, "JPS": 10.0 + 1e-6})
    assert "no path" in disagreement({"A*": 10.0, "subgoal": None})

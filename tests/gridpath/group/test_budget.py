"""A time budget as work (gridpath.group.budget): the rate's grid, the size weight, and the
rate kept once per machine (the first writer wins, every later reader agrees)."""

from __future__ import annotations

import threading

from gridpath.group import budget


def test_the_rate_is_rounded_down_to_a_geometric_grid_within_bounds():
    step = budget.STEPS_PER_DOUBLING
    grid = {int(budget.MIN_RATE * 2 ** (k / step)) for k in range(12 * step)} | {budget.MAX_RATE}
    for rate in (1, 150.0, 799.9, 800, 1234.5, 2e5):
        got = budget._on_grid(rate)
        assert budget.MIN_RATE <= got <= budget.MAX_RATE and got in grid
        assert got <= max(rate, budget.MIN_RATE)
    assert budget._on_grid(1000) == budget._on_grid(1001)  # nearby rates agree


def test_a_larger_order_gets_less_work_per_ms():
    small = budget.work_weight(400, 600)  # within the cached table: weight 1
    assert small == 1.0
    doubled = budget.work_weight(400, 2 * budget.CACHED_TABLE // 400 * 2)
    assert doubled > 1.0
    big = budget.order_work(4000, 1000, 2000, 60_000)
    assert big < 4000 * 1000 / 2.5  # field 256x256 with 2,000 units: a weight over 2.5
    assert budget.order_work(4000, 1000, 400, 600) == 4_000_000


def test_the_first_rate_written_is_the_one_every_process_reads(tmp_path):
    path = tmp_path / "keyed" / budget.RATE_FILE
    kept = []
    threads = [
        threading.Thread(target=lambda r=r: kept.append(budget._kept(path, r))) for r in (800, 1600)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert kept[0] == kept[1] == budget._read(path)
    assert budget._kept(path, 3200) == kept[0]


def test_a_bad_or_unwritable_rate_file_is_not_used(tmp_path):
    bad = tmp_path / budget.RATE_FILE
    bad.write_text("fast\n")
    assert budget._read(bad) is None
    bad.write_text("7\n")  # under the bounds
    assert budget._read(bad) is None
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert budget._kept(blocked / "sub" / budget.RATE_FILE, 900) == 900  # its own measurement

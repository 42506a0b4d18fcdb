"""Two sittings of the same cells beside each other: what the measurement's own repeatability allows a model."""
import math

import pytest

from tests.commands import predict as predict_main
from tests.test_model import results_doc, run
from tradebench_harness.model import fit, repeatability


def cell(rate, latency, cpu, p99, load_client_us, **kw):
    return run("java-threads", rate=rate, dbLatencyMs=latency, rttMs=0.2 + latency, ordersPerSecond=rate,
               acceptedPerSecond=rate, salesPerSecond=rate * 0.88, salesPerMinute=rate * 0.88 * 60, cpu=cpu,
               p50Ms=0.7, p99Ms=p99, cpuUsPerOrder={"loadclient": load_client_us}, process=1, boundFraction=0.3,
               **kw)


def two_sittings(tmp_path):
    first = results_doc(tmp_path, "first", "CPU X", "2026-11-28T01:00:00+0000", [
        cell(700, 3, 10.0, 2.0, 20.0), cell(2200, 3, 16.0, 3.0, 20.0), cell(700, 20, 6.0, 2.0, 20.0),
        cell(4000, 20, 20.0, 4.0, 20.0, answers503=500),     # past its bound: no latency compared
        cell(900, 2, 11.0, 2.0, 20.0)])                     # not in the second sitting: no pair
    # the second sitting, in a slower hour: the load client's cost per order 25 % higher, and every CPU figure
    second = results_doc(tmp_path, "second", "CPU X", "2026-11-28T03:00:00+0000", [
        cell(700, 3, 12.5, 3.0, 25.0), cell(2200, 3, 20.0, 3.1, 25.0), cell(700, 20, 7.5, 2.1, 25.0),
        cell(4000, 20, 25.0, 9.0, 25.0, answers503=700)])
    return first, second


def test_two_sittings_of_the_same_cells_say_how_far_one_strays_and_what_no_model_can_beat(ctx, tmp_path):
    first, second = two_sittings(tmp_path)
    rows = repeatability.pairs(fit.read(first)[0], fit.read(second)[0], ctx.root)
    assert len(rows) == 4                                  # the cell at 900/s was measured once
    got = repeatability.agreement(rows)
    # 10 ÷ 12.5 is 20 % low: within CPU's 20 %; at the first's speed every cell agrees exactly
    assert got["cpu"]["within"] == 4 and got["cpu"]["medianRatio"] == pytest.approx(0.8)
    at_pace = got["cpuAtPace"]
    assert (at_pace["within"], at_pace["of"], at_pace["ceiling"]) == (4, 4, 1.0)
    assert at_pace["sigma"] == pytest.approx(0.0, abs=1e-9)
    # p99 only where both stored their load: 2 ÷ 3 is 33 % low, a miss; 3 ÷ 3.1 and 2 ÷ 2.1 agree
    assert (got["p99"]["within"], got["p99"]["of"]) == (2, 3)
    sigma = math.sqrt((math.log(2 / 3) ** 2 + math.log(3 / 3.1) ** 2 + math.log(2 / 2.1) ** 2) / 3 / 2)
    assert got["p99"]["sigma"] == pytest.approx(sigma)
    assert got["p99"]["ceiling"] == pytest.approx(repeatability.ceiling(sigma, 0.3))
    assert got["sales"]["within"] == 4 and got["sales"]["ceiling"] == 1.0
    # at the first's pace the second's tail is 20 % shorter: 2 ÷ 2.4 is within 30 %, and 3 ÷ 2.48, 2 ÷ 1.68
    assert (got["p99AtPace"]["within"], got["p99AtPace"]["of"]) == (3, 3)


def test_the_ceiling_is_the_share_of_a_lognormal_measurement_within_the_tolerance():
    # σ = ln(1.3): one sitting strays 30 % high at one standard deviation
    s = math.log(1.3)
    assert repeatability.ceiling(s, 0.3) == pytest.approx(
        repeatability.normal_cdf(-math.log(0.7) / s) - repeatability.normal_cdf(-1.0))
    assert 0.75 < repeatability.ceiling(s, 0.3) < 0.76             # Φ(1.36) − Φ(−1)
    assert repeatability.ceiling(0.05, 0.3) > 0.999 and repeatability.ceiling(0.0, 0.2) == 1.0
    assert repeatability.ceiling(0.3, 0.2) < repeatability.ceiling(0.15, 0.2)


def test_predict_repeatability_prints_each_figure_and_refuses_sittings_with_nothing_alike(ctx, tmp_path, capsys):
    first, second = two_sittings(tmp_path)
    assert predict_main(["repeatability", str(first), str(second)], root=ctx.root) == 0
    out = capsys.readouterr().out
    assert "4 cells measured in both" in out
    assert "- p99: 2 of 3 within 30% of each other" in out and "- CPU at the first's pace: 4 of 4" in out
    other = results_doc(tmp_path, "other", "CPU X", "2026-11-28T05:00:00+0000", [cell(1234, 7, 9.0, 2.0, 20.0)])
    assert predict_main(["repeatability", str(first), str(other)], root=ctx.root) == 2
    assert "measured no open-loop cell alike" in capsys.readouterr().err

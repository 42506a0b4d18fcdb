"""The one measurement path's plans: every measuring command cuts its work into units (a process each) and
windows, and one estimate says how long they take."""
from pathlib import Path

from tradebench_harness.measure import plan
from tradebench_harness.measure.plan import Calibration, Case, Series, Timing, Unit, Window
from tradebench_harness.run import variants

ROOT = Path(__file__).resolve().parents[2]


def rows(names=("java-threads", "java-virtual", "java-akka"), **case):
    """The rows of NAMES (java-akka's two: its Akka and its Pekko build)."""
    vs = variants.by_name(ROOT, list(names))
    return plan.rows_of(vs, [Case(**case)], {})


def test_fresh_units_are_one_window_each_round_robin():
    units = plan.fresh_units(rows(), 2)
    titles = ["java-threads", "java-virtual", "java-akka", "java-akka (STACK=pekko)"]
    assert [(u.windows[0][0], u.series.variant.title) for u in units] == [(1, t) for t in titles] + [(2, t) for t in titles]
    assert all(len(u.windows) == 1 for u in units)


def test_window_units_are_a_process_per_row_with_its_repeats_back_to_back():
    units = plan.window_units(rows(rate=500, db_latency_ms=5), 3)
    assert [u.series.variant.title for u in units] == ["java-threads", "java-virtual", "java-akka",
                                                       "java-akka (STACK=pekko)"]
    assert [rep for rep, _ in units[0].windows] == [1, 2, 3]
    assert [w for _, w in units[0].windows] == [Window(5, 64, 0, 500)] * 3


def test_a_case_that_names_variants_runs_only_those():
    only = plan.rows_of(variants.discover(ROOT), [Case(variants=["java-threads"])], {})
    assert [s.variant.name for s, _ in only] == ["java-threads"]


def test_grid_units_measure_every_cell_of_a_series_in_one_process_in_passes():
    (s,) = [s for s, _ in rows(["java-threads"])]
    cells = [Window(0, rate=500), Window(10, rate=500)]
    (u,) = plan.grid_units([s], cells, 2)
    assert u.windows == [(1, cells[0]), (1, cells[1]), (2, cells[0]), (2, cells[1])]


def test_the_estimate_grows_with_what_runs_and_counts_the_calibration_and_the_probes():
    (s,) = [s for s, _ in rows(["java-threads"])]
    t = Timing(window=15, warmup="10", settle=2)
    one = plan.estimate_seconds([Unit(s, [(1, Window())])], t, {})
    # start twice (verify, then a restart), verify, the JIT warm-up, the first warm-up and the window
    assert one == 8 * 2 + 10 + 45 + 10 + 15 + plan.WINDOW_OVERHEAD_S
    three = plan.estimate_seconds([Unit(s, [(r, Window()) for r in (1, 2, 3)])], t, {})
    assert three == one + 2 * (2 + 15 + plan.WINDOW_OVERHEAD_S)
    assert plan.estimate_seconds([Unit(s, [(1, Window())])] * 2, t, {}) == 2 * one
    # a unit with a timing of its own (the adaptive compare's later processes: not verified) is estimated by it
    unverified = Timing(window=15, warmup="10", settle=2, verify=False)
    assert plan.estimate_seconds([Unit(s, [(1, Window())], unverified)], t, {}) == 8 + 45 + 10 + 15 + plan.WINDOW_OVERHEAD_S
    probed = plan.estimate_seconds([Unit(s, [(1, Window(0)), (1, Window(20))])], t, {})
    assert probed == one + (2 + 15 + plan.WINDOW_OVERHEAD_S) + 2 * 2 * plan.PROBE_SECONDS
    assert plan.estimate_seconds([Unit(s, [(1, Window())])], t, {}, Calibration()) > one


def test_a_series_is_named_by_its_row_and_why_it_is_there():
    (node,) = variants.by_name(ROOT, ["node-engine"])
    s = Series(node, 4, "per-sale", {"WORKERS": "threads"}, case="ENGINES=64: 64 in flight")
    assert s.name == "node-engine WORKERS=threads (ENGINES=64: 64 in flight)"
    assert " " not in s.slug and "=" not in s.slug and "(" not in s.slug
    assert s.run_settings({})["WORKERS"] == "threads" and s.run_settings({})["ENGINES"] == "4"


def test_each_stack_of_the_actor_designs_is_a_row_of_its_own():
    """java-akka's and java-spray-async's Akka and Pekko builds are rows of one variant each; a case that pins
    STACK runs that row alone."""
    vs = variants.by_name(ROOT, ["java-akka", "java-spray-async", "java-threads"])
    titles = [s.variant.title for s, _ in plan.rows_of(vs, [Case()], {})]
    assert titles == ["java-akka", "java-akka (STACK=pekko)", "java-spray-async", "java-spray-async (STACK=pekko)",
                      "java-threads"]
    order = [(u.windows[0][0], u.series.variant.title) for u in plan.fresh_units(plan.rows_of(vs, [Case()], {}), 2)]
    assert order == [(1, t) for t in titles] + [(2, t) for t in titles]
    pinned = plan.rows_of(vs, [Case(variants=["java-akka"], settings={"STACK": "pekko"})], {})
    assert [s.variant.title for s, _ in pinned] == ["java-akka (STACK=pekko)"]


def test_paired_puts_each_row_just_behind_its_baseline_twin():
    before = rows(["java-threads", "java-akka"], label="A")
    after = rows(["java-akka", "java-threads", "java-virtual"], label="B")
    order = [(s.case, s.variant.title) for s, _ in plan.paired(before, after)]
    assert order == [("A", "java-akka"), ("B", "java-akka"),
                     ("A", "java-akka (STACK=pekko)"), ("B", "java-akka (STACK=pekko)"),
                     ("A", "java-threads"), ("B", "java-threads"), ("B", "java-virtual")]


def test_each_build_of_a_variant_brings_its_own_floor():
    """java-spray-async's Akka row and its Pekko row are two builds of one variant: both floors are measured."""
    from tradebench_harness.measure import execute
    units = plan.window_units(rows(["java-spray-async", "java-threads", "java-akka"]), 1)
    builds = execute.builds_of(units)
    assert sorted(v.title for v in builds) == ["java-akka", "java-akka (STACK=pekko)", "java-spray-async",
                                               "java-spray-async (STACK=pekko)", "java-threads"]
    floors = execute.floors_of(builds)
    assert {"tomcat", "akka-http", "pekko-http"} <= set(floors)
    assert floors["akka-http"].label == "" and floors["pekko-http"].label == "STACK=pekko"


def test_a_unit_of_cluster_members_brings_the_members_build_into_the_plan():
    """Every build a run needs is made before its first unit (a unit measures, it does not build): cluster
    members run the manifest's cluster build, which the plan holds only for a unit that runs members."""
    from tradebench_harness.measure import execute
    alone = execute.builds_of(plan.window_units(rows(["java-spray-async"]), 1))
    members = execute.builds_of(plan.window_units(rows(["java-spray-async"], nodes=3), 1))
    spray = variants.by_name(ROOT, ["java-spray-async"])[0]
    assert spray.cluster is not None and spray.cluster.build != spray.build
    assert spray.cluster.build in [v.build for v in members]
    assert spray.cluster.build not in [v.build for v in alone]


def test_a_window_carries_its_own_database_and_names_it():
    far, busy, synced = Window(10, rate=500), Window(0, rate=500, db_cpu=0.25), Window(0, rate=500, db_durable=True)
    # the latency alone keys a far window's round trip as every folder before (cells.rttMs["10"])
    assert [w.db_key for w in (far, busy, synced)] == ["10", "0, 0.25 cores", "0, synced"]
    assert Window(0, db_durable=False).db_key == "0, not synced"
    assert [w.db_slug for w in (far, busy, synced)] == ["10ms", "0ms-0.25cores", "0ms-synced"]
    assert busy.db_text == "+0 ms with 0.25 cores" and far.db_text == "+10 ms"
    assert Window(0, db_durable=False).db_text == "+0 ms with commits not synced"
    # the old positional form is the far window it always was
    assert Window(5, 64, 0, 500) == Window(latency_ms=5, rate=500) and Window(5).database == (5, None, None)


def test_the_estimate_counts_each_windows_database_and_probes_each_setting_once():
    (s,) = [s for s, _ in rows(["java-threads"])]
    t = Timing(window=10, warmup="5", settle=5, link=True)
    far = plan.grid_units([s], [Window(0, rate=500), Window(0, rate=2000)], 1)
    busy = plan.grid_units([s], [Window(0, rate=500, db_cpu=1), Window(0, rate=500, db_cpu=0.25)], 1)
    synced = plan.grid_units([s], [Window(0, rate=500, db_durable=False), Window(0, rate=500, db_durable=True)], 1)
    one = plan.estimate_seconds(far, t, {})
    # far: one latency, one probe; busy and durable: two settings, a probe of each, and each window and each probe
    # with its database set and put back
    probe = 2 * plan.PROBE_SECONDS
    assert plan.estimate_seconds(busy, t, {}) == one - probe + 2 * (probe + plan.SETTING_SECONDS) \
        + 2 * plan.SETTING_SECONDS
    assert plan.estimate_seconds(synced, t, {}) == plan.estimate_seconds(busy, t, {})
    assert plan.databases(busy + busy) == [(0, 1, None), (0, 0.25, None)]


def test_processes_give_every_cell_fresh_processes_round_robin_their_windows_numbered_on():
    series = [s for s, _ in rows(["java-threads", "java-virtual"])]
    cells = [Window(0, rate=500), Window(10, rate=500)]
    units = plan.grid_units(series, cells, 1, processes=2)
    assert [u.series.variant.name for u in units] == ["java-threads", "java-virtual"] * 2
    assert units[0].windows == [(1, cells[0]), (1, cells[1])] and units[2].windows == [(2, cells[0]), (2, cells[1])]
    sweep = plan.window_units(rows(["java-threads"], rate=500), 2, processes=2)
    assert [[rep for rep, _ in u.windows] for u in sweep] == [[1, 2], [3, 4]]

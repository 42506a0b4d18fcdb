"""Run records built by hand in tests: the keys every writer of a run writes (record.Run's required keys: a
window's settings, measure/instance.py), with values that read as their absence did before they were required."""


def window(variant: str = "java-threads", **kw: object) -> dict:
    """A run record of VARIANT with every required key; KW sets or adds any key."""
    r = {"variant": variant, "runtime": "java", "case": "", "row": "", "repeat": 1, "series": None, "engines": 4,
         "persist": "per-sale", "waitMs": 0, "rate": None, "concurrency": 64, "dbLatencyMs": 0, "settings": {},
         "dbConnections": 8, "nodes": 1, "floor": None, "inFlight": None, "rttMs": None}
    r.update(kw)
    return r

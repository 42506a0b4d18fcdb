"""A cell of the sweep or the map starts only when the backlog of the cell before is stored (instance.drain), on
the real private database: it waits while SALES grows, returns a second after it stopped, and gives up at its
bound when it never stops."""
import threading
import time

import pytest

from tradebench_harness.measure import instance
from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.integration   # the private database, no variant

# its own database: the rows it stores would otherwise be fills of orders 1, 2, ... in the database the
# sweep's and the map's tests verify their variants against
TEST_DB = "TRADER_HARNESS_DRAIN_TEST"


@pytest.fixture()
def db(ctx):
    dbmod.start_private(ctx)
    dbmod.create(ctx, TEST_DB)
    handle = dbmod.open_db(ctx, TEST_DB)
    handle.sql("TRUNCATE TABLE SALES")
    yield handle
    handle.sql("TRUNCATE TABLE SALES")


def store_for(db, seconds: float, started: threading.Event) -> threading.Thread:
    """A backlog being stored: a row every 0.2 s for SECONDS."""
    def run():
        until = time.monotonic() + seconds
        n = 0
        started.set()
        while time.monotonic() < until:
            n += 1
            db.sql(f"INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED) "
                   f"VALUES ('b', 's', '1', 1.00, 1, {n}, {n}, 0)")
            time.sleep(0.2)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_waits_until_the_backlog_is_stored(db):
    started = threading.Event()
    writer = store_for(db, 3.0, started)
    started.wait(5)
    took = instance.drain(db, None, most_s=30, quiet_s=1.0)
    writer.join()
    assert 3.0 <= took < 10, f"returned after {took} s: the rows kept coming for 3 s"
    n = int(db.scalar("SELECT COUNT(*) FROM SALES"))
    time.sleep(0.5)
    assert int(db.scalar("SELECT COUNT(*) FROM SALES")) == n, "SALES still grew after it returned"


def test_an_idle_variant_costs_a_second(db):
    assert instance.drain(db, None, most_s=30, quiet_s=1.0) < 3


def test_a_backlog_that_never_ends_stops_at_the_bound(db):
    started = threading.Event()
    writer = store_for(db, 6.0, started)
    started.wait(5)
    took = instance.drain(db, None, most_s=2, quiet_s=1.0)
    assert 2 <= took < 4, took
    writer.join()

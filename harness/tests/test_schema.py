"""schema.sql on the real private database: an INSERT that leaves CREATED out, as the original 2014 code's
does, is stored with the insert time in ms; a SALES made by the schema before CREATED had its default gets
it when the schema is applied again; a writer that sets CREATED, as every variant does, keeps its value."""
import time

import pytest

from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.integration   # the private database, no variant

# databases of their own: the rows stored here would otherwise be fills the other tests' verifiers read
TEST_DB = "TRADER_HARNESS_SCHEMA_TEST"
OLD_DB = "TRADER_HARNESS_SCHEMA_OLD"

WITHOUT_CREATED = ("INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID) "
                   "VALUES ('b', 's', '7', 10.50, 3, {po}, {so})")

# SALES as schema.sql created it before CREATED had a default
OLD_SALES = """CREATE TABLE SALES (
  ID BIGINT NOT NULL AUTO_INCREMENT, BUYER_NAME VARCHAR(64) NOT NULL, SELLER_NAME VARCHAR(64) NOT NULL,
  PRODUCT_ID VARCHAR(16) NOT NULL, PRICE DECIMAL(12,2) NOT NULL, QUANTITY INT NOT NULL, PO_ID BIGINT NOT NULL,
  SO_ID BIGINT NOT NULL, CREATED BIGINT NOT NULL, PRIMARY KEY (ID), KEY SALES_PRODUCT_ID (PRODUCT_ID),
  UNIQUE KEY SALES_PO_SO (PO_ID, SO_ID), KEY SALES_SO_ID (SO_ID), KEY SALES_CREATED (CREATED)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"""


@pytest.fixture()
def db(ctx):
    dbmod.start_private(ctx)
    dbmod.create(ctx, TEST_DB)
    handle = dbmod.open_db(ctx, TEST_DB)
    handle.sql("TRUNCATE TABLE SALES")
    yield handle
    handle.sql("TRUNCATE TABLE SALES")


def now_ms() -> int:
    return int(time.time() * 1000)


def test_an_insert_without_created_stores_the_insert_time_in_ms(db):
    before = now_ms()
    db.sql(WITHOUT_CREATED.format(po=1, so=2))
    after = now_ms()
    created = int(db.scalar("SELECT CREATED FROM SALES WHERE PO_ID = 1 AND SO_ID = 2"))
    # the server and this process read the same clock; a millisecond either side for the rounding
    assert before - 1 <= created <= after + 1, (before, created, after)


def test_the_default_keeps_the_milliseconds(db):
    # a whole-second default ends in 000 every time; of 20 inserts one after another (a client process each,
    # milliseconds apart) not all do
    for n in range(20):
        db.sql(WITHOUT_CREATED.format(po=100 + n, so=200 + n))
    endings = {int(v) % 1000 for v in db.sql("SELECT CREATED FROM SALES WHERE PO_ID >= 100").split()}
    assert endings != {0}, "CREATED holds whole seconds"


def test_a_writer_that_sets_created_keeps_its_value(db):
    db.sql("INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED) "
           "VALUES ('b', 's', '7', 10.50, 3, 5, 6, 1234567890123)")
    assert db.scalar("SELECT CREATED FROM SALES WHERE PO_ID = 5") == "1234567890123"


def test_applying_the_schema_gives_an_older_sales_the_default(ctx):
    dbmod.create(ctx, OLD_DB)
    old = dbmod.open_db(ctx, OLD_DB)
    old.sql("DROP TABLE SALES")
    old.sql(OLD_SALES)
    with pytest.raises(dbmod.DbError, match="1364|default value"):
        old.sql(WITHOUT_CREATED.format(po=1, so=2))        # what the 2014 code met
    dbmod.apply_schema(ctx, OLD_DB)
    before = now_ms()
    old.sql(WITHOUT_CREATED.format(po=1, so=2))
    created = int(old.scalar("SELECT CREATED FROM SALES WHERE PO_ID = 1"))
    assert before - 1 <= created <= now_ms() + 1
    old.sql(f"DROP DATABASE {OLD_DB}")

-- tradebench storage (contract section 4). Works on MariaDB 10.6+ and MySQL 8.x.
-- Applied by `./tradebench db start` to the private database, and by the
-- mysql image's entrypoint in docker-compose.yml.
-- The launcher's test databases are this file with TRADER renamed.

CREATE DATABASE IF NOT EXISTS TRADER;
USE TRADER;

-- The column names are the original 2014 experiment's, so its code can write
-- here: its INSERT names every column but CREATED, which the server then fills
-- (the default below). The variants set CREATED themselves.
CREATE TABLE IF NOT EXISTS SALES (
  ID          BIGINT        NOT NULL AUTO_INCREMENT,
  BUYER_NAME  VARCHAR(64)   NOT NULL,
  SELLER_NAME VARCHAR(64)   NOT NULL,
  PRODUCT_ID  VARCHAR(16)   NOT NULL,
  PRICE       DECIMAL(12,2) NOT NULL,
  QUANTITY    INT           NOT NULL,
  PO_ID       BIGINT        NOT NULL,
  SO_ID       BIGINT        NOT NULL,
  -- insert time, ms since the epoch. The default is exact in any time zone:
  -- UNIX_TIMESTAMP() and CURRENT_TIMESTAMP(3) both read the statement's start.
  CREATED     BIGINT        NOT NULL
              DEFAULT (UNIX_TIMESTAMP() * 1000 + MICROSECOND(CURRENT_TIMESTAMP(3)) DIV 1000),
  PRIMARY KEY (ID),
  KEY SALES_PRODUCT_ID (PRODUCT_ID),
  -- A purchase order meets a sales order at most once (one of the two is
  -- filled by their sale), so (PO_ID, SO_ID) names a sale. Unique, it makes a
  -- retried insert idempotent: a sale is never stored twice. It is also the
  -- index on PO_ID (its leftmost column).
  UNIQUE KEY SALES_PO_SO (PO_ID, SO_ID),
  KEY SALES_SO_ID (SO_ID),
  KEY SALES_CREATED (CREATED)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A SALES made before CREATED had its default gets it (a change of metadata
-- only: no row is rewritten).
ALTER TABLE SALES ALTER COLUMN CREATED
  SET DEFAULT (UNIX_TIMESTAMP() * 1000 + MICROSECOND(CURRENT_TIMESTAMP(3)) DIV 1000);

-- java-spray-async in cluster mode only (contract section 9): one row per
-- engine partition. A partition leaving a member (SIGTERM, rebalancing) writes
-- its open orders here as JSON with STATE 'handed-over'; its next incarnation,
-- on whichever member, reads them, joins them to its market and sets STATE
-- 'running'. An incarnation that finds 'running' knows its predecessor
-- crashed without handing over. The other variants never touch it.
CREATE TABLE IF NOT EXISTS ENGINE_HANDOVER (
  ENGINE   INT         NOT NULL,
  STATE    VARCHAR(16) NOT NULL,
  ORDERS   LONGTEXT    NULL,
  UPDATED  BIGINT      NOT NULL,  -- ms since the epoch
  PRIMARY KEY (ENGINE)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The services' user. Its password is for a private benchmark database on
-- loopback or a compose network; change it anywhere else.
CREATE USER IF NOT EXISTS 'trader'@'%' IDENTIFIED BY 'trader';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON TRADER.* TO 'trader'@'%';

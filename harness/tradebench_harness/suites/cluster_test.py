"""The cluster test (run by `./tradebench test`, alone by `./tradebench cluster-test`):
java-spray-async as three members (java-spray-cluster's jar, its manifest's cluster key) (A, B, C = members 0, 1, 2), on the database
TRADER_CLUSTER. Four clusters, each started afresh (SALES and ENGINE_HANDOVER emptied), the
first three on loopback:

  1. cross-member: a sell through A and a buy through B on one product make exactly one
     SALES row; C answers /orders/{id} of both (asking the issuing member);
     `loadclient verify` against A passes; SIGTERM stops all three with exit 0.
  2. kill -9 under load: load through A and B (`loadclient reliability load`), one open
     "canary" sell per partition on a product the load never uses; C is killed with
     SIGKILL 5 s into 25 s. C's partitions must sell again on A and B (the first SALES row of
     each after the kill; measured, and reported in the step's name) within 30 s: the issue's
     15 s is the design's target on a quiet machine (about 10 s: java-spray-cluster/README.md), and
     this bound is generous so that a crowded machine does not fail it (TB_CLUSTER_RECOVERY_MS
     sets another); the other
     partitions within 5 s (they never stopped); the canaries of C's partitions say
     "lost", the others "open"; the audit finds nothing doubled, over-filled or from an
     order that was not accepted.
  3. SIGTERM under load: load through A and C, B gets SIGTERM 4 s in (exit 0 expected);
     then one buy and one sell of 1,000,000 per product (the sell priced above every
     load sell) trade away everything still open: every order accepted during the run
     must then be filled exactly, which it cannot be if a hand-over lost it; the audit.
  4. a partition under load: C runs in a network namespace of its own (netcut.py: a veth
     pair, the database through a relay), A and B on this machine's side of it; load
     through all three; 5 s in, iptables inside C's namespace drop the remoting between C
     and A/B for 40 s, then the cut heals. Reported: the timeline (C's last 202, the last
     sale of each of C's partitions stored on C, the first on A/B, C's exit). Checked: A
     and B trade C's partitions again within TB_CLUSTER_RECOVERY_MS; per partition C's
     last sale precedes the majority's first (no two incarnations at once); C, downed,
     exits 1 before the heal; no order filled beyond its quantity, no (PO, SO) pair
     twice, the audit; /orders/{id} through every member still running, of the orders C
     accepted after the cut and of A's and B's orders C's side traded during it: never
     404, `filled` whenever the fills cover the quantity, `lost` only when they do not.
     Needs root (ip netns) and iptables; fails, never skips, without them.

Figures: .tradebench/cluster/<stamp>/figures.json.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from ..run import db as dbmod
from ..run import loadclient, members, netcut, process
from ..run.context import Context
from ..run.variants import ManifestError, Variant, select
from .steps import Steps

DB_NAME = "TRADER_CLUSTER"
VARIANT = "java-spray-async"
ENGINES = 6
RECOVERY_MS = int(os.environ.get("TB_CLUSTER_RECOVERY_MS", 30000))
# the partition: load for CUT_LEAD_S, C cut off for CUT_S, load on for CUT_TAIL_S after the heal
CUT_LEAD_S, CUT_S, CUT_TAIL_S = 5, 40, 8
VIEW_SAMPLE = 150


def call(method: str, url: str, timeout: float = 10.0) -> tuple[int, dict[str, Any] | None]:
    """(HTTP status, the answer's JSON: None when it has none); status -1 when nothing answered."""
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read() or b"null")
        except ValueError:
            return e.code, None
    except (OSError, ValueError):
        return -1, None


def hosted(url: str) -> list[int] | None:
    st, j = call("GET", f"{url}/stats")
    hosts: list[int] | None = (j or {}).get("member", {}).get("hosted") if st == 200 else None
    return hosts


def accepted(url: str) -> int:
    """The orders a member (its cluster, /stats sums the members) has accepted so far; -1 when it does not answer."""
    st, j = call("GET", f"{url}/stats")
    return int(j.get("accepted", -1)) if st == 200 and isinstance(j, dict) else -1


def wait_under_load(url: str, orders: int = 300, seconds: float = 30) -> bool:
    """Waits until the loads are under way: ORDERS more accepted than when it was called (at most SECONDS), so
    that what follows (a kill, a SIGTERM) happens under load, however slowly the load clients start."""
    end = time.monotonic() + seconds
    base = accepted(url)
    while time.monotonic() < end:
        if accepted(url) >= base + orders:
            return True
        time.sleep(0.2)
    return False


def wait_spread(ms: members.Members, seconds: float = 60) -> dict[str, list[int]]:
    """Waits until every member runs at least one partition and all ENGINES run somewhere."""
    end = time.monotonic() + seconds
    got: dict[str, list[int]] = {}
    while time.monotonic() < end:
        got = {m.url: hosted(m.url) or [] for m in ms.members}
        if all(got.values()) and sorted(e for v in got.values() for e in v) == list(range(ENGINES)):
            return got
        time.sleep(0.5)
    return got


def place_canaries(url: str) -> dict[int, int]:
    """One open sell order on each partition (products 100 to 100 + ENGINES - 1), through URL: partition -> its
    order id."""
    canaries: dict[int, int] = {}
    for p in range(100, 100 + ENGINES):
        st, j = call("POST", f"{url}/sell?userId=canary&productId={p}&quantity=1&price=50.00")
        if st == 202 and j is not None:
            canaries[p % ENGINES] = j["id"]
    return canaries


def accepted_orders(files: list[Path]) -> dict[int, int]:
    """Order id -> quantity of every order the load clients' TSV FILES say was accepted."""
    accepted: dict[int, int] = {}
    for f in files:
        for line in f.read_text().splitlines():
            if line.strip():
                x = line.split("\t")
                accepted[int(x[0])] = int(x[4])
    return accepted


def sweep_market(url: str, path: Path) -> None:
    """On every product, through URL, a buy of a million and a sell of a million at 100,000.00: what is left in
    the books trades; the accepted ones written to PATH as a load client writes them."""
    with open(path, "w") as f:
        for p in range(100):
            st, j = call("POST", f"{url}/buy?userId=h-sweep-b&productId={p}&quantity=1000000")
            if st == 202 and j is not None:
                f.write(f"{j['id']}\tbuy\th-sweep-b\t{p}\t1000000\t-\n")
            st, j = call("POST", f"{url}/sell?userId=h-sweep-s&productId={p}&quantity=1000000&price=100000.00")
            if st == 202 and j is not None:
                f.write(f"{j['id']}\tsell\th-sweep-s\t{p}\t1000000\t100000.00\n")


def hold_cut(island: netcut.Island, c_proc: process.Running, loads: list[process.Running], cut: int) -> tuple[int | None, int]:
    """The cut held CUT_S, then healed, the loads waited for: (when C exited, when the cut healed), ms from CUT."""
    c_exit = None
    end = time.monotonic() + CUT_S
    while time.monotonic() < end:
        if c_exit is None and not c_proc.alive():
            c_exit = int(time.time() * 1000) - cut
        time.sleep(0.2)
    heal = int(time.time() * 1000) - cut
    island.heal()
    for l in loads:
        l.popen.wait(180)
    if c_exit is None:
        try:
            c_proc.popen.wait(30)
        except subprocess.TimeoutExpired:
            pass
        if not c_proc.alive():
            c_exit = int(time.time() * 1000) - cut
    return c_exit, heal


def wait_quiet(db: dbmod.Database, seconds: float = 60) -> int:
    """SALES stopped growing for 2 s; returns its row count."""
    end = time.monotonic() + seconds
    last, since = -1, time.monotonic()
    while time.monotonic() < end:
        n = int(db.scalar("SELECT COUNT(*) FROM SALES", DB_NAME))
        if n != last:
            last, since = n, time.monotonic()
        elif time.monotonic() - since >= 2:
            return n
        time.sleep(0.25)
    return last


def reset(db: dbmod.Database) -> None:
    db.sql("DELETE FROM SALES", DB_NAME)
    db.sql("DELETE FROM ENGINE_HANDOVER", DB_NAME)


class ClusterTest:
    def __init__(self, ctx: Context, steps: Steps, db: dbmod.Database, v: Variant, d: Path):
        self.ctx, self.steps, self.db, self.v, self.d = ctx, steps, db, v, d
        self.figures: dict[str, Any] = {}
        self.row = f" ({v.label})" if v.label else ""   # the manifest row it runs (STACK=pekko), in every step's name

    def settings(self, **extra: object) -> dict[str, str]:
        return {**self.db.variant_env(DB_NAME), "ENGINES": str(ENGINES), **{k: str(x) for k, x in extra.items()}}

    def start(self, tag: str, **extra: object) -> members.Members:
        reset(self.db)
        logs = [self.d / f"{tag}-member-{c}.log" for c in "ABC"]
        return members.start(self.ctx, self.v, self.settings(**extra), logs)

    def load(self, url: str, prefix: str, seed: int, seconds: int, out: Path, connections: int = 16) -> process.Running:
        return loadclient.start(self.ctx, "reliability", "load", "--url", url, "--db-url", self.db.jdbc(DB_NAME),
                                "--prefix", prefix, "--engines", ENGINES, "--products", 100, "--seed", seed,
                                "--connections", connections, "--wait", 5, "--duration", seconds, "--orders-out", out,
                                log=out.with_suffix(".log"))

    def audit(self, name: str, prefix: str, files: list[Path], url: str) -> bool:
        log = self.d / f"{name}-audit.log"
        rc = loadclient.run(self.ctx, "reliability", "audit", "--url", url, "--db-url", self.db.jdbc(DB_NAME),
                            "--prefix", prefix, "--orders", ",".join(str(f) for f in files),
                            "--json", self.d / f"{name}-audit.json", log=log)
        if rc != 0:
            print("\n".join(l for l in log.read_text(errors="replace").splitlines() if l.startswith("FAIL"))[:3000],
                  flush=True)
        return rc == 0

    # ---- 1 ----
    def cross_member(self) -> None:
        name = f"cluster{self.row}: three members"
        try:
            ms = self.start("cross")
        except process.NotHealthy as e:
            self.steps.fail(f"{name}: not up ({e})")
            return
        try:
            a, b, c = (m.url for m in ms.members)
            st1, sell = call("POST", f"{a}/sell?userId=x1-seller&productId=7&quantity=3&price=12.50")
            st2, buy = call("POST", f"{b}/buy?userId=x1-buyer&productId=7&quantity=3")
            if st1 != 202 or st2 != 202 or sell is None or buy is None:
                self.steps.fail(f"{name}: cross-member trade (sell through A {st1} {sell}, buy through B {st2} {buy})")
            else:
                sid, bid = sell["id"], buy["id"]
                end = time.monotonic() + 30
                rows = 0
                while time.monotonic() < end and rows == 0:
                    rows = int(self.db.scalar(f"SELECT COUNT(*) FROM SALES WHERE SO_ID = {sid}", DB_NAME))
                    time.sleep(0.2)
                time.sleep(1)
                got = self.db.sql(f"SELECT PO_ID, SO_ID, QUANTITY FROM SALES WHERE SO_ID = {sid} OR PO_ID = {bid}",
                                  DB_NAME).split("\n")
                got = [g for g in got if g]
                vs, sv = call("GET", f"{c}/orders/{sid}")
                vb, bv = call("GET", f"{c}/orders/{bid}")
                ok = (len(got) == 1 and got[0].split("\t") == [str(bid), str(sid), "3"]
                      and vs == 200 and (sv or {}).get("status") == "filled" and len((sv or {}).get("fills", [])) == 1
                      and vb == 200 and (bv or {}).get("status") == "filled" and (bv or {}).get("remaining") == 0)
                msg = (f"sell {sid} through A and buy {bid} through B made {len(got)} SALES row(s) {got}; "
                       f"C answers /orders of both: {vs} {(sv or {}).get('status')}, {vb} {(bv or {}).get('status')}")
                (self.steps.ok if ok else self.steps.fail)(f"{name}: cross-member trade: {msg}")
            vlog = self.d / "verify.log"
            rc = loadclient.run(self.ctx, "verify", "--url", a, "--db-url", self.db.jdbc(DB_NAME), log=vlog)
            if rc == 0:
                self.steps.ok(f"{name}: loadclient verify against member A")
            else:
                print("\n".join(vlog.read_text(errors="replace").splitlines()[-30:]), flush=True)
                self.steps.fail(f"{name}: loadclient verify against member A (log: {vlog})")
        finally:
            t0 = time.monotonic()
            codes = ms.stop(90)
            secs = time.monotonic() - t0
        self.figures["stopAllSeconds"] = round(secs, 1)
        if codes == [0, 0, 0]:
            self.steps.ok(f"{name}: SIGTERM stops all three, one after the other, exit 0 ({secs:.1f} s)")
        else:
            self.steps.fail(f"{name}: SIGTERM exit codes {codes} (logs: {self.d})")

    # ---- 2 ----
    def first_sales_after(self, t_ms: int) -> dict[int, int | None]:
        """Partition -> ms from T_MS to its first sale stored after it (None: none)."""
        first = {}
        for e in range(ENGINES):
            v = self.db.scalar(f"SELECT MIN(CREATED) FROM SALES WHERE CREATED > {t_ms} "
                               f"AND MOD(CAST(PRODUCT_ID AS UNSIGNED), {ENGINES}) = {e}", DB_NAME)
            first[e] = int(v) - t_ms if v not in ("", "NULL") else None
        return first

    def check_canaries(self, name: str, url: str, canaries: dict[int, int], on_c: list[int]) -> None:
        """Asked through URL, the open order of each partition is lost on C's partitions, open on the others."""
        views = {e: call("GET", f"{url}/orders/{i}") for e, i in canaries.items()}
        want = {e: ("lost" if e in on_c else "open") for e in canaries}
        got = {e: (v[1] or {}).get("status") for e, v in views.items()}
        ok = len(canaries) == ENGINES and got == want
        (self.steps.ok if ok else self.steps.fail)(
            f"{name}: /orders/{{id}} of one open order per partition says lost for C's, open for the others: {got}")

    def kill(self) -> None:
        name = f"cluster{self.row}: kill -9 of member C under load"
        try:
            ms = self.start("kill", PRODUCTS=110)
        except process.NotHealthy as e:
            self.steps.fail(f"{name}: not up ({e})")
            return
        loads = []
        try:
            spread = wait_spread(ms)
            a, b, c = (m.url for m in ms.members)
            on_c = spread.get(c) or []
            self.figures["killSpread"] = {k: v for k, v in spread.items()}
            if not on_c:
                self.steps.fail(f"{name}: C runs no partition ({spread})")
                return
            canaries = place_canaries(a)
            time.sleep(1)
            files = [self.d / "kill-a.tsv", self.d / "kill-b.tsv"]
            loads = [self.load(a, "k-", 1, 25, files[0]), self.load(b, "k-", 2, 25, files[1])]
            wait_under_load(a)
            kill_ms = int(time.time() * 1000)
            os.kill(ms.members[2].pid, signal.SIGKILL)
            for l in loads:
                l.popen.wait(120)
            loads = []
            wait_quiet(self.db)
            first = self.first_sales_after(kill_ms)
            back = [first[e] for e in on_c]
            others = [first[e] for e in range(ENGINES) if e not in on_c]
            self.figures.update({"killedPartitions": on_c, "firstSaleAfterKillMs": first})
            ok = all(x is not None and x <= RECOVERY_MS for x in back)
            (self.steps.ok if ok else self.steps.fail)(
                f"{name}: its partitions {on_c} sold again on A and B after {back} ms (bound {RECOVERY_MS} ms)")
            ok = all(x is not None and x <= 5000 for x in others)
            (self.steps.ok if ok else self.steps.fail)(
                f"{name}: the other partitions kept trading (first sale after the kill: {others} ms, bound 5000 ms)")
            self.check_canaries(name, b, canaries, on_c)
            (self.steps.ok if self.audit("kill", "k-", files, a) else self.steps.fail)(
                f"{name}: audit: nothing doubled or over-filled, every row from accepted orders (log: {self.d / 'kill-audit.log'})")
        finally:
            for l in loads:
                l.stop(1)
            codes = ms.stop(90)
        if codes[:2] != [0, 0]:
            self.steps.fail(f"{name}: the survivors' SIGTERM exit codes {codes[:2]} (logs: {self.d})")

    # ---- 3 ----
    def leave(self) -> None:
        name = f"cluster{self.row}: SIGTERM of member B under load"
        try:
            ms = self.start("leave", TIMEOUT_MS=600000)
        except process.NotHealthy as e:
            self.steps.fail(f"{name}: not up ({e})")
            return
        loads = []
        try:
            spread = wait_spread(ms)
            a, b, c = (m.url for m in ms.members)
            on_b = spread.get(b) or []
            files = [self.d / "leave-a.tsv", self.d / "leave-c.tsv"]
            loads = [self.load(a, "h-", 3, 12, files[0]), self.load(c, "h-", 4, 12, files[1])]
            wait_under_load(a)
            code = ms.members[1].stop(90)
            exit_ms = ms.members[1].exit_ms
            handed = sum(int(l.split(" with ")[1].split()[0]) for l in ms.members[1].log.read_text(errors="replace").splitlines()
                         if "handed over from" in l)
            self.figures.update({"leftPartitions": on_b, "leaveExitMs": exit_ms, "handedOverOrders": handed})
            (self.steps.ok if code == 0 else self.steps.fail)(
                f"{name}: exit {code} in {exit_ms} ms, its partitions {on_b} handed over with {handed} open orders")
            for l in loads:
                l.popen.wait(120)
            loads = []
            wait_quiet(self.db)
            sweep = self.d / "leave-sweep.tsv"
            sweep_market(a, sweep)
            wait_quiet(self.db)
            accepted = accepted_orders(files)
            filled = self.fills()
            short = [i for i, q in accepted.items() if filled.get(i, 0) != q]
            self.figures.update({"leaveAccepted": len(accepted), "leaveNotFilled": len(short)})
            ok = accepted and not short
            (self.steps.ok if ok else self.steps.fail)(
                f"{name}: all {len(accepted)} accepted orders traded in full once the market was swept"
                + (f"; {len(short)} not, e.g. {short[:5]}" if short else ""))
            (self.steps.ok if self.audit("leave", "h-", files + [sweep], a) else self.steps.fail)(
                f"{name}: audit: nothing doubled or over-filled (log: {self.d / 'leave-audit.log'})")
        finally:
            for l in loads:
                l.stop(1)
            codes = ms.stop(90)
        if codes[0] != 0 or codes[2] != 0:
            self.steps.fail(f"{name}: A's and C's SIGTERM exit codes {codes[0]}, {codes[2]} (logs: {self.d})")


    # ---- 4 ----
    def partition(self) -> None:
        name = f"cluster{self.row}: member C cut off from A and B under load"
        why = netcut.missing()
        if why:
            self.steps.fail(f"{name}: C cannot be cut off on this machine: {why}")
            return
        reset(self.db)
        island = netcut.Island(self.db.host, self.db.port)
        try:
            island.open()
        except netcut.NetcutError as e:
            self.steps.fail(f"{name}: no network namespace for C ({e})")
            return
        ms, loads = None, []
        try:
            try:
                ms = self.start_island(island)
            except process.NotHealthy as e:
                self.steps.fail(f"{name}: not up ({e})")
                return
            loads = self.cut_under_load(name, island, ms)
        finally:
            for l in loads:
                l.stop(1)
            codes = ms.stop(90) if ms else [0, 0, 0]
            island.close()
        if codes[:2] != [0, 0]:
            self.steps.fail(f"{name}: A's and B's SIGTERM exit codes {codes[:2]} (logs: {self.d})")

    def start_island(self, island: netcut.Island) -> members.Members:
        """A and B in this machine's namespace, C on the island; remoting on the veth pair's two addresses.

        C and B start first and A, the first seed, which forms the cluster, only once both listen: a member
        whose shard region registers more than FORM_WAIT_S (10 s) after the first one was up gets no partition
        (the others have placed them all), and C, whose database answers through the relay, is the slowest."""
        ports = [process.free_port() for _ in range(3)]
        cports = [process.free_port() for _ in range(3)]
        hosts = [island.outside, island.outside, island.inside]
        seeds = ",".join(f"{h}:{p}" for h, p in zip(hosts, cports))
        started: dict[int, process.Running] = {}
        for i, tag in ((2, "C"), (1, "B"), (0, "A")):
            if tag == "A":
                members.listening([self.d / "cut-member-C.log", self.d / "cut-member-B.log"], 120,
                                  [r.popen for r in started.values()])
            env: dict[str, object] = {**self.settings(), "PORT": ports[i], "CLUSTER_HOST": hosts[i], "CLUSTER_PORT": cports[i],
                   "CLUSTER_SEEDS": seeds}
            argv = members.member(self.v).command(self.ctx)
            if tag == "C":   # its database through the relay on the other end of its veth
                env.update({"DB_HOST": island.outside, "DB_PORT": island.db_port})
                argv = island.prefix() + argv
            r = process.start(f"{VARIANT}-{i}", argv, self.d / f"cut-member-{tag}.log",
                              env={k: str(x) for k, x in env.items()}, cwd=self.ctx.root, port=ports[i])
            r.host = "127.0.0.1" if tag != "C" else island.inside
            started[i] = r
        running = [started[i] for i in range(3)]
        ms = members.Members(running, cports)
        if not members.wait_up([m.url for m in running], 3, 150, [m.popen for m in running]):
            ms.stop(10)
            raise process.NotHealthy(f"the three members did not all come up (logs: {self.d})")
        return ms

    def cut_under_load(self, name: str, island: netcut.Island, ms: members.Members) -> list[process.Running]:
        spread = wait_spread(ms)
        a, b, c = (m.url for m in ms.members)
        on_c = spread.get(c) or []
        if not on_c:
            self.steps.fail(f"{name}: C runs no partition ({spread})")
            return []
        files = [self.d / f"cut-{t}.tsv" for t in "abc"]
        loads = [self.load(u, "p-", 5 + i, CUT_LEAD_S + CUT_S + CUT_TAIL_S, f, connections=8)
                 for i, (u, f) in enumerate(zip((a, b, c), files))]
        time.sleep(CUT_LEAD_S)
        # the cut counts from when the rules are in place: an order accepted after it cannot reach C
        island.cut(ms.cluster_ports[2], ms.cluster_ports[:2])
        cut = int(time.time() * 1000)
        c_proc = ms.members[2]
        c_exit, heal = hold_cut(island, c_proc, loads, cut)
        loads = []
        wait_quiet(self.db)
        accepted = accepted_orders(files)
        c_ids = [i for i in accepted if members_of(i) == 2]
        last_202 = max(c_ids) // 1000 - cut if c_ids else None
        on_c_sql = ",".join(str(e) for e in on_c)
        per = self.partitions_after_cut(cut, on_c_sql)
        self.figures.update({"cutPartitionsOfC": on_c, "cutPerPartition": per, "cutLast202FromCMs": last_202,
                             "cutCExitMs": c_exit, "cutCExitCode": c_proc.popen.returncode, "cutHealMs": heal})
        self.judge_cut(name, on_c, per, c_proc, c_exit, heal, last_202)
        filled = self.judge_fills(name, accepted, files, a)
        self.views_after_cut(name, [m.url for m in ms.members if m.alive()], accepted, filled, c_ids, cut, on_c_sql)
        return loads

    def partitions_after_cut(self, cut: int, on_c_sql: str) -> dict[int, dict[str, int | None]]:
        """Per partition of C, the rows after the cut: C's incarnation holds C's orders and those accepted before
        the cut; the majority's new incarnation only orders A and B accepted after it started."""
        mine = f"(MOD(PO_ID, 16) = 2 OR MOD(SO_ID, 16) = 2 OR (PO_ID < {cut * 1000} AND SO_ID < {cut * 1000}))"
        per: dict[int, dict[str, int | None]] = {}
        for line in self.db.sql(
                f"SELECT MOD(CAST(PRODUCT_ID AS UNSIGNED), {ENGINES}) E, IFNULL(MAX(IF({mine}, CREATED, NULL)), -1), "
                f"IFNULL(MIN(IF({mine}, NULL, CREATED)), -1), SUM({mine}), SUM(NOT {mine}) FROM SALES "
                f"WHERE CREATED > {cut} AND MOD(CAST(PRODUCT_ID AS UNSIGNED), {ENGINES}) IN ({on_c_sql}) GROUP BY E",
                DB_NAME).splitlines():
            e, c_last, maj_first, n_c, n_maj = (int(x) for x in line.split("\t"))
            per[e] = {"cLastSaleMs": c_last - cut if c_last > 0 else None,
                      "majorityFirstSaleMs": maj_first - cut if maj_first > 0 else None,
                      "salesOnC": n_c, "salesOnMajority": n_maj}
        return per

    def judge_cut(self, name: str, on_c: list[int], per: dict[int, dict[str, int | None]], c_proc: process.Running,
                  c_exit: int | None, heal: int, last_202: int | None) -> None:
        """The timeline from the cut: the majority takes C's partitions over in time, never while C still
        stores, and C, downed, exits 1 before the heal."""
        back = [per.get(e, {}).get("majorityFirstSaleMs") for e in on_c]
        c_last = [per.get(e, {}).get("cLastSaleMs") for e in on_c]
        self.steps.ok(f"{name}: timeline from the cut: C's last 202 at {last_202} ms, C's partitions {on_c} last "
                      f"stored on C at {c_last} ms and first on A/B at {back} ms, C exited "
                      f"{c_proc.popen.returncode} at {c_exit} ms, healed at {heal} ms")
        ok = all(x is not None and x <= RECOVERY_MS for x in back)
        (self.steps.ok if ok else self.steps.fail)(
            f"{name}: A and B trade C's partitions {on_c} again {back} ms after the cut (bound {RECOVERY_MS} ms)")
        gaps = [(m - l) if m is not None and l is not None else None for m, l in zip(back, c_last)]
        ok = all(g is None or g > 0 for g in gaps)
        (self.steps.ok if ok else self.steps.fail)(
            f"{name}: no two incarnations of a partition stored at once: first sale on A/B minus last on C "
            f"{gaps} ms per partition")
        ok = c_exit is not None and c_exit < heal and c_proc.popen.returncode == 1
        (self.steps.ok if ok else self.steps.fail)(
            f"{name}: C, downed, stopped and exited {c_proc.popen.returncode} {c_exit} ms after the cut "
            f"(before the heal at {heal} ms; exit 1 expected)")

    def judge_fills(self, name: str, accepted: dict[int, int], files: list[Path], a: str) -> dict[int, int]:
        """No accepted order filled beyond its quantity, no (PO, SO) pair stored twice, the audit clean; the fills."""
        filled = self.fills()
        over = [i for i, q in accepted.items() if filled.get(i, 0) > q]
        twice = int(self.db.scalar("SELECT COUNT(*) FROM (SELECT PO_ID FROM SALES GROUP BY PO_ID, SO_ID "
                                   "HAVING COUNT(*) > 1) T", DB_NAME))
        self.figures.update({"cutAccepted": len(accepted), "cutOverFilled": len(over), "cutPairsTwice": twice})
        (self.steps.ok if not over and twice == 0 else self.steps.fail)(
            f"{name}: of {len(accepted)} accepted orders {len(over)} filled beyond their quantity, "
            f"{twice} (PO, SO) pairs stored twice" + (f", e.g. {over[:5]}" if over else ""))
        (self.steps.ok if self.audit("cut", "p-", files, a) else self.steps.fail)(
            f"{name}: audit: nothing doubled or over-filled, every row from accepted orders (log: {self.d / 'cut-audit.log'})")
        return filled

    def fills(self) -> dict[int, int]:
        filled = {}
        for line in self.db.sql("SELECT ID, SUM(Q) FROM (SELECT PO_ID ID, QUANTITY Q FROM SALES UNION ALL "
                                "SELECT SO_ID, QUANTITY FROM SALES) T GROUP BY ID", DB_NAME).splitlines():
            if line.strip():
                i, q = line.split("\t")
                filled[int(i)] = int(q)
        return filled

    def views_after_cut(self, name: str, urls: list[str], accepted: dict[int, int], filled: dict[int, int], c_ids: list[int],
                        cut: int, on_c_sql: str) -> None:
        """/orders/{id} through every member still running, of (1) the orders C accepted after the cut and (2) the
        orders A and B accepted before it that C's side traded during the cut."""
        after = sorted(i for i in c_ids if i // 1000 >= cut)
        traded_on_c = set()
        for line in self.db.sql(f"SELECT PO_ID, SO_ID FROM SALES WHERE CREATED > {cut} AND "
                                f"MOD(CAST(PRODUCT_ID AS UNSIGNED), {ENGINES}) IN ({on_c_sql})", DB_NAME).splitlines():
            for x in line.split("\t"):
                i = int(x)
                if members_of(i) != 2 and i < cut * 1000 and i in accepted:
                    traded_on_c.add(i)
        for label, ids in (("accepted by C after the cut", after), ("of A and B traded on C during the cut",
                                                                      sorted(traded_on_c))):
            chosen = sample(ids, filled, accepted)
            bad: list[tuple[int, str, int, object, str]] = []
            seen: dict[object, int] = {}
            with ThreadPoolExecutor(8) as pool:
                got = list(pool.map(lambda p: (p, call("GET", f"{p[0]}/orders/{p[1]}")),
                                    [(u, i) for i in chosen for u in urls]))
            for (u, i), (st, j) in got:
                status = (j or {}).get("status") if st == 200 else st
                seen[status] = seen.get(status, 0) + 1
                q, f = accepted[i], filled.get(i, 0)
                ok = st == 200 and (status == "filled" and f == q or status == "lost" and f < q
                                    or status in ("open", "timed_out") and f < q or status == "unknown" and f > 0)
                if not ok:
                    bad.append((i, u, st, status, f"{f} of {q} filled"))
            self.figures.setdefault("cutViews", {})[label] = {"orders": len(ids), "asked": len(chosen), "statuses": seen}
            (self.steps.ok if ids and not bad else self.steps.fail)(
                f"{name}: /orders/{{id}} of {len(chosen)} of the {len(ids)} orders {label}, through each of the "
                f"{len(urls)} members running: {seen}; never 404, filled when its fills cover it, lost only when "
                f"they do not" + (f"; wrong: {bad[:5]}" if bad else ""))


def members_of(order_id: int) -> int:
    """The member that issued ORDER_ID (contract section 9)."""
    return order_id % 16


def sample(ids: list[int], filled: dict[int, int], accepted: dict[int, int], most: int = VIEW_SAMPLE) -> list[int]:
    """Every id whose fills cover its quantity (the ones a wrong 'lost' would hurt), up to MOST, and as many
    others evenly spread."""
    covered = [i for i in ids if filled.get(i, 0) >= accepted[i]][:most]
    rest = [i for i in ids if filled.get(i, 0) < accepted[i]]
    step = max(1, len(rest) // most)
    return covered + rest[::step][:most]


def run(ctx: Context, steps: Steps, only: str | None = None) -> None:
    try:
        (base,) = select(ctx.root, VARIANT)
        # a row's "scenarios" (not a setting): the manifest's reduced set for that row; default every scenario
        rows = [(base.for_settings(row), row.get("scenarios", "").split() or None)
                for row in base.suite_rows("cluster-test", ctx.env)]
        for v, _ in rows:
            members.member(v).ensure_built(ctx)   # its members: the manifest's cluster build (each row's)
    except ManifestError as e:
        steps.fail(f"cluster: build ({e})")
        return
    db = dbmod.open_db(ctx, DB_NAME)
    if db.private:
        dbmod.create(ctx, DB_NAME)   # ./tradebench test creates it before (DB_HOST set then)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for v, scenarios in rows:
        run_row(ctx, steps, db, v, ctx.state / "cluster" / (stamp + v.slug[len(v.name):]),
                [only] if only else scenarios)


def run_row(ctx: Context, steps: Steps, db: dbmod.Database, v: Variant, d: Path, only: list[str] | None) -> None:
    """The scenarios (ONLY: those named) against one row of the variant (its default, or STACK=pekko's members)."""
    d.mkdir(parents=True, exist_ok=True)
    t = ClusterTest(ctx, steps, db, v, d)
    t0 = time.monotonic()
    for scenario in (t.cross_member, t.kill, t.leave, t.partition):
        if only and scenario.__name__ not in only:
            continue
        print(f"tradebench: cluster{t.row}: {scenario.__name__}", flush=True)
        try:
            scenario()
        except Exception as e:   # a scenario that breaks must not hide the others
            steps.fail(f"cluster{t.row}: {scenario.__name__}: {type(e).__name__}: {e}")
    t.figures["seconds"] = int(time.monotonic() - t0)
    (d / "figures.json").write_text(json.dumps(t.figures, indent=2))
    print(f"tradebench: cluster{t.row}: figures {json.dumps(t.figures)}", flush=True)

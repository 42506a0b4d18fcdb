"""The reliability suite's orchestration: bad input, overload,
database outage, crash isolation, shutdown, for every variant, on a database
instance of its own (.tradebench/reliability/db on a free port: the suite
really stops it, so never the shared one).

The checks themselves are `loadclient reliability PHASE` (loadclient/,
package tradebench.loadclient.reliability). Per variant:

  run A  ENGINES=4, database direct: bad-input -> outage (the database stopped
         2 s after a load's first stored sale, in a load that goes on until 4 s after it is back, started again
         10 s after the stop; audit) -> database killed (its server process
         SIGKILLed 3 s after a load's first stored sale, started again 10 s later; every order answered
         within REL_REQUEST_TIMEOUT_MS; the sales rate back at 80 % of the rate
         before the kill within REL_DBCRASH_RECOVERY_S of the database accepting
         connections, the variant never restarted; /stats salesPersisted = SALES;
         audit) -> SIGTERM 2 s into a 4 s load: exit 0
         within 10 s, audit over every order of the run, SALES = exactly the
         exit line's sales, its accepted = the 202s received
  run B  ENGINES=2 INBOX_LIMIT=10 FAULTS=on, database behind Toxiproxy
         (+REL_DB_LATENCY_MS per round trip): overload (capacity measured, 5x
         offered for 20 s, recovery, /stats accepted = the client's 202s,
         audit; peak RSS sampled) -> crash (engine 1, 2 s into a 7 s load) ->
         SIGTERM: exit 0 within 10 s, audit, SALES >= the exit line's sales
         (a killed Node child may have stored a sale it could not report)

Figures: .tradebench/reliability/runs/<stamp>/<variant>/*.json, and a table in
results/reliability-<stamp>.md (docs/reliability.md quotes the last run).
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import psutil

from ..run import db as dbmod
from ..run import loadclient, process, toxiproxy
from ..run.context import Context
from ..run.variants import ManifestError, Variant
from .steps import Steps


def settings_from_env() -> tuple[int, int, int]:
    e = os.environ
    return (int(e.get("REL_DB_LATENCY_MS", 50)), int(e.get("REL_INBOX_LIMIT", 10)), int(e.get("REL_RSS_LIMIT_MB", 1024)))


def exit_line(log: Path) -> tuple[int, int] | None:
    """(accepted, sales) of the variant's last exit line (docs/contract-details.md), or None."""
    found = None
    for line in log.read_text(errors="replace").splitlines():
        m = re.match(r"^exit variant=.*accepted=(\d+) sales=(\d+)", line)
        if m:
            found = (int(m.group(1)), int(m.group(2)))
    return found


def failures_of(log: Path, n: int = 15) -> str:
    lines = [l for l in log.read_text(errors="replace").splitlines() if l.startswith("FAIL") or l.startswith("loadclient:")]
    return "\n".join(lines[:n])


class Lock:
    """One suite at a time per tree: BASE/lock.d holding the owner's pid; a dead owner's lock is taken over."""

    def __init__(self, base: Path):
        self.dir = base / "lock.d"

    def acquire(self, wait_s: float = 900) -> bool:
        end = time.monotonic() + wait_s
        said = False
        while time.monotonic() < end:
            try:
                self.dir.mkdir(parents=True)
                (self.dir / "pid").write_text(str(os.getpid()))
                return True
            except FileExistsError:
                try:
                    holder = int((self.dir / "pid").read_text().strip())
                except (OSError, ValueError):
                    holder = None
                if holder and not psutil.pid_exists(holder):
                    (self.dir / "pid").unlink(missing_ok=True)
                    self.dir.rmdir()
                    continue
                if not said:
                    print(f"tradebench: reliability: another run of the suite (pid {holder}) holds {self.dir}: waiting",
                          flush=True)
                    said = True
                time.sleep(2)
        return False

    def release(self) -> None:
        try:
            if (self.dir / "pid").read_text().strip() == str(os.getpid()):
                (self.dir / "pid").unlink()
                self.dir.rmdir()
        except OSError:
            pass


class Suite:
    def __init__(self, ctx: Context, steps: Steps, root: Path, db_dir: Path, db_port: int):
        self.ctx, self.steps, self.root = ctx, steps, root
        self.db_dir, self.db_port = db_dir, db_port
        self.db = dbmod.private(ctx, "TRADER", db_dir=db_dir, port=db_port)
        self.latency_ms, self.inbox_limit, self.rss_limit_mb = settings_from_env()
        self.crash_recovery_s = int(os.environ.get("REL_DBCRASH_RECOVERY_S", 10))
        self.request_timeout_ms = int(os.environ.get("REL_REQUEST_TIMEOUT_MS", 2000))

    def java(self, phase: str, *args: object, log: Path) -> int:
        return loadclient.run(self.ctx, "reliability", phase, *args, log=log)

    def step(self, name: str, log: Path, phase: str, *args: object) -> bool:
        if self.java(phase, *args, log=log) == 0:
            self.steps.ok(name)
            return True
        print(failures_of(log), flush=True)
        self.steps.fail(f"{name} (log: {log})")
        return False

    def start(self, v: Variant, log: Path, db_port: int, **settings: object) -> process.Running:
        env = {**self.db.variant_env("TRADER"), "DB_PORT": str(db_port), **{k: str(x) for k, x in settings.items()}}
        return process.start_variant(self.ctx, v, env, log)

    def sigterm(self, name: str, r: process.Running, d: Path, run: str) -> tuple[int, int] | None:
        """SIGTERM now; exit 0 within 10 s with an exit line. Returns (accepted, sales) or None (step failed)."""
        if not r.alive():
            self.steps.fail(f"{name} (the variant was gone before SIGTERM; log: {r.log})")
            return None
        code = r.stop(timeout=10)
        assert r.exit_ms is not None   # stop() measured it
        counts = exit_line(r.log)
        (d / f"shutdown-{run}.json").write_text(json.dumps({
            "exitCode": str(code), "exitMs": r.exit_ms,
            "accepted": counts[0] if counts else None, "sales": counts[1] if counts else None}))
        if code != 0:
            self.steps.fail(f"{name} (exit code {code} after SIGTERM, {r.exit_ms} ms; log: {r.log})")
        elif r.exit_ms > 10000:
            self.steps.fail(f"{name} (exit after {r.exit_ms} ms, more than 10 s; log: {r.log})")
        elif not counts:
            self.steps.fail(f"{name} (no 'exit variant=V accepted=N sales=N' line; log: {r.log})")
        else:
            return counts
        return None

    def under_way(self, bg: process.Running, wait_s: float = 60) -> None:
        """Returns once the load started in the background stores sales (SALES grows), or when it ended or
        wait_s passed: a phase that stops the database "n s into the load" counts from the load's first
        stored sale, not from the load client's start (a JVM that takes seconds to start on a busy machine
        would otherwise see the database gone before its first order)."""
        before = int(self.db.scalar("SELECT COUNT(*) FROM SALES") or 0)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and bg.alive():
            if int(self.db.scalar("SELECT COUNT(*) FROM SALES") or 0) > before:
                return
            time.sleep(0.2)

    def run_a(self, v: Variant, d: Path) -> None:
        name = f"reliability {v.title}"
        self.db.sql("DELETE FROM SALES")
        try:
            r = self.start(v, d / "run-a.log", self.db_port, ENGINES=4, PERSIST="per-sale")
        except process.NotHealthy:
            self.steps.fail(f"{name}: not healthy within 90 s (log: {d / 'run-a.log'})")
            return
        try:
            common = ["--url", r.url, "--db-url", self.db.jdbc(), "--prefix", f"r{random.randint(0, 32767)}-",
                      "--engines", "4"]
            self.step(f"{name}: bad input", d / "bad-input.log", "bad-input", *common,
                      "--orders-out", d / "orders-bad-input.tsv", "--json", d / "bad-input.json")
            self.outage(r, d, common, name)
            self.db_crash(v, r, d, common, name)
            self.shutdown(r, d, common, name)
        finally:
            r.stop(5)

    def outage(self, r: process.Running, d: Path, common: list[str], name: str) -> None:
        """The database stopped 2 s after the load's first stored sale, started again 10 s later; the load ends
        4 s after: the load client's outage checks hold and the variant lives."""
        bg = loadclient.start(self.ctx, "reliability", "outage", *common, "--duration", 40, "--connections", 16,
                              "--wait", 5, "--seed", 7,
                              "--orders", d / "orders-bad-input.tsv", "--orders-out", d / "orders-outage.tsv",
                              "--json", d / "outage.json", log=d / "outage.log", stdin=True)
        try:
            self.under_way(bg)
            time.sleep(2)
            with open(d / "db.log", "a") as f:
                dbmod.stop_private(self.ctx, self.db_dir, self.db_port)
                down = time.monotonic()
                time.sleep(10)
                dbmod.start_private(self.ctx, self.db_dir, self.db_port)
                bg.say(f"db-back {int(time.time() * 1000)}")
                f.write(f"database down for {int((time.monotonic() - down) * 1000)} ms\n")
            rc = bg.popen.wait()
        finally:
            bg.stop(1)
        if rc == 0 and r.alive():
            self.steps.ok(f"{name}: database outage")
            return
        if not r.alive():
            with open(d / "outage.log", "a") as f:
                f.write(f"FAIL outage: the variant died (log: {r.log})\n")
        print(failures_of(d / "outage.log"), flush=True)
        self.steps.fail(f"{name}: database outage (log: {d / 'outage.log'})")

    def shutdown(self, r: process.Running, d: Path, common: list[str], name: str) -> None:
        """SIGTERM 2 s into a 4 s load: exit 0 within 10 s, and SALES exactly the sales it made, once each."""
        bg = loadclient.start(self.ctx, "reliability", "load", *common, "--duration", 4, "--connections", 16,
                              "--wait", 5, "--seed", 9, "--orders-out", d / "orders-shutdown.tsv",
                              "--json", d / "shutdown-load.json", log=d / "shutdown.log")
        try:
            time.sleep(2)
            counts = self.sigterm(f"{name}: shutdown", r, d, "a")
            bg.popen.wait()
        finally:
            bg.stop(1)
        if counts:
            orders = ",".join(str(d / f) for f in ("orders-bad-input.tsv", "orders-outage.tsv", "orders-dbcrash.tsv",
                                                   "orders-shutdown.tsv"))
            self.step(f"{name}: shutdown (exit 0 in {r.exit_ms} ms; sales={counts[1]} all in SALES, once)",
                      d / "audit-a.log", "audit", *common, "--orders", orders,
                      "--expect-sales", counts[1], "--expect-accepted", counts[0], "--json", d / "audit-a.json")

    def kill_db(self, load: process.Running) -> int:
        """SIGKILL of the database server process (no shutdown: InnoDB recovers from its redo log at the next
        start); LOAD, the load client's dbcrash phase, is told the wall-clock ms of the signal on its stdin.
        Returns the server's pid once it is gone."""
        pid = self.db.pid()
        if not pid or not psutil.pid_exists(pid):
            raise dbmod.DbError(f"no database server process (pid file {self.db.pid_file})")
        p = psutil.Process(pid)
        at = int(time.time() * 1000)
        p.send_signal(signal.SIGKILL)
        load.say(f"db-killed {at}")   # said at once: the dying server may take a while to be gone
        p.wait(10)
        return pid

    def db_crash(self, v: Variant, r: process.Running, d: Path, common: list[str], name: str) -> None:
        """The database server killed with SIGKILL 3 s after the load's first stored sale, started again 10 s later; the load goes on until
        the sales rate is back (at most REL_DBCRASH_RECOVERY_S s after the database accepts connections)."""
        flush = self.db.scalar("SELECT @@innodb_flush_log_at_trx_commit")
        bg = loadclient.start(self.ctx, "reliability", "dbcrash", *common, "--duration", 60, "--connections", 16,
                              "--wait", 5, "--seed", 11, "--request-timeout", self.request_timeout_ms,
                              "--recovery", self.crash_recovery_s,
                              "--orders", f"{d / 'orders-bad-input.tsv'},{d / 'orders-outage.tsv'}",
                              "--orders-out", d / "orders-dbcrash.tsv", "--json", d / "dbcrash.json",
                              log=d / "dbcrash.log", stdin=True)
        try:
            self.under_way(bg)
            time.sleep(3)
            with open(d / "db.log", "a") as f:
                pid = self.kill_db(bg)
                down = time.monotonic()
                f.write(f"database server pid {pid} killed with SIGKILL (innodb_flush_log_at_trx_commit={flush})\n")
                time.sleep(10)
                dbmod.start_private(self.ctx, self.db_dir, self.db_port)
                bg.say(f"db-back {int(time.time() * 1000)}")
                f.write(f"database accepting connections again {int((time.monotonic() - down) * 1000)} ms after the kill\n")
            rc = bg.popen.wait(timeout=180)
        except (dbmod.DbError, psutil.Error, subprocess.TimeoutExpired) as e:
            with open(d / "dbcrash.log", "a") as f:
                f.write(f"FAIL dbcrash: {e}\n")
            rc = 1
        finally:
            bg.stop(1)
        if rc == 0 and not r.alive():
            rc = 1
            with open(d / "dbcrash.log", "a") as f:
                f.write(f"FAIL dbcrash: the variant died (log: {r.log})\n")
        try:
            fig = json.loads((d / "dbcrash.json").read_text())
        except (OSError, ValueError):
            fig = {}
        if rc == 0:
            self.steps.ok(f"{name}: database killed (full rate {fig.get('fullRateMs')} ms after it was back; "
                          f"{fig.get('served503Down')} orders answered 503, {fig.get('acceptedDown')} accepted while it was "
                          f"away; {fig.get('salesChecked')} sales checked; innodb_flush_log_at_trx_commit={flush})")
        else:
            print(failures_of(d / "dbcrash.log"), flush=True)
            self.steps.fail(f"{name}: database killed (innodb_flush_log_at_trx_commit={flush}; log: {d / 'dbcrash.log'})")

    def run_b(self, v: Variant, d: Path) -> None:
        name = f"reliability {v.title}"
        self.db.sql("DELETE FROM SALES")
        try:
            link = toxiproxy.SlowLink(self.ctx, "127.0.0.1", self.db_port, self.latency_ms, d / "toxiproxy.log").start()
            assert link.port is not None   # start() chose it
        except toxiproxy.ToxiproxyError as e:
            self.steps.fail(f"{name}: overload (toxiproxy: {e})")
            return
        try:
            try:
                r = self.start(v, d / "run-b.log", link.port, ENGINES=2, INBOX_LIMIT=self.inbox_limit,
                               PERSIST="per-sale", FAULTS="on")
            except process.NotHealthy:
                self.steps.fail(f"{name}: overload (not healthy within 90 s; log: {d / 'run-b.log'})")
                return
            try:
                self._run_b(v, d, r, name)
            finally:
                r.stop(5)
        finally:
            link.stop()

    def _run_b(self, v: Variant, d: Path, r: process.Running, name: str) -> None:
        common = ["--url", r.url, "--db-url", self.db.jdbc(), "--prefix", f"o{random.randint(0, 32767)}-",
                  "--engines", "2"]
        sampler = process.Sampler(1.0)
        sampler.add("variant", r.pid)
        sampler.start()
        rc = self.java("overload", *common, "--factor", 5, "--measure", 4, "--duration", 20, "--recovery", 10,
                       "--orders-out", d / "orders-overload.tsv", "--json", d / "overload.json", log=d / "overload.log")
        samples = sampler.stop()["variant"]
        (d / "samples.json").write_text(json.dumps(samples))
        peak = int(max((s["rssMb"] for s in samples), default=0))
        (d / "rss.json").write_text(json.dumps({"peakRssMb": peak}))
        ok = rc == 0
        if peak > self.rss_limit_mb:
            with open(d / "overload.log", "a") as f:
                f.write(f"FAIL overload-memory: peak RSS {peak} MB, above REL_RSS_LIMIT_MB={self.rss_limit_mb}\n")
            ok = False
        if ok:
            summary = next((l[len("ok   overload: "):] for l in (d / "overload.log").read_text().splitlines()
                            if l.startswith("ok   overload: ")), "")
            self.steps.ok(f"{name}: overload (peak RSS {peak} MB; {summary})")
        else:
            print(failures_of(d / "overload.log"), flush=True)
            self.steps.fail(f"{name}: overload (log: {d / 'overload.log'})")

        self.step(f"{name}: crash isolation", d / "crash.log", "crash", *common, "--engine", 1, "--crash-at", 2,
                  "--duration", 7, "--connections", 16, "--wait", 5, "--orders-out", d / "orders-crash.tsv",
                  "--json", d / "crash.json")

        # SIGTERM right after: every sale it counted is stored (a killed engine may have stored one it never reported)
        counts = self.sigterm(f"{name}: shutdown after overload and crash", r, d, "b")
        if counts:
            orders = f"{d / 'orders-overload.tsv'},{d / 'orders-crash.tsv'}"
            self.step(f"{name}: shutdown after overload and crash (exit 0 in {r.exit_ms} ms; sales={counts[1]} all in SALES)",
                      d / "audit-b.log", "audit", *common, "--orders", orders, "--min-sales", counts[1],
                      "--expect-accepted", counts[0], "--json", d / "audit-b.json")


def report(root: Path, out: Path) -> Path:
    """The figures of every variant as a Markdown table."""
    def load(v: str, name: str) -> dict[str, Any]:
        try:
            doc: dict[str, Any] = json.loads((root / v / f"{name}.json").read_text())
            return doc
        except (OSError, ValueError):
            return {}

    def f(d: dict[str, Any], k: str, suf: str = "") -> str:
        return f"{d[k]}{suf}" if d.get(k) is not None else "—"

    rows = []
    for v in sorted(p.name for p in root.iterdir() if p.is_dir()):
        b, c, o, k, aa, ab, sa, sb, ov, rss = (load(v, n) for n in (
            "bad-input", "crash", "outage", "dbcrash", "audit-a", "audit-b", "shutdown-a", "shutdown-b", "overload", "rss"))
        if c.get("faultInjection") is False:
            crash = "FAILED: no fault injection"
        elif c:
            crash = f"replaced, first new sale +{f(c, 'replacedAfterMs')} ms; others {f(c, 'othersSalesDuring3s')} sales in 3 s"
        else:
            crash = "—"
        phases = (b, c, o, k, aa, ab, ov)
        ok = all(p and p.get("failures", 1) == 0 for p in phases) and sa.get("exitCode") == "0" and sb.get("exitCode") == "0"
        checked = sum(p.get("salesChecked", 0) for p in (aa, ab))
        rows.append(f"| {v} | {f(b, 'inputsTried')} | {f(ov, 'capacityPerS')} orders/s ({f(ov, 'capacitySalesPerS')} sales/s) "
                    f"| {f(ov, 'offeredPerS')}/s | {f(ov, 'served503')} | {f(ov, 'recoveryS')} s | {f(rss, 'peakRssMb', ' MB')} "
                    f"| {f(o, 'healthDownMs')} ms; 200 {f(o, 'recoveryMs')} ms after the db is back "
                    f"| full rate {f(k, 'fullRateMs')} ms after it is back; {f(k, 'served503Down')} 503s, "
                    f"{f(k, 'acceptedDown')} 202s while away; slowest order {f(k, 'slowestOrderMs')} ms | {crash} | {checked} "
                    f"| {f(sa, 'exitMs')} ms / {f(sb, 'exitMs')} ms | {'pass' if ok else 'FAIL'} |")
    head = ("| variant | bad inputs tried | capacity | offered (5x, 20 s) | 503s served | full speed again after "
            "| peak RSS (overload) | /health 503 during the outage | database killed (SIGKILL, 10 s) | crash isolation "
            "| sales checked | SIGTERM to exit 0 (run A / B) | result |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | ---: | --- |\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"# Reliability suite, {root.name}\n\n" + head + "\n".join(rows) + "\n")
    return out


def run(ctx: Context, variants: list[Variant], steps: Steps) -> None:
    if not variants:
        print("tradebench: reliability: no variant yet", flush=True)
        return
    for v in variants:
        try:
            v.ensure_built(ctx)
        except ManifestError as e:
            steps.fail(f"reliability {v.name}: build ({e})")
            return
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = ctx.state / "reliability"
    root = base / "runs" / stamp
    root.mkdir(parents=True, exist_ok=True)
    lock = Lock(base)
    if not lock.acquire():
        steps.fail(f"reliability: another run of the suite in this tree kept {lock.dir} for 15 min")
        return
    db_dir = base / "db"
    try:
        # a database left over from an interrupted run (maybe on another port) is stopped first
        old = dbmod.private(ctx, db_dir=db_dir).pid()
        if old and psutil.pid_exists(old):
            process.kill_all([psutil.Process(old)])
        port = process.free_port()
        try:
            dbmod.start_private(ctx, db_dir, port)
        except dbmod.DbError as e:
            steps.fail(f"reliability: its private database did not start ({e})")
            return
        suite = Suite(ctx, steps, root, db_dir, port)
        t0 = time.monotonic()
        try:
            for v in [w.for_settings(row) for w in variants for row in w.suite_rows("reliability", ctx.env)]:
                d = root / v.slug
                d.mkdir(parents=True, exist_ok=True)
                print(f"tradebench: reliability: {v.title} (run A: bad input, database outage, database killed, shutdown)",
                      flush=True)
                suite.run_a(v, d)
                print(f"tradebench: reliability: {v.title} (run B: overload, crash isolation, shutdown)", flush=True)
                suite.run_b(v, d)
        finally:
            dbmod.stop_private(ctx, db_dir, port)
        table = report(root, ctx.results / f"reliability-{stamp}.md")
        print(f"tradebench: reliability: {len(variants)} variants in {int(time.monotonic() - t0)} s; figures: {table}",
              flush=True)
        print(table.read_text(), flush=True)
    finally:
        lock.release()

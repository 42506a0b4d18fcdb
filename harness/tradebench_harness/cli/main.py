"""python -m tradebench_harness COMMAND ...: every command of ./tradebench, dispatched by one parser.

Every command's parser is defined in this package (cli/): this module's, measure.py's (the measuring commands),
sweep.py's, calibrate.py's and predict.py's. The parser makes each command's options one frozen object
(cli/options.py, every command's), checks it and hands it to the
command; nothing below the command line changes it.

The launcher (./tradebench, scripts/lib/bootstrap.sh) creates the virtual environment with this package in it,
finds a JDK and Node, and calls this with TB_ROOT, JAVA_HOME and TB_NODE in the environment; the rest (the
database, Maven, the other tools, the tests) is the harness's.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn, TypeAlias

from ..run import build, context, members, process, tools
from ..run import db as dbmod
from ..run.context import Context
from ..run.variants import ManifestError, by_name, discover, select
from ..site import writer as site_writer
from ..site.grouping import SiteError
from ..suites import cluster_test, compose_check, e2e, fuzz, reliability, testrun
from ..suites.steps import Steps
from . import calibrate, isolation, measure, predict, ring, sweep
from .options import (
    ClusterTest,
    E2e,
    Fuzz,
    Given,
    Nothing,
    OptionsError,
    Placed,
    Reliability,
    Serve,
    Site,
    Test,
    made,
)

FOOTER = """VARIANT: a folder holding a variant.yaml ({variants}).
Options of a command: ./tradebench COMMAND --help (bench, compare, sweep KIND, map, e2e, fuzz, ...).
A command stops the private database at its end when it started it (`db start` keeps it up), and everything it
started within seconds of a SIGTERM or Ctrl-C."""

Handler = Callable[[Context, Any], int]


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


# --- the commands --------------------------------------------------------------------------------------------------

def cmd_variants(ctx: Context, o: Nothing) -> int:
    for v in discover(ctx.root):
        print(v.name)
    return 0


def cmd_serve(ctx: Context, o: Serve) -> int:
    """The variant in the foreground, on the private database unless DB_HOST names one. A SIGTERM or Ctrl-C
    reaches the variant (it drains), and the private database, when this command started it, stops after it."""
    (v,) = select(ctx.root, o.variant)
    v = v.for_settings(dict(os.environ))   # STACK=pekko ./tradebench serve java-akka: its Pekko build
    v.ensure_built(ctx)
    env = dict(os.environ)
    if not env.get("DB_HOST"):
        dbmod.start_private(ctx)
        env.update(dbmod.private(ctx, env.get("DB_NAME") or "TRADER").variant_env())
    where = f"database {env['DB_HOST']}:{env.get('DB_PORT', '3306')}/{env.get('DB_NAME', 'TRADER')}"
    nodes = int(env.get("NODES") or 1)
    if nodes > 1:
        if v.cluster is None:
            say(f"error: NODES={nodes}: {v.name} has no cluster mode (no cluster key in its variant.yaml)")
            return 2
        port = int(env.get("PORT") or 3000)
        say(f"serving {v.name} as {nodes} cluster members on ports {port}..{port + nodes - 1} ({where})")
        return int(members.serve(ctx, v, env, nodes))
    say(f"serving {v.name} on port {env.get('PORT', '3000')} ({where})")
    child = subprocess.Popen(v.command(ctx), env=env, cwd=ctx.root)
    try:
        return child.wait()
    except KeyboardInterrupt:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)          # the variant drains, as it does under a service manager
            try:
                return child.wait(process.grace(15))
            except subprocess.TimeoutExpired:
                child.kill()
        raise


def cmd_e2e(ctx: Context, o: E2e) -> int:
    steps = Steps()
    e2e.run(ctx, select(ctx.root, o.variants), steps)
    return steps.close("e2e")


def cmd_reliability(ctx: Context, o: Reliability) -> int:
    steps = Steps()
    reliability.run(ctx, select(ctx.root, ",".join(o.variants) or os.environ.get("TB_REL_VARIANTS")), steps)
    return steps.close("reliability")


def cmd_cluster_test(ctx: Context, o: ClusterTest) -> int:
    try:
        tools.iptables()
    except tools.ToolError as e:
        say(f"{e}: the partition scenario will fail")
    steps = Steps()
    cluster_test.run(ctx, steps, o.only)
    return steps.close("cluster")


def cmd_fuzz(ctx: Context, o: Fuzz) -> int:
    steps = Steps()
    fuzz.run(ctx, select(ctx.root, ",".join(o.variants) or None), steps,
             fuzz.seed_of(o.seed or os.environ.get("TB_FUZZ_SEED")), o.max_examples)
    return steps.close("fuzz")


def cmd_compose_check(ctx: Context, o: Nothing) -> int:
    try:
        cli = tools.compose(ctx)
    except tools.ToolError as e:
        say(f"error: the compose check needs the Compose CLI: {e}")
        return 1
    # the variant services to check: the variants of the tree (variants.discover)
    report = compose_check.run(ctx.root, cli=cli)
    for p in report.problems:
        print("compose check: " + p)
    if report.problems:
        return 1
    print(f"compose check: docker-compose.yml OK ({report.services} services, resolved by the Compose CLI)",
          file=sys.stderr)
    return 0


def java_exec(ctx: Context, argv: list[str]) -> NoReturn:
    """Runs the JDK's java with the harness's JVM flags in place of this process (a signal reaches it)."""
    argv = [str(ctx.java), *argv]
    os.execv(argv[0], argv)


def cmd_load(ctx: Context, o: Given) -> int:
    """./tradebench load ARGS: the load client in the foreground (TB_LOADCLIENT_OPTS: more JVM flags)."""
    java_exec(ctx, [*ctx.loadclient_opts, "-jar", str(build.loadclient(ctx)), "load", *o.args])


def cmd_verify(ctx: Context, o: Given) -> int:
    """./tradebench verify ARGS: the load client's checks against a running variant."""
    java_exec(ctx, [*ctx.loadclient_opts, "-jar", str(build.loadclient(ctx)), "verify", *o.args])


def cmd_replay(ctx: Context, o: Given) -> int:
    if len(o.args) != 2 or o.args[0] not in ("java", "node"):
        say("usage: ./tradebench replay java|node SCENARIO.json")
        return 2
    runtime, scenario = o.args
    if not os.path.isfile(scenario):
        say(f"error: no such scenario file: {scenario}")
        return 2
    if runtime == "java":
        java_exec(ctx, [*ctx.jvm_opts, "-cp", build.model_classpath(ctx), "tradebench.model.replay.ReplayMain",
                        scenario])
    by_name(ctx.root, ["node-engine"])[0].ensure_built(ctx)   # its packages (underscore)
    os.execv(ctx.node, [str(ctx.node), str(ctx.root / "node-engine" / "src" / "replay.js"), scenario])


def cmd_bench_model(ctx: Context, o: Given) -> int:
    """JMH (org.openjdk.jmh.Main): the arguments are JMH's, e.g. -f 1 -wi 2 -i 3, -p orders=1000000, -rf json."""
    java_exec(ctx, [*ctx.jvm_opts, "-cp", build.model_classpath(ctx, bench=True), "org.openjdk.jmh.Main",
                    r"tradebench\.model\.bench\.MarketJmh", *o.args])


def cmd_build(ctx: Context, o: Nothing) -> int:
    """Every Maven module (installed), then each Node.js variant's packages (its manifest's build), then the tools
    every measurement needs: the database server (installed where there is none) and Toxiproxy (built). Without
    them here the first measuring command would fetch them (a minute or more on a fresh machine, inside
    calibrate's ten minutes)."""
    if build.mvn(ctx, "-DskipTests", "install") != 0:
        say("error: Maven build failed")
        return 1
    for v in discover(ctx.root):
        if v.runtime == "node":
            v.ensure_built(ctx)   # a ManifestError is said by main
    if not ctx.env.get("DB_HOST"):      # a server of the user's own (run/db.py `database`) needs none
        tools.mariadb()
    tools.toxiproxy(ctx)
    return 0


def cmd_db(ctx: Context, o: Given) -> int:
    return dbmod.command(ctx, list(o.args))


def cmd_test(ctx: Context, o: Test) -> int:
    return testrun.run(ctx, {o.tier} if o.tier else set(testrun.TIERS), o.tier or "all")


def cmd_site(ctx: Context, o: Site) -> int:
    """Every run of docs/results and of the user's results folders on one static site (site/writer.py)."""
    out = Path(o.out) if o.out else ctx.results / "site"
    missing = [d for d in o.results if not Path(d).is_dir()]
    if missing:
        say(f"error: --results {' '.join(missing)}: no such folder")
        return 2
    try:
        built = site_writer.build(ctx.root, out, [Path(d) for d in o.results] or [ctx.results], o.pair,
                                  ctx.state / "site-cache", say=say, committed_reports=o.reports == "all")
    except SiteError as e:
        say(f"error: {e}")
        return 2
    yours = sum(e.yours for e in built.entries)
    say(f"wrote {len(built.pages)} pages: {len(built.entries)} runs ({yours} of yours), {len(built.pairs)} pairs side "
        f"by side; open {out / 'index.html'}")
    return 0


def cmd_help(ctx: Context, o: Nothing) -> int:
    parser()[0].print_help()
    return 0


# --- the parser ----------------------------------------------------------------------------------------------------

Sub: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add(sub: Sub, name: str, func: Handler, help: str, options: Callable[[argparse.Namespace], Any] | None = None,
        *, raw: str | None = None, owns_db: bool = True, **kw: Any) -> argparse.ArgumentParser:
    """A command of the parser; RAW: its arguments are handed on as they are (their synopsis); OWNS_DB: it runs
    within dbmod.owned (the private database it starts is stopped at its end)."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, add_help=raw is None, **kw)
    if raw is not None:
        p.add_argument("args", nargs=argparse.REMAINDER, metavar=raw)
        options = made(Given)
    options = options or made(Nothing)
    p.set_defaults(func=func, options=options, raw=raw is not None, owns_db=owns_db and raw is None,
                   needs_loadclient=False)
    return p


def add_commands(sub: Sub) -> dict[str, argparse.ArgumentParser]:
    """Every command on SUB; the sweeps' parsers by kind."""
    add(sub, "help", cmd_help, "this list", owns_db=False)
    add(sub, "variants", cmd_variants, "the variants found (folders holding a variant.yaml)", owns_db=False)
    s = add(sub, "serve", cmd_serve, "run one variant in the foreground (env: contract section 5; NODES=3: three "
            "cluster members on PORT, PORT+1, PORT+2)", made(Serve))
    s.add_argument("variant")
    add(sub, "db", cmd_db, "the private MariaDB/MySQL: start | stop | status | create NAME | sql [NAME]", raw="ARGS")
    measure.add(sub)
    sweeps = sweep.add(sub)
    measure.add_map(sub)
    measure.add_results(sub)
    predict.add(sub, add)
    calibrate.add(sub, add)
    isolation.add(sub, add)
    ring.add(sub, add)
    add(sub, "load", cmd_load, "the load client's load (loadclient/README.md)", raw="ARGS")
    add(sub, "verify", cmd_verify, "the load client's verify: the contract's checks against a running variant",
        raw="ARGS")
    add(sub, "replay", cmd_replay, "deterministic replay of a scenario (contract section 2): java|node FILE", raw="ARGS")
    add(sub, "bench-model", cmd_bench_model, "the engine-model benchmark under JMH: fast vs reference market",
        raw="JMH_ARGS")
    s = add(sub, "site", cmd_site, "every run, committed and yours, on one static site (no server needed): the "
            "answer, the runs by question, machine and date, each run's report, runs side by side with diff's "
            "verdicts", made(Site), owns_db=False)
    s.add_argument("--out", default=None, metavar="DIR", help="the site's folder (default: results/site; a site "
                   "written there before is replaced)")
    s.add_argument("--results", nargs="+", default=[], metavar="DIR", help="folders of your runs, or one run's "
                   "folder (default: results/); docs/results is always read")
    s.add_argument("--pair", nargs=2, action="append", default=[], metavar=("RUN_A", "RUN_B"),
                   help="two runs side by side besides each run and its previous one (a run id, a folder's name or "
                        "path); again for more pairs")
    s.add_argument("--reports", choices=("all", "yours"), default="all",
                   help="whose report.html each run's page shows: all (default; the committed ones drawn, a minute or "
                        "two the first time) or yours only (a committed run's page shows its README, tables and charts)")
    add(sub, "build", cmd_build, "build everything (Maven modules, each Node.js variant's packages) and fetch the "
        "tools measuring needs (a database server, Toxiproxy)", raw="")
    add_suites(sub)
    for name in ("reliability", "e2e", "cluster-test"):
        sub.choices[name].set_defaults(needs_loadclient=True)
    return sweeps


def add_suites(sub: Sub) -> None:
    """The test suites' commands."""
    s = add(sub, "e2e", cmd_e2e, "each variant once per e2e configuration of its variant.yaml, checked by loadclient "
            "verify", made(E2e))
    s.add_argument("--variants", default=None, help="comma-separated names (default: all)")
    s = add(sub, "reliability", cmd_reliability, "the reliability suite (bad input, overload, outage, database crash, "
            "engine crash, shutdown)", made(Reliability))
    s.add_argument("variants", nargs="*")
    s = add(sub, "fuzz", cmd_fuzz, "Schemathesis against every variant with docs/openapi.yaml (fixed seed)", made(Fuzz))
    s.add_argument("variants", nargs="*")
    s.add_argument("--seed", default=None, help="a number, or 'random' (default: TB_FUZZ_SEED, else a fixed seed)")
    s.add_argument("--max-examples", type=int, default=None, help="generated cases per operation (default 60)")
    s = add(sub, "cluster-test", cmd_cluster_test, "java-spray-async as three cluster members: cross-member trade, "
            "verify, kill -9, SIGTERM, partition", made(ClusterTest))
    s.add_argument("--only", default=None, help="one scenario: cross_member, kill, leave or partition")
    add(sub, "compose-check", cmd_compose_check, "the static check of docker-compose.yml and the Dockerfiles")
    s = add(sub, "test", cmd_test, "every test of the project (what .ci/run calls); --tier unit|integration|system: "
            "one tier", made(Test), owns_db=False)   # the tests stop what they started themselves
    s.add_argument("--tier", choices=testrun.TIERS, default=None,
                   help="one tier: unit (no database), integration (the database) or system (variants started)")


def parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser], dict[str, argparse.ArgumentParser]]:
    """The parser of ./tradebench, its commands' parsers by name, and the sweeps' by kind."""
    p = argparse.ArgumentParser(prog="./tradebench", description="tradebench: one trading engine built several ways, "
                                "and the harness that measures them", formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=FOOTER.format(variants=" | ".join(v.name for v in discover(context.from_env().root))))
    p.set_defaults(owns_db=True, needs_loadclient=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    sweeps = add_commands(sub)
    return p, dict(sub.choices), sweeps


@dataclass(frozen=True)
class Parsed:
    """A command line, parsed: the command, its options (one frozen object), how it runs."""
    command: str
    func: Handler
    options: Any
    needs_loadclient: bool
    owns_db: bool


def refuse(why: str) -> NoReturn:
    """A command line whose options cannot be run: said, exit 2 (as argparse does for a malformed one)."""
    say(f"error: {why}")
    raise SystemExit(2)


def parse(argv: list[str]) -> Parsed:
    """The command and its options, checked (exit 2 with the reason where they cannot be run); a command that
    hands its arguments on gets them as they are (argparse would read a leading --flag of theirs as its own)."""
    p, commands, sweeps = parser()
    argv = argv or ["help"]
    command = commands.get(argv[0])
    if command is not None and command.get_default("raw"):
        return Parsed(argv[0], command.get_default("func"), Given(tuple(argv[1:])), False, False)
    if argv[0] == "compare" and measure.older_compare(argv[1:]):
        refuse(str(measure.older_compare(argv[1:])))
    if argv[0] == "predict" and predict.older_form(argv[1:]):
        refuse(str(predict.older_form(argv[1:])))
    if argv[0] == "sweep" and len(argv) > 1 and argv[1] not in sweeps and argv[1] not in ("-h", "--help"):
        try:
            rest, note = sweep.older_sweep(sweeps, argv[1:])
        except ValueError as e:
            refuse(str(e))
        refuse(note)
    ns = p.parse_args(argv)
    try:
        options = ns.options(ns)
    except OptionsError as e:
        refuse(str(e))
    return Parsed(ns.command, ns.func, options, ns.needs_loadclient, ns.owns_db)


def _signalled(signum: int, frame: FrameType | None) -> None:
    # SIGTERM (timeout, CI runners, service managers) and Ctrl-C stop what the harness started: every command
    # stops its processes in `finally` blocks, which a KeyboardInterrupt runs and a bare SIGTERM does not; from
    # now on each stop is bounded, so the command exits within seconds (process.STOP_WITHIN_S)
    process.interrupt()
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _signalled)
    signal.signal(signal.SIGINT, _signalled)
    ctx = context.from_env()
    try:
        c = parse(argv)
        if isinstance(c.options, Placed):
            # the layout made once, here: every process of the command starts from this context
            ctx = dataclasses.replace(ctx, layout=c.options.layout_built())
        if not c.owns_db:
            return c.func(ctx, c.options) or 0
        if c.needs_loadclient:
            build.loadclient(ctx)
        with dbmod.owned(ctx):   # a command stops the private database it started
            return c.func(ctx, c.options) or 0
    except (ManifestError, build.BuildError, tools.ToolError, dbmod.DbError, OptionsError) as e:
        # OptionsError here: an option only the command can check (calibrate --refit's folder)
        say(f"error: {e}")
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130

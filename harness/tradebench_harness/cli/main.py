"""python -m tradebench_harness COMMAND ...: every command of ./tradebench, dispatched by one parser.

The launcher (./tradebench, scripts/lib/bootstrap.sh) creates the virtual environment with this package in it,
finds a JDK and Node, and calls this with TB_ROOT, JAVA_HOME and TB_NODE in the environment; the rest (the
database, Maven, the other tools, the tests) is the harness's.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys

from ..model import cli as model_cli
from ..run import build, context, members, process, tools
from ..run import db as dbmod
from ..run.variants import ManifestError, by_name, discover, select
from ..suites import cluster_test, compose_check, e2e, fuzz, reliability, testrun
from ..suites.steps import Steps
from . import calibrate, measure

FOOTER = """VARIANT: a folder holding a variant.yaml ({variants}).
Options of a command: ./tradebench COMMAND --help (bench, compare, sweep, map, e2e, fuzz, ...).
A command stops the private database at its end when it started it (`db start` keeps it up), and everything it
started within seconds of a SIGTERM or Ctrl-C."""


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


def cmd_variants(ctx, args) -> int:
    for v in discover(ctx.root):
        print(v.name)
    return 0


def cmd_serve(ctx, args) -> int:
    """The variant in the foreground, on the private database unless DB_HOST names one. A SIGTERM or Ctrl-C
    reaches the variant (it drains), and the private database, when this command started it, stops after it."""
    (v,) = select(ctx.root, args.variant)
    v = v.for_settings(os.environ)   # STACK=pekko ./tradebench serve java-akka: its Pekko build
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
        return members.serve(ctx, v, env, nodes)
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


def cmd_e2e(ctx, args) -> int:
    steps = Steps()
    e2e.run(ctx, select(ctx.root, args.variants), steps)
    return steps.close("e2e")


def cmd_reliability(ctx, args) -> int:
    steps = Steps()
    reliability.run(ctx, select(ctx.root, ",".join(args.variants) or os.environ.get("TB_REL_VARIANTS")), steps)
    return steps.close("reliability")


def cmd_cluster_test(ctx, args) -> int:
    try:
        tools.iptables()
    except tools.ToolError as e:
        say(f"{e}: the partition scenario will fail")
    steps = Steps()
    cluster_test.run(ctx, steps, args.only)
    return steps.close("cluster")


def cmd_fuzz(ctx, args) -> int:
    steps = Steps()
    fuzz.run(ctx, select(ctx.root, ",".join(args.variants) or None), steps,
             fuzz.seed_of(args.seed or os.environ.get("TB_FUZZ_SEED")), args.max_examples)
    return steps.close("fuzz")


def cmd_compose_check(ctx, args) -> int:
    try:
        cli = tools.compose(ctx)
    except tools.ToolError as e:
        say(f"error: the compose check needs the Compose CLI: {e}")
        return 1
    # the variant services to check: the variants of the tree (variants.discover)
    return compose_check.main([str(ctx.root), "--compose", cli])


def java_exec(ctx, argv: list[str]) -> int:
    """Runs the JDK's java with the harness's JVM flags in place of this process (a signal reaches it)."""
    argv = [ctx.java, *argv]
    os.execv(argv[0], argv)


def cmd_loadclient(ctx, args) -> int:
    """./tradebench load|verify ARGS: the load client in the foreground (TB_LOADCLIENT_OPTS: more JVM flags)."""
    return java_exec(ctx, [*ctx.loadclient_opts, "-jar", str(build.loadclient(ctx)), args.command, *args.args])


def cmd_replay(ctx, args) -> int:
    if len(args.args) != 2 or args.args[0] not in ("java", "node"):
        say("usage: ./tradebench replay java|node SCENARIO.json")
        return 2
    runtime, scenario = args.args
    if not os.path.isfile(scenario):
        say(f"error: no such scenario file: {scenario}")
        return 2
    if runtime == "java":
        return java_exec(ctx, [*ctx.jvm_opts, "-cp", build.model_classpath(ctx), "tradebench.model.replay.ReplayMain",
                               scenario])
    by_name(ctx.root, ["node-engine"])[0].ensure_built(ctx)   # its packages (underscore)
    os.execv(ctx.node, [ctx.node, str(ctx.root / "node-engine" / "src" / "replay.js"), scenario])


def cmd_bench_model(ctx, args) -> int:
    """JMH (org.openjdk.jmh.Main): the arguments are JMH's, e.g. -f 1 -wi 2 -i 3, -p orders=1000000, -rf json."""
    return java_exec(ctx, [*ctx.jvm_opts, "-cp", build.model_classpath(ctx, bench=True), "org.openjdk.jmh.Main",
                           r"tradebench\.model\.bench\.MarketJmh", *args.args])


def cmd_build(ctx, args) -> int:
    """Every Maven module (installed), then each Node.js variant's packages (its manifest's build)."""
    if build.mvn(ctx, "-DskipTests", "install") != 0:
        say("error: Maven build failed")
        return 1
    for v in discover(ctx.root):
        if v.runtime == "node":
            v.ensure_built(ctx)   # a ManifestError is said by main
    return 0


def cmd_db(ctx, args) -> int:
    return dbmod.command(ctx, args.args)


def cmd_test(ctx, args) -> int:
    return testrun.main(ctx, args.args)


def cmd_predict(ctx, args) -> int:
    return model_cli.main(args.args, root=ctx.root)


def cmd_help(ctx, args) -> int:
    parser().print_help()
    return 0


def add(sub, name: str, func, help: str, *, raw: str | None = None, **kw) -> argparse.ArgumentParser:
    """A command of the parser; RAW: its arguments are handed on as they are (their synopsis)."""
    p = sub.add_parser(name, help=help, add_help=raw is None, **kw)
    if raw is not None:
        p.add_argument("args", nargs=argparse.REMAINDER, metavar=raw)
    p.set_defaults(func=func, raw=raw is not None, needs_loadclient=False)
    return p


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="./tradebench", description="tradebench: one trading engine built several ways, "
                                "and the harness that measures them", formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=FOOTER.format(variants=" | ".join(v.name for v in discover(context.from_env().root))))
    p.set_defaults(raw=False, needs_loadclient=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add(sub, "help", cmd_help, "this list")
    add(sub, "variants", cmd_variants, "the variants found (folders holding a variant.yaml)")
    s = add(sub, "serve", cmd_serve, "run one variant in the foreground (env: contract section 5; NODES=3: three "
            "cluster members on PORT, PORT+1, PORT+2)")
    s.add_argument("variant")
    add(sub, "db", cmd_db, "the private MariaDB/MySQL: start | stop | status | create NAME | sql [NAME]", raw="ARGS")
    measure.add(sub)
    add(sub, "predict", cmd_predict, "which design carries a load behind a database, configured how, at what cost, "
        "how sure, in seconds from measured parameters (docs/model.md): --db-latency MS --rate N|--saturation "
        "[--cores C] [--persist M] [--db-cpu CORES] [--db-durable] | fit RUN... | check RUN | probe-fsync", raw="ARGS")
    calibrate.add(sub, add)
    add(sub, "load", cmd_loadclient, "the load client's load (loadclient/README.md)", raw="ARGS")
    add(sub, "verify", cmd_loadclient, "the load client's verify: the contract's checks against a running variant",
        raw="ARGS")
    add(sub, "replay", cmd_replay, "deterministic replay of a scenario (contract section 2): java|node FILE", raw="ARGS")
    add(sub, "bench-model", cmd_bench_model, "the engine-model benchmark under JMH: fast vs reference market",
        raw="JMH_ARGS")
    add(sub, "build", cmd_build, "build everything (Maven modules, each Node.js variant's packages)", raw="")
    s = add(sub, "e2e", cmd_e2e, "each variant once per e2e configuration of its variant.yaml, checked by loadclient verify")
    s.add_argument("--variants", default=None, help="comma-separated names (default: all)")
    s = add(sub, "reliability", cmd_reliability, "the reliability suite (bad input, overload, outage, database crash, "
            "engine crash, shutdown)")
    s.add_argument("variants", nargs="*")
    s = add(sub, "fuzz", cmd_fuzz, "Schemathesis against every variant with docs/openapi.yaml (fixed seed)")
    s.add_argument("variants", nargs="*")
    s.add_argument("--seed", default=None, help="a number, or 'random' (default: TB_FUZZ_SEED, else a fixed seed)")
    s.add_argument("--max-examples", type=int, default=None, help="generated cases per operation (default 60)")
    s = add(sub, "cluster-test", cmd_cluster_test, "java-spray-async as three cluster members: cross-member trade, "
            "verify, kill -9, SIGTERM, partition")
    s.add_argument("--only", default=None, help="one scenario: cross_member, kill, leave or partition")
    add(sub, "compose-check", cmd_compose_check, "the static check of docker-compose.yml and the Dockerfiles")
    add(sub, "test", cmd_test, "every test of the project (what .ci/run calls); --tier unit|integration|system: "
        "one tier", raw="[--tier T]")
    for name in ("bench", "profile", "compare", "sweep", "map", "reliability", "e2e", "cluster-test"):
        sub.choices[name].set_defaults(needs_loadclient=True)
    p.commands = sub.choices
    return p


def parse(argv: list[str]) -> argparse.Namespace:
    """The command and its arguments; a command that hands its arguments on gets them as they are (argparse
    would read a leading --flag of theirs as its own)."""
    p = parser()
    argv = argv or ["help"]
    command = p.commands.get(argv[0])
    if command is not None and command.get_default("raw"):
        return argparse.Namespace(command=argv[0], args=argv[1:], func=command.get_default("func"), raw=True,
                                  needs_loadclient=False)
    return p.parse_args(argv)


def _signalled(signum, frame):
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
        args = parse(argv)
        if args.raw or args.command in ("help", "variants"):
            return args.func(ctx, args) or 0
        if args.needs_loadclient:
            build.loadclient(ctx)
        with dbmod.owned(ctx):   # a command stops the private database it started
            return args.func(ctx, args) or 0
    except (ManifestError, build.BuildError, tools.ToolError, dbmod.DbError) as e:
        say(f"error: {e}")
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130

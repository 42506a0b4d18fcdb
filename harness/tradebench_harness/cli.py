"""python -m tradebench_harness COMMAND ...: every command of ./tradebench.

The launcher (./tradebench, scripts/lib/bootstrap.sh) creates the virtual environment, finds
a JDK and Node, and calls this with TB_ROOT, JAVA_HOME and TB_NODE in the environment; the
rest (the database, Maven, the other tools, the tests) is the harness's.
"""
from __future__ import annotations

import argparse
import os
import sys

from . import context
from .variants import ManifestError, discover, select

USAGE = """usage: ./tradebench COMMAND [ARGS]

  serve VARIANT            run one variant in the foreground (env: contract section 5)
                           NODES=3: java-spray-async as three cluster members on PORT, PORT+1, PORT+2
  db start|stop|status     the project's private MariaDB/MySQL (schema applied)
  db create NAME           an extra database NAME with the TRADER schema (tests use these)
  db sql [NAME]            a SQL prompt on the private database
  bench VARIANT [...]      database + variant + load client: a results folder (results/<run-id>/)
  compare [...]            the same load against every variant: calibration, --repeat 3 interleaved, report
  compare --experiment NAME|FILE   the cases of an experiment file (harness/experiments/2014.yaml)
  sweep VARIANT|all --db-latency 0,1,5,20,50   sales/min against the database's round trip, each design's bound
  sweep VARIANT|all --rates R1,R2,... | --engines 1,2,4,8   latency vs offered load / sales vs engines
  map                      every variant over database latency x offered load: which design wins where
  diff RUN_A RUN_B         two results folders side by side (medians, ratio, overlapping ranges)
  report RUN               write a results folder's summary.md, runs.csv and report.html again
  load ARGS / verify ARGS  the load client (loadclient load / verify)
  replay java|node FILE    deterministic replay of a scenario (contract section 2)
  bench-model [JMH ARGS]   the engine-model benchmark under JMH: fast vs reference market
  build                    build everything (Maven modules, npm ci)
  reliability [VARIANT...] the reliability suite alone (bad input, overload, outage, crash, shutdown)
  fuzz [VARIANT...] [--seed N|random]   Schemathesis against every variant with docs/openapi.yaml
  e2e [--variants V,...]   each variant once per e2e configuration of its variant.yaml, checked by loadclient verify
  cluster-test             java-spray-async as three cluster members: cross-member trade, verify, kill -9, SIGTERM, partition
  compose-check            the static check of docker-compose.yml and the Dockerfiles
  test [--tier T]          every test of the project (what .ci/run calls); T: one tier of them,
                           unit (no database), integration (the database) or system (variants started)

A command stops the private database at its end when it started it (`db start` keeps it up).
"""


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


def usage(ctx, out=sys.stdout) -> None:
    print(USAGE, file=out)
    print(f"VARIANT: {' | '.join(v.name for v in discover(ctx.root))}  (folders holding a variant.yaml)", file=out)
    print("bench/compare/sweep options: ./tradebench compare --help", file=out)


def cmd_variants(ctx, args) -> int:
    for v in discover(ctx.root):
        print(v.name)
    return 0


def cmd_serve(ctx, args) -> int:
    from . import db as dbmod
    (v,) = select(ctx.root, args.variant)
    v = v.for_settings(os.environ)   # STACK=pekko ./tradebench serve java-akka: its Pekko build
    v.ensure_built(ctx)
    env = dict(os.environ)
    if not env.get("DB_HOST"):
        dbmod.start_private(ctx)
        env.update(dbmod.private(ctx, env.get("DB_NAME") or "TRADER").variant_env())
    nodes = int(env.get("NODES") or 1)
    if nodes > 1:
        from . import members
        if v.cluster is None:
            say(f"error: NODES={nodes}: {v.name} has no cluster mode (no cluster key in its variant.yaml)")
            return 2
        port = int(env.get("PORT") or 3000)
        say(f"serving {v.name} as {nodes} cluster members on ports {port}..{port + nodes - 1} (database "
            f"{env['DB_HOST']}:{env.get('DB_PORT', '3306')}/{env.get('DB_NAME', 'TRADER')})")
        return members.serve(ctx, v, env, nodes)
    say(f"serving {v.name} on port {env.get('PORT', '3000')} (database {env['DB_HOST']}:{env.get('DB_PORT', '3306')}/"
        f"{env.get('DB_NAME', 'TRADER')})")
    argv = v.command(ctx)
    os.chdir(ctx.root)
    os.execvpe(argv[0], argv, env)


def cmd_e2e(ctx, args) -> int:
    from . import e2e
    from .steps import Steps
    steps = Steps()
    e2e.run(ctx, select(ctx.root, args.variants), steps)
    return steps.close("e2e")


def cmd_reliability(ctx, args) -> int:
    from . import reliability
    from .steps import Steps
    steps = Steps()
    reliability.run(ctx, select(ctx.root, ",".join(args.variants) or os.environ.get("TB_REL_VARIANTS")), steps)
    return steps.close("reliability")


def cmd_cluster_test(ctx, args) -> int:
    from . import cluster_test, tools
    from .steps import Steps
    try:
        tools.iptables()
    except tools.ToolError as e:
        say(f"{e}: the partition scenario will fail")
    steps = Steps()
    cluster_test.run(ctx, steps, args.only)
    return steps.close("cluster")


def cmd_fuzz(ctx, args) -> int:
    from . import fuzz
    from .steps import Steps
    steps = Steps()
    fuzz.run(ctx, select(ctx.root, ",".join(args.variants) or None), steps,
             fuzz.seed_of(args.seed or os.environ.get("TB_FUZZ_SEED")), args.max_examples)
    return steps.close("fuzz")


def cmd_compose_check(ctx, args) -> int:
    from . import compose_check, tools
    try:
        cli = tools.compose(ctx)
    except tools.ToolError as e:
        say(f"error: the compose check needs the Compose CLI: {e}")
        return 1
    # the variant services to check: the variants of the tree (variants.discover)
    return compose_check.main([str(ctx.root), "--compose", cli])


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="./tradebench", description="the tradebench harness")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("variants", help="the variants found (folders holding a variant.yaml)").set_defaults(func=cmd_variants)

    s = sub.add_parser("serve", help="run one variant in the foreground (env: contract section 5)")
    s.add_argument("variant")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("e2e", help="each variant once per manifest e2e configuration, checked by loadclient verify")
    s.add_argument("--variants", default=None, help="comma-separated names (default: all)")
    s.set_defaults(func=cmd_e2e)

    s = sub.add_parser("reliability", help="the reliability suite (bad input, overload, outage, database crash, engine crash, shutdown)")
    s.add_argument("variants", nargs="*")
    s.set_defaults(func=cmd_reliability)

    s = sub.add_parser("cluster-test", help="java-spray-async as three cluster members: cross-member trade, verify, "
                                             "kill -9 and SIGTERM under load")
    s.add_argument("--only", default=None, help="one scenario: cross_member, kill, leave or partition")
    s.set_defaults(func=cmd_cluster_test)

    s = sub.add_parser("fuzz", help="Schemathesis against every variant with docs/openapi.yaml (fixed seed)")
    s.add_argument("variants", nargs="*")
    s.add_argument("--seed", default=None, help="a number, or 'random' (default: TB_FUZZ_SEED, else a fixed seed)")
    s.add_argument("--max-examples", type=int, default=None, help="generated cases per operation (default 60)")
    s.set_defaults(func=cmd_fuzz)

    s = sub.add_parser("compose-check", help="the static check of docker-compose.yml and the Dockerfiles")
    s.set_defaults(func=cmd_compose_check)

    from . import bench_cli
    bench_cli.add(sub)
    p.commands = set(sub.choices)   # the names its subcommands answer to
    return p


def _terminated(signum, frame):
    # SIGTERM (timeout, CI runners, service managers) stops what the harness started, as Ctrl-C does: every
    # command stops its processes in `finally` blocks, which a KeyboardInterrupt runs and a bare SIGTERM does not
    raise KeyboardInterrupt


def java_exec(ctx, argv: list[str]) -> int:
    """Runs the JDK's java with the harness's JVM flags in place of this process (a signal reaches it)."""
    argv = [ctx.java, *argv]
    os.execv(argv[0], argv)


def cmd_loadclient(ctx, argv: list[str]) -> int:
    """./tradebench load|verify ARGS: the load client in the foreground (TB_LOADCLIENT_OPTS: more JVM flags)."""
    from . import build
    return java_exec(ctx, [*ctx.loadclient_opts, "-jar", str(build.loadclient(ctx)), *argv])


def cmd_replay(ctx, argv: list[str]) -> int:
    from . import build
    from .variants import by_name
    if len(argv) != 2 or argv[0] not in ("java", "node"):
        say("usage: ./tradebench replay java|node SCENARIO.json")
        return 2
    if not os.path.isfile(argv[1]):
        say(f"error: no such scenario file: {argv[1]}")
        return 2
    if argv[0] == "java":
        return java_exec(ctx, [*ctx.jvm_opts, "-cp", build.model_classpath(ctx), "tradebench.model.replay.ReplayMain",
                               argv[1]])
    by_name(ctx.root, ["node-engine"])[0].ensure_built(ctx)   # its packages (underscore)
    os.execv(ctx.node, [ctx.node, str(ctx.root / "node-engine" / "src" / "replay.js"), argv[1]])


def cmd_bench_model(ctx, argv: list[str]) -> int:
    """JMH (org.openjdk.jmh.Main): the arguments are JMH's, e.g. -f 1 -wi 2 -i 3, -p orders=1000000, -rf json."""
    from . import build
    return java_exec(ctx, [*ctx.jvm_opts, "-cp", build.model_classpath(ctx, bench=True), "org.openjdk.jmh.Main",
                           r"tradebench\.model\.bench\.MarketJmh", *argv])


def cmd_build(ctx, argv: list[str]) -> int:
    """Every Maven module (installed), then each Node.js variant's packages (its manifest's build)."""
    from . import build
    if build.mvn(ctx, "-DskipTests", "install") != 0:
        say("error: Maven build failed")
        return 1
    for v in discover(ctx.root):
        if v.runtime == "node":
            v.ensure_built(ctx)   # a ManifestError is said by main
    return 0


def cmd_db(ctx, argv: list[str]) -> int:
    from . import db
    return db.command(ctx, argv)


def cmd_test(ctx, argv: list[str]) -> int:
    from . import testrun
    return testrun.main(ctx, argv)


#: commands that take their arguments as they are (no parser of the harness's)
RAW = {"db": cmd_db, "load": cmd_loadclient, "verify": cmd_loadclient, "replay": cmd_replay,
       "bench-model": cmd_bench_model, "build": cmd_build, "test": cmd_test}
#: commands that run the load client
NEEDS_LOADCLIENT = {"bench", "compare", "sweep", "map", "reliability", "e2e", "cluster-test"}


def _terminated(signum, frame):
    # SIGTERM (timeout, CI runners, service managers) stops what the harness started, as Ctrl-C does: every
    # command stops its processes in `finally` blocks, which a KeyboardInterrupt runs and a bare SIGTERM does not
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    import signal
    from . import build, db, tools
    signal.signal(signal.SIGTERM, _terminated)
    ctx = context.from_env()
    command = argv[0] if argv else "help"
    try:
        if command in ("help", "-h", "--help"):
            usage(ctx)
            return 0
        if command in ("load", "verify"):
            return cmd_loadclient(ctx, argv)
        if command in RAW:
            return RAW[command](ctx, argv[1:])
        p = parser()
        if command not in p.commands:
            usage(ctx, sys.stderr)
            say(f"error: unknown command: {command}")
            return 2
        args = p.parse_args(argv)
        if command in NEEDS_LOADCLIENT:
            build.loadclient(ctx)
        if command == "serve":
            return args.func(ctx, args)
        with db.owned(ctx):   # a command stops the private database it started
            return args.func(ctx, args) or 0
    except (ManifestError, build.BuildError, tools.ToolError, db.DbError) as e:
        say(f"error: {e}")
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130

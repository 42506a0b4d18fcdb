"""python -m tradebench_harness COMMAND ...: what ./tradebench hands over to the harness.

The launcher (scripts/lib/15-harness.sh) creates the virtual environment, finds
Java, Node and the database, and calls this with TB_ROOT, JAVA_HOME,
TB_DB_PORT, TB_JVM_RUN_OPTS in the environment.
"""
from __future__ import annotations

import argparse
import os
import sys

from . import context
from .variants import ManifestError, discover, select


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


def cmd_variants(ctx, args) -> int:
    for v in discover(ctx.root):
        print(v.name)
    return 0


def cmd_serve(ctx, args) -> int:
    from . import db as dbmod
    (v,) = select(ctx.root, args.variant)
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
    steps = Steps(args.steps_file)
    e2e.run(ctx, select(ctx.root, args.variants), steps)
    return steps.close("e2e")


def cmd_reliability(ctx, args) -> int:
    from . import reliability
    from .steps import Steps
    steps = Steps(args.steps_file)
    reliability.run(ctx, select(ctx.root, ",".join(args.variants) or os.environ.get("TB_REL_VARIANTS")), steps)
    return steps.close("reliability")


def cmd_cluster_test(ctx, args) -> int:
    from . import cluster_test
    from .steps import Steps
    steps = Steps(args.steps_file)
    cluster_test.run(ctx, steps, args.only)
    return steps.close("cluster")


def cmd_fuzz(ctx, args) -> int:
    from . import fuzz
    from .steps import Steps
    steps = Steps(args.steps_file)
    fuzz.run(ctx, select(ctx.root, ",".join(args.variants) or None), steps,
             fuzz.seed_of(args.seed or os.environ.get("TB_FUZZ_SEED")), args.max_examples)
    return steps.close("fuzz")


def cmd_compose_check(ctx, args) -> int:
    from . import compose_check
    # the variant services to check: the variants of the tree (their manifests)
    return compose_check.main([str(ctx.root), "--variants", ",".join(v.name for v in discover(ctx.root))])


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="./tradebench", description="the tradebench harness")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("variants", help="the variants found (folders holding a variant.yaml)").set_defaults(func=cmd_variants)

    s = sub.add_parser("serve", help="run one variant in the foreground (env: contract section 5)")
    s.add_argument("variant")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("e2e", help="each variant once per manifest e2e configuration, checked by loadclient verify")
    s.add_argument("--variants", default=None, help="comma-separated names (default: all)")
    s.add_argument("--steps-file", default=None)
    s.set_defaults(func=cmd_e2e)

    s = sub.add_parser("reliability", help="the reliability suite (bad input, overload, outage, database crash, engine crash, shutdown)")
    s.add_argument("variants", nargs="*")
    s.add_argument("--steps-file", default=None)
    s.set_defaults(func=cmd_reliability)

    s = sub.add_parser("cluster-test", help="java-spray-async as three cluster members: cross-member trade, verify, "
                                             "kill -9 and SIGTERM under load")
    s.add_argument("--steps-file", default=None)
    s.add_argument("--only", default=None, help="one scenario: cross_member, kill, leave or partition")
    s.set_defaults(func=cmd_cluster_test)

    s = sub.add_parser("fuzz", help="Schemathesis against every variant with docs/openapi.yaml (fixed seed)")
    s.add_argument("variants", nargs="*")
    s.add_argument("--seed", default=None, help="a number, or 'random' (default: TB_FUZZ_SEED, else a fixed seed)")
    s.add_argument("--max-examples", type=int, default=None, help="generated cases per operation (default 60)")
    s.add_argument("--steps-file", default=None)
    s.set_defaults(func=cmd_fuzz)

    s = sub.add_parser("compose-check", help="the static check of docker-compose.yml and the Dockerfiles")
    s.set_defaults(func=cmd_compose_check)

    from . import bench_cli
    bench_cli.add(sub)
    return p


def _terminated(signum, frame):
    # SIGTERM (timeout, CI runners, service managers) stops what the harness started, as Ctrl-C does: every
    # command stops its processes in `finally` blocks, which a KeyboardInterrupt runs and a bare SIGTERM does not
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    import signal
    signal.signal(signal.SIGTERM, _terminated)
    args = parser().parse_args(argv)
    ctx = context.from_env()
    try:
        return args.func(ctx, args) or 0
    except ManifestError as e:
        say(f"error: {e}")
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130

"""`./tradebench predict`: which design carries a load behind a database, configured how, at what cost, how sure.

    ./tradebench predict --db-latency 7 --rate 3000 [--cores 4] [--persist per-sale|batch] [--params FILE]
    ./tradebench predict --db-latency 0 --rate 3000 --db-cpu 0.25      # a busy database: held to a quarter core
    ./tradebench predict --db-latency 0 --rate 3000 --db-durable       # a durable one: every commit synced
    ./tradebench predict --db-latency 0 --saturation [--cores 8]       # what a compare (closed loop) would store
    ./tradebench predict fit RUN [RUN...] [--held-out RUN...] [--fsync FILE] [--out FILE]   # fit the parameters
    ./tradebench predict check RUN [--params FILE]            # the model beside a map's (or sweep's) cells
    ./tradebench predict hold-out --params FILE --first RUN... --second RUN...   # a set against two later sittings
    ./tradebench predict probe-fsync [--out FILE]             # what an fsync adds to a commit here (seconds)
    ./tradebench predict repeatability RUN RUN                # two sittings of the same cells: how far they agree
    ./tradebench calibrate                                    # this machine's own parameters, in minutes

No variant is started and no database is needed (but for probe-fsync): the answer is the model's
(docs/model.md), from a parameter set fitted on this machine (calibrate), else on this kind of machine.
The older flags --fit, --check and --probe-fsync are refused (exit 2) with the subcommand that does it.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..model import holdout, repeatability
from ..run.context import Context
from . import predict_answers as answers
from .options import CheckOptions, FitOptions, HoldOutOptions, OptionsError, ProbeOptions, Question, RepeatOptions
from .validators import number_above_zero, number_not_negative

SUBCOMMANDS = ("fit", "check", "hold-out", "probe-fsync", "repeatability")
#: flags that once chose a mode, and the subcommand that does it now
OLDER_FLAGS = {"--fit": "fit", "--check": "check", "--probe-fsync": "probe-fsync"}
LAYOUTS = ("shared", "isolated")
DOC = __doc__ or ""


# --- the parsers: predict's question on the command itself, each other job a subcommand of it ---------------------

def questions(p: argparse.ArgumentParser) -> None:
    """The question's options (`predict --db-latency MS --rate N`): checked in question_of, since a subcommand
    needs none of them."""
    p.add_argument("--db-latency", type=number_not_negative("--db-latency"), metavar="MS",
                   help="the latency the network adds to each round trip to the database, ms (as sweep's --db-latency)")
    load = p.add_mutually_exclusive_group()
    load.add_argument("--rate", type=number_above_zero("--rate"), metavar="N", help="offered orders a second")
    load.add_argument("--saturation", action="store_true",
                      help="instead of --rate: what each design stores in a closed loop with no pause (a compare's run)")
    p.add_argument("--cores", type=number_above_zero("--cores"), metavar="C",
                   help="CPUs the variant may use (default: this machine's, in the layout: the isolated layout's share "
                        "of them, or all of them shared); saturation scales with it only from "
                        "measured CPU counts (sweep cores), and says where it extrapolates")
    p.add_argument("--layout", choices=LAYOUTS, default=None,
                   help="shared: the variant shares the machine's CPUs with the database and the load client; "
                        "isolated: CPUs of its own, as the measuring commands lay it out (the default; the committed "
                        "set of each layout is its own)")
    p.add_argument("--persist", choices=("per-sale", "batch"), default="per-sale")
    p.add_argument("--db-cpu", type=number_above_zero("--db-cpu"), metavar="CORES",
                   help="a busy database: its server held to this share of the cores (0.25: a quarter of one core), "
                        "as the measuring commands' --db-cpu")
    p.add_argument("--db-durable", action="store_true",
                   help="a durable database: every commit waits for an fsync (as the measuring commands' --db-durable)")
    p.add_argument("--params", metavar="FILE", help="a parameter file (default: this machine's from calibrate or fit, "
                                                    "else the committed)")


def fit_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="results folders to fit from")
    p.add_argument("--shape-from", nargs="+", metavar="RUN", default=[],
                   help="the open-loop runs (a map) that say how CPU per order grows below saturation "
                        "(default: those among the RUNs)")
    p.add_argument("--fsync", nargs="+", metavar="FILE", default=[],
                   help="the fsync time measured by probe-fsync (each file on its own machine)")
    p.add_argument("--held-out", nargs="+", metavar="RUN", default=[],
                   help="results folders NOT to fit from: each set is scored on those of its machine, and its "
                        "intervals drawn from their residuals (a folder the set is fitted from is refused)")
    p.add_argument("--out", metavar="FILE", help=f"where to write them (default {answers.USER_PARAMS})")


def check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN")
    p.add_argument("--params", metavar="FILE", help="a parameter file (default: the committed)")
    p.add_argument("--in-sample", action="store_true",
                   help="check a folder the parameters were fitted from (refused otherwise: it is no check)")


def hold_out_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params", metavar="FILE", required=True, help="the parameter file (calibrate's, or fit's)")
    p.add_argument("--first", nargs="+", metavar="RUN", required=True,
                   help="results folders of the first held-out sitting (the intervals come from them)")
    p.add_argument("--second", nargs="+", metavar="RUN", required=True,
                   help="results folders of a later sitting (the intervals' coverage is counted on them)")
    p.add_argument("--out", metavar="FILE", help="where to write the set (default: the --params file)")


def probe_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", metavar="FILE", help="where to write F (default .tradebench/fsync.json)")


def repeatability_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("first", metavar="RUN")
    p.add_argument("second", metavar="RUN")


# --- the options objects --------------------------------------------------------------------------------------------

def question_of(a: argparse.Namespace) -> Question:
    if a.db_latency is None or (a.rate is None and not a.saturation):
        raise OptionsError("predict needs --db-latency MS and --rate N (or --saturation), or a subcommand: "
                           + ", ".join(SUBCOMMANDS))
    return Question(db_latency=a.db_latency, rate=None if a.saturation else a.rate, cores=a.cores, persist=a.persist,
                    db_cpu=a.db_cpu, db_durable=a.db_durable, params=a.params, layout=a.layout)


def fit_options(a: argparse.Namespace) -> FitOptions:
    return FitOptions(tuple(a.runs), tuple(a.shape_from), tuple(a.fsync), tuple(a.held_out), a.out)


def check_options(a: argparse.Namespace) -> CheckOptions:
    return CheckOptions(a.run, a.params, a.in_sample)


def hold_out_options(a: argparse.Namespace) -> HoldOutOptions:
    return HoldOutOptions(a.params, tuple(a.first), tuple(a.second), a.out)


def repeat_options(a: argparse.Namespace) -> RepeatOptions:
    return RepeatOptions(a.first, a.second)


def probe_options(a: argparse.Namespace) -> ProbeOptions:
    return ProbeOptions(a.out)


def older_form(argv: list[str]) -> str | None:
    """What to say of a command line of predict in an older form (--fit RUN..., --check RUN, --probe-fsync): the
    subcommand that does it now; None for a command line of today."""
    for flag, sub in OLDER_FLAGS.items():
        if flag in argv:
            rest = [a for a in argv if a != flag]
            return f"predict {flag} is the older form: ./tradebench predict {sub} {' '.join(rest)}".rstrip()
    return None


# --- the commands ---------------------------------------------------------------------------------------------------

def cmd_answer(ctx: Context, q: Question) -> int:
    return answers.answer_saturation(q, ctx.root) if q.saturation else answers.answer(q, ctx.root)


def cmd_fit(ctx: Context, o: FitOptions) -> int:
    return answers.do_fit(o, ctx.root)


def cmd_check(ctx: Context, o: CheckOptions) -> int:
    return answers.do_check(o, ctx.root)


def cmd_hold_out(ctx: Context, o: HoldOutOptions) -> int:
    return holdout.do_hold_out(Path(o.params), o.first, o.second, Path(o.out) if o.out else None, ctx.root)


def cmd_repeatability(ctx: Context, o: RepeatOptions) -> int:
    return repeatability.do_repeatability(o.first, o.second, ctx.root)


def cmd_probe_fsync(ctx: Context, o: ProbeOptions) -> int:
    return answers.do_probe_fsync(o, ctx.root)


#: each subcommand: its help, its arguments, its command, its options' maker
JOBS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[Context, Any], int],
                      Callable[[argparse.Namespace], Any]]] = {
    "fit": ("fit the model's parameters from results folders, and score them on folders they were not fitted on",
            fit_arguments, cmd_fit, fit_options),
    "check": ("the model beside every open-loop cell of a map or sweep: its score, its intervals' coverage, cell by "
              "cell", check_arguments, cmd_check, check_options),
    "hold-out": ("a parameter set held against two sittings it was not fitted on: its intervals drawn from the "
                 "first's residuals, their coverage counted on the second's cells, the score over both; kept in the "
                 "set", hold_out_arguments, cmd_hold_out, hold_out_options),
    "probe-fsync": ("measure what a durable database adds to each commit (F) on the private database, a few "
                    "seconds: the round-trip probe with and without every commit synced", probe_arguments,
                    cmd_probe_fsync, probe_options),
    "repeatability": ("two sittings of the same cells (a map measured again) beside each other: per figure, how "
                      "many agree within its tolerance, how far one sitting strays, and the share of cells a "
                      "prediction without error of its own would have within it (no model does better)",
                      repeatability_arguments, cmd_repeatability, repeat_options),
}


def add(sub: Any, add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """The command on the parser (ADD_COMMAND: cli.main's way of adding one): the question on predict itself, each
    other job a subcommand of it. No variant is started: none of them owns the database (probe-fsync opens it)."""
    p = add_command(sub, "predict", cmd_answer, "which design carries a load behind a database, configured how, at "
                    "what cost, how sure, in seconds from measured parameters (docs/model.md): --db-latency MS --rate "
                    "N|--saturation [--cores C] [--persist M] [--db-cpu CORES] [--db-durable] | "
                    + " | ".join(SUBCOMMANDS), question_of, owns_db=False, description=DOC.split("\n\n")[0],
                    epilog=DOC.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    questions(p)
    jobs = p.add_subparsers(dest="job", metavar="SUBCOMMAND", required=False)
    for name, (help, arguments, func, maker) in JOBS.items():
        arguments(add_command(jobs, name, func, help, maker, owns_db=False, description=help))

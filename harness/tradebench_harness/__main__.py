"""The entry point of ./tradebench (python -m tradebench_harness COMMAND ...)."""
import os
import sys

from .cli.main import main


def run(argv: list[str]) -> int:
    """main(ARGV); a reader that stops reading early (`./tradebench predict ... | head -3`) ends the command
    quietly with exit 0, as a Unix filter does, instead of a BrokenPipeError's traceback."""
    try:
        rc = main(argv)
        sys.stdout.flush()      # what is still buffered meets the closed pipe here, not at the interpreter's exit
        return rc
    except BrokenPipeError:
        # the interpreter flushes stdout once more at its exit: it goes to /dev/null, not to the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


sys.exit(run(sys.argv[1:]))

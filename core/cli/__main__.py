"""`python -m biny.core.cli`: the same commands as `biny`."""

from biny.core.cli import run

run()

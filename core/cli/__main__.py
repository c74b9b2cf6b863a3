"""`python -m biny.core.cli`: the same commands as `biny`."""

import sys

from biny.core.cli import main

sys.exit(main())

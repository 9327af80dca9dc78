"""`python -m agent_memory.cli`: the `agent-memory` command, as the console script runs it."""

import sys

from . import main

sys.exit(main())

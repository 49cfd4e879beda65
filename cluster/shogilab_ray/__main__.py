"""`python -m shogilab_ray [launcher options] {values,selfplay,match} -- <shogilab args...>`,
or `... pipeline <pipeline options> -- <shared args...>` (see pipeline.py)."""

import sys

from shogilab_ray.launcher import main

if __name__ == "__main__":
    sys.exit(main())

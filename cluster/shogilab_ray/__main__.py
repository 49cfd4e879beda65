"""`python -m shogilab_ray [launcher options] {values,selfplay} -- <shogilab args...>`."""

import sys

from shogilab_ray.launcher import main

if __name__ == "__main__":
    sys.exit(main())

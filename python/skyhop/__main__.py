"""``python -m skyhop`` is the ``skyhop`` command."""

import sys

from .cli import main

# The guard matters: worker processes of `skyhop sweep` (spawned) re-import
# the parent's main module under another name, and must not re-run the CLI.
if __name__ == "__main__":
    sys.exit(main())

"""A bot file that calls sys.exit while loading: loading must still fail with one line."""

import sys

sys.exit(0)

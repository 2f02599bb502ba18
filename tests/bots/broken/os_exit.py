"""os_exit: ends the whole process while it is imported, as a careless script might."""

import os

os._exit(3)

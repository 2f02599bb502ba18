"""Agents whose act leaves by an exception Python does not count as an error: each decision is a bot error all the
same, named in the run's first error, not the end of the run."""


class Exits:
    """Calls sys.exit on every decision."""

    def act(self, observation, action_mask):
        raise SystemExit(4)


class Interrupts:
    """Raises KeyboardInterrupt on every decision (in a worker, which ignores Ctrl-C, it can only be the code's)."""

    def act(self, observation, action_mask):
        raise KeyboardInterrupt

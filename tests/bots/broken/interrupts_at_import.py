"""A bot file that raises KeyboardInterrupt while loading: loading must fail with one line naming the file, not pass
for a Ctrl-C."""

raise KeyboardInterrupt

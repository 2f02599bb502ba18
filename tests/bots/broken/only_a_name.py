"""A bot file with a NAME and nothing else: loading must name both things missing in one line."""

NAME = "only_a_name"

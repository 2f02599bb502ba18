"""A bot file that is not valid Python."""

NAME = "syntax_error"
DESCRIPTION = "Does not parse."

def decide(me:

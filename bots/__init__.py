"""The shipped roster: one scripted bot per file, installed as ``autodup.roster``.

``autodup bots`` lists them and ``--bots NAME`` loads one; a bot of your own is loaded by its path.
Files whose names start with ``_`` are not bots.
"""

"""The shipped configurations, installed as ``autodup.configs``: ``set4`` (the default) and ``tiny``.

Commands accept these names or a path to a YAML file of your own.
"""

from .commands import main

__all__ = ["main"]

"""git refocus: concept-bound session forking, recorded in git."""

__version__ = "0.1.0"

"""Vigil: open fatigue scoring for airline crews."""

__version__ = "0.1.0"

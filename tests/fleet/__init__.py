"""Tests of the fleet view (issue 16)."""

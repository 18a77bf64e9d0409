"""Tests of the fleet view."""

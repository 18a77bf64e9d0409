"""Retired implementations kept as independent references for the tests."""

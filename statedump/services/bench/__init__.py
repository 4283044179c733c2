"""Benchmarks: comparing two sets of results."""

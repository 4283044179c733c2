"""Benchmarks for statedump: synthetic stores and transcripts, the cases, and the runner (`python -m benchmarks`)."""

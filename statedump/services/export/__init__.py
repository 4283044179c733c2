"""Formats out: the session's decisions as adr-tools ADRs or MADR 4 files."""

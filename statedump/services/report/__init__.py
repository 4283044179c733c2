"""Reports built from a session's records: the resume prompt and the handoff report."""

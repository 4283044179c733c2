"""Services: what statedump does, shared by every face (CLI, TUI, MCP).

A service takes a store and plain arguments and returns data; the faces print it.
"""

"""The one gateway to git: GitPython for writes, the git binary for hot read paths."""

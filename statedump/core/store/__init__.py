"""The store: finding it, reading sessions from the work tree or any revision, writing records."""

"""The terminal UI (`statedump tui`). Only this package and the `tui` command import Textual."""

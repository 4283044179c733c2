"""Turning a session's records into documents: Markdown and terminal output."""

from statedump.render.markdown import SECTIONS, SPINE, next_steps, render_markdown

__all__ = ["SECTIONS", "SPINE", "next_steps", "render_markdown"]

"""Screens: the sessions list, one session, a past state document."""

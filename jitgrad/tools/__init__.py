"""Maintenance tools run as ``python -m jitgrad.tools.<name>`` (not part of the API)."""

"""Slash commands, each a thin layer over a service, and their private replies and forms."""

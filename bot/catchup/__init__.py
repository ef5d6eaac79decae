"""Catching up: `/otomo catchup [since]` summarises, privately, what a member missed in a
channel or thread, citing the messages."""

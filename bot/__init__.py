"""Otomo (お供): a Discord companion bot."""

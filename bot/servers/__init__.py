"""Servers as tenants: each server's settings over the environment's defaults, its budgets, and
the servers the bot joined and left."""

"""Servers as tenants: the scope every server-owned read and write carries, each server's
settings over the environment's defaults, its budgets, its scheduled posts, and the servers the
bot joined and left."""

from bot.servers.directory import SERVERS_FOLDER, ServerScope

__all__ = ["SERVERS_FOLDER", "ServerScope"]

"""Servers as tenants: the scope every server-owned read and write carries."""

from bot.servers.scope import SERVERS_FOLDER, ServerScope

__all__ = ["SERVERS_FOLDER", "ServerScope"]

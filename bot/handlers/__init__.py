"""Handlers: the keyword router and, per handler, a system prompt plus a tool set."""

"""Approvals as data: pending tool calls are rows, decisions are conditional updates."""

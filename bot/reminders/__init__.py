"""Reminders: repeat rules, the reminder service, its tools and the delivery engine (no Discord)."""

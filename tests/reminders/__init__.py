"""Tests of the reminders service, its tools, repeat rules and the delivery engine."""

"""Reminders on Discord: posting due reminders and the Snooze / Done buttons under them."""

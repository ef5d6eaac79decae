"""Requests the reminder service refuses; each message is a sentence about what was wrong."""

from __future__ import annotations


class ReminderError(Exception):
    """A refused request; str(error) tells the model what was wrong and what to ask the user."""


class InvalidReminder(ReminderError):
    """The time, text or repeat rule cannot be used."""


class UnreadableWhen(InvalidReminder):
    """The time is not a date and time that can be read."""


class TimeInPast(InvalidReminder):
    """The time has already passed."""


class TooFarAhead(InvalidReminder):
    """The time is further ahead than reminders may be set."""


class TooManyReminders(InvalidReminder):
    """The user already has the most pending reminders allowed."""


class ReminderNotFound(ReminderError):
    """No reminder has that id."""


class NotReminderOwner(ReminderError):
    """The reminder belongs to someone else."""


class ReminderClosed(ReminderError):
    """The reminder was already delivered, cancelled or failed, or it changed meanwhile."""


class ReminderRefused(InvalidReminder):
    """The member a reminder is for stopped reminders from the asker."""

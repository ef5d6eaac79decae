"""The reminders feature's Discord part: /remind and /timezone, the buttons under delivered
reminders and requests, the posts of due reminders, and the message action."""

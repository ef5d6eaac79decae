"""Delivering due reminders on time, exactly once, across processes and crashes.

How a due reminder travels (files in order):

- `engine.py`: the DeliveryEngine; one scheduler job sleeps until the next due row, wakes on
  `due_times.py`'s signal when a reminder changes, and hands claimed rows to the courier.
- `scope.py`: which rows this engine may take (the bot's or the console's; this process's shards).
- `ledger.py` with `claims.py`: claiming rows under a lease (SKIP LOCKED on PostgreSQL) and
  recording outcomes as conditional updates; `batching.py` commits bursts of outcomes together.
- `lanes.py` and `bot/runtime/pacing.py`: one channel's posts in order, paced below Discord's
  limits.
- `courier.py`: posts one claim through `sender.py` (the seam to Discord, with a deterministic
  nonce) and applies the failure policy stored in the row.

The bot's engine is built by the feature's Discord part (`discord_part/delivery.py`, started
when the gateway connects), the console's by `console.py`.
"""

"""Scheduled tasks: a prompt Otomo runs on a schedule, with the tools named when it was approved.

How a due task travels (files in order):

- `discord_part/__init__.py`: every process ticks each minute and hands the due runs to the runner.
- `ledger.py`: claims each run once per bot (the task moves on, a `task_runs` row is written),
  and takes over a dead process's run once its lease ran out.
- `runner.py`: the grace (late, or skipped with one line), the gate (budgets, tasks off), the
  pacing of model calls, the post, three failures in a row pausing the task.
- `discord_part/runs.py` runs the prompt over the agent (only the task's tools; a card to the owner
  for a call that needs a person); `discord_part/posting.py` posts with the run's nonce.

Members make tasks with the tools in `tools.py` (cards in `looks.py`) and manage them with
`/otomo tasks` (`discord_part/panel.py`); `service.py` holds the table's reads and writes,
`schedule.py` the times (over `bot/schedule`), `table.py` the tables.
"""

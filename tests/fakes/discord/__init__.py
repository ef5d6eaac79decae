"""An offline fake Discord (REST + gateway) for the real discord.py client; one concept a module.

- :mod:`.world`: the guilds, their channels, roles and members, the bot, and their payloads.
- :mod:`.rules`: Discord's limits, validation, error bodies, rate limits, nonces and deadlines.
- :mod:`.records`: what tests read afterwards (requests, uploads, interactions).
- :mod:`.state`: the fake's configuration and state, and waiting for it to change.
- :mod:`.gateway`: websocket connections and resumable sessions.
- :mod:`.messages`: building, storing, editing and deleting messages and attachments.
- :mod:`.people`: tests acting as people (messages, clicks, slash commands, modals).
- :mod:`.rest`: the REST front door (auth, faults, global limit, routing);
  :mod:`.rest_channels`, :mod:`.rest_interactions`, :mod:`.rest_commands` and
  :mod:`.rest_guilds` hold the routes by resource.
- :mod:`.fake`: :class:`FakeDiscord`, all of the above put together.

Tests import from :mod:`tests.fakes.discord_server`.
"""

"""The Discord front: gate, rendering of agent events, approval buttons, slash commands."""

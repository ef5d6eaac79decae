"""Tests of the agent core (bot/agent)."""

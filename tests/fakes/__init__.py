"""Fake external services (Discord, LLM, weather, search) that tests start on 127.0.0.1."""

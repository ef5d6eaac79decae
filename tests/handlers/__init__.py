"""Tests of the keyword router and handler prompts."""

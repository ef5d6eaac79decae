"""Otomo tests."""

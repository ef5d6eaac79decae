"""Tests of storage and migrations."""

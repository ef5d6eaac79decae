"""Tests of the Discord layer units (splitting, rendering)."""

"""Tests of the weather service, its tool and the daily weather post."""

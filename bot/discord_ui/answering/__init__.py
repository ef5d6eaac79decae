"""Answering a mention: the gate, intake, the run's rendering, streaming, typing and Stop."""

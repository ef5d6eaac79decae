"""Answering a mention: the gate and intake, the run's rendering, streaming, typing and Stop."""

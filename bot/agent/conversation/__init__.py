"""The conversation: typed messages, their stored history, summaries, memory and retention."""

"""Tool-call cards: the embed, its one owner, and approval clicks resuming the run."""

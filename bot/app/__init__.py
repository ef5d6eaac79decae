"""The composition root: builds everything, wires the upward callbacks, and the command line."""

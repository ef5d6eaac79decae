"""Schedule arithmetic every feature shares: repeat rules, their next times, local wall time."""

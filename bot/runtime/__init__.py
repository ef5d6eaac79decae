"""Runtime helpers below every feature: clock, logs, secrets, worker thread, shards, leases."""

"""Tools the model may call: the registry, schemas from signatures, running one call safely."""

"""Members: their preferences (time zone, language) and who may do what."""

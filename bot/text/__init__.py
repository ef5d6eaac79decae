"""Japanese and English text: normalising, janome tokenising, its compact dictionary."""

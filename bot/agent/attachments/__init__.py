"""What members share with a mention: text files decoded, pictures fitted for vision models."""

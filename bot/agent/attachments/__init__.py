"""What members share with a mention: text files decoded, documents read as text in a child
process, pictures fitted for vision models."""

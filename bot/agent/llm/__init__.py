"""The model: litellm calls and their error sentences, the model choice per server, usage."""

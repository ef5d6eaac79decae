"""The notes feature's Discord part: /notes for the server notebook."""

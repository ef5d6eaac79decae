"""The knowledge feature's Discord part: /kb for the knowledge-base editors."""

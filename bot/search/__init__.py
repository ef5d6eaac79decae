"""Text search shared by the knowledge base and the notes: terms, synonyms, query plans, BM25."""

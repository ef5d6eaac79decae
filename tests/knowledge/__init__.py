"""Tests of the knowledge base: parsing, BM25, hot reload, editing and web search."""

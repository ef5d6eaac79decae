"""Tests of the word pool, the どうでもいいTips and the chat persona."""

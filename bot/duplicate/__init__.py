"""Boards, duplicate team matches, pairs events and daily boards (document 002 and beyond)."""

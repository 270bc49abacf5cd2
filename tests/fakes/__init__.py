"""Fake platform servers the real client libraries talk to in tests."""

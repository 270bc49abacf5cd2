"""Benchmark scripts; their figures go into the README, never into test asserts."""

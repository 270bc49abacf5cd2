"""The parts of `python -m benchmarks.host_throughput`: AI-only tables, people, the fake in its own process."""

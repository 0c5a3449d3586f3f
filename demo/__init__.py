"""Local demo and the small loopback helpers that the demo, tests and benchmarks share."""

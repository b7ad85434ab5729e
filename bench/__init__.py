"""The benchmark behind `make bench` (bench/run.py)."""

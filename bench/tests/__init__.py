"""The bench's self-tests, which `make bench` runs before the bench (not part of `make test`)."""

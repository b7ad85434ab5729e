"""Unit tests of the pure rules, without the app."""

"""Blueprints: home, matches, history and players."""

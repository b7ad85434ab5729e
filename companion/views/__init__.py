"""Blueprints: home, matches, the live match, the pencil, seats, history, players, host rights and groups."""

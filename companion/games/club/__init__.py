"""A club evening: scales, movements and standings of a tournament of pairs or players, pure and apart from any game."""

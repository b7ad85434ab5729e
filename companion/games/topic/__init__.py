"""Topic_ as the registry holds it: its rules, with its entry adapter and seed data attached."""

from .entry import TopicEntry
from .rules import Topic
from .seed import TopicSeeding

game = Topic(entry=TopicEntry, seed=TopicSeeding())

__all__ = ["game"]

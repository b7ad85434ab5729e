"""Presenters: what a page shows, each part worked out when its template first asks for it (views render them)."""

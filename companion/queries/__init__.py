"""Reads: the queries the views, the CLI and the service ask of the database; nothing here writes."""

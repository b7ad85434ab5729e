"""Reliability tests: real servers under load, crashes, hostile input, access, schema, backups."""

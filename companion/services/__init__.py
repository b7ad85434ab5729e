"""Writes: the only code that changes the database, one transaction a call (see transaction.py)."""

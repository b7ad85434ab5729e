"""The server: its launch on all interfaces, its workers, its TLS certificate and its database's backups."""

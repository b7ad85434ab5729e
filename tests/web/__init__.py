"""Web tests through the Flask test client."""

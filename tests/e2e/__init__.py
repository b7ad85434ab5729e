"""Browser tests in real Chromium at a phone viewport."""

"""The test suite: unit (rules), web (Flask test client), e2e (Chromium), reliability (real servers)."""

"""History: every run's figures kept in one store (SQLite by default, PostgreSQL for a team), the run-to-run noise
measured from them, the gate that judges a run against a baseline beyond that noise, and the trends across runs.
`littlegrid history` and `littlegrid check --baseline` are littlegrid/commands/history.py and check.py."""

"""Criteria: the grammar of pass/fail criteria, their evaluation on a summary; `littlegrid check`
(littlegrid/commands/check.py) judges a run with them."""

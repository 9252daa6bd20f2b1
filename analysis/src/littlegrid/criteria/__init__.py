"""Criteria: the grammar of pass/fail criteria, their evaluation on a summary; `littlegrid check`
(littlegrid/check.py) judges a run with them."""

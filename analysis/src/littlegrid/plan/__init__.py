"""A user's own JMeter plan: what littlegrid can control in it (inspect) and the plan each cell runs (derive)."""

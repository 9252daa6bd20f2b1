"""The subcommands: each composes the stages for one `littlegrid` command; no stage imports them."""

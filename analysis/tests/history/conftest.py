"""The history tests' helpers are plain modules of this folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # history_runs.py, history_pg.py: this folder's helpers

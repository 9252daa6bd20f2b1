"""Where the plan tests find the checkout's plans and their README."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PLANS = ROOT / "plans"
PLAN_FILES = sorted(PLANS.glob("*.jmx"))
README = PLANS / "README.md"

"""Fixtures for the plan tests: the provisioned JMeter, whose lib/ext and saveservice.properties say which elements
a plan may use."""

import pytest

from littlegrid.run.jmeter import find_jmeter
from littlegrid.usererror import UserError
from needs import missing


@pytest.fixture(scope="session")
def jmeter():
    try:
        return find_jmeter()
    except UserError as e:
        missing("JMeter", str(e))

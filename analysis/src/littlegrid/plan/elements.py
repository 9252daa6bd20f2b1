"""What littlegrid knows about JMeter's test elements, by the tag JMeter saves them under (its saveservice alias,
or the class name for plugins)."""

from __future__ import annotations

# The property JMeter sets on each remote engine, before a test, to the name the controller used for it in -R
# ("10.0.0.5:1099"): a thread count that reads `<name>.${__P(__jm.D_TG,)}` gets that engine's own share.
ENGINE_NAME_PROPERTY = "__jm.D_TG"

# Thread groups: the standard one is controlled in place; the rest are replaced by one carrying the cell's load.
STANDARD_GROUP = "ThreadGroup"
SETUP_GROUP, TEARDOWN_GROUP = "SetupThreadGroup", "PostThreadGroup"
OPEN_MODEL_GROUP = "OpenModelThreadGroup"
PLUGIN_GROUPS = {  # class -> what the GUI calls it (all from the Custom Thread Groups plugin, jpgc-casutg)
    "com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup": "jpgc Concurrency Thread Group",
    "com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup": "jpgc Arrivals Thread Group",
    "com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup": "jpgc Free-Form Arrivals Thread Group",
    "kg.apc.jmeter.threads.UltimateThreadGroup": "jpgc Ultimate Thread Group",
    "kg.apc.jmeter.threads.SteppingThreadGroup": "jpgc Stepping Thread Group",
}

# Plugins-manager ids (jmeter-plugins.org's repository files) of the plugin elements seen in plans, by class.
PLUGIN_IDS = {
    **{cls: "jpgc-casutg" for cls in PLUGIN_GROUPS},
    "kg.apc.jmeter.timers.VariableThroughputTimer": "jpgc-tst",
    "kg.apc.jmeter.samplers.DummySampler": "jpgc-dummy",
    "kg.apc.jmeter.reporters.FlexibleFileWriter": "jpgc-ffw",
    "kg.apc.jmeter.reporters.AutoStop": "jpgc-autostop",
    "kg.apc.jmeter.reporters.ConsoleStatusLogger": "jpgc-csl",
    "kg.apc.jmeter.vizualizers.CorrectedResultCollector": "jpgc-graphs-basic",
    "kg.apc.jmeter.perfmon.PerfMonCollector": "jpgc-perfmon",
    "kg.apc.jmeter.jmxmon.JMXMonCollector": "jpgc-jmxmon",
    "kg.apc.jmeter.dbmon.DbMonCollector": "jpgc-dbmon",
    "kg.apc.jmeter.samplers.HTTPRawSampler": "jpgc-httpraw",
    "kg.apc.jmeter.config.VariablesFromCSV": "jpgc-csvars",
    "com.atlantbh.jmeter.plugins.jsonutils.jsonpathextractor.JSONPathExtractor": "jpgc-json",
    "com.googlecode.jmeter.plugins.webdriver.sampler.WebDriverSampler": "jpgc-webdriver",
    "com.blazemeter.jmeter.controller.ParallelSampler": "bzm-parallel",
}

# Timers whose pause is think time, with how their mean is computed from (delay, range) in ms.
THINK_TIMERS = {
    "ConstantTimer": lambda delay, rng: delay,
    "UniformRandomTimer": lambda delay, rng: delay + rng / 2.0,
    "GaussianRandomTimer": lambda delay, rng: delay,          # offset + N(0, deviation)
    "PoissonRandomTimer": lambda delay, rng: delay + rng,     # offset + Poisson(lambda)
}
SCRIPTED_TIMERS = {"JSR223Timer", "BeanShellTimer", "BSFTimer"}
# Timers that pace to a throughput or a rendezvous: they shape the load, not a user's thinking.
PACING_TIMERS = {"ConstantThroughputTimer", "PreciseThroughputTimer", "SyncTimer",
                 "kg.apc.jmeter.timers.VariableThroughputTimer"}
FLOW_CONTROL = "TestAction"
FLOW_CONTROL_PAUSE = "1"  # ActionProcessor.action: 0 stop, 1 pause, 2 stop now, 3 restart next loop...

HTTP_SAMPLERS = {"HTTPSamplerProxy", "HTTPSampler", "HTTPSampler2", "AjpSampler"}
HTTP_DEFAULTS_GUI = "HttpDefaultsGui"
# Samplers that reach a host of their own, and the property that names it.
OTHER_HOST_SAMPLERS = {
    "TCPSampler": "TCPSampler.server",
    "FTPSampler": "FTPSampler.server",
    "SmtpSampler": "SMTPSampler.server",
    "MailReaderSampler": "host_name",
    "LDAPSampler": "servername",
    "LDAPExtSampler": "servername",
    "BoltSampler": None,
    "MongoScriptSampler": None,
    "JMSSampler": None,
    "PublisherSampler": None,
    "SubscriberSampler": None,
}
# JDBC: the sampler names a pool (dataSource) that a JDBC Connection Configuration defines with its URL; the grid
# retargets that URL ([target] protocol = "jdbc:<name>"), or keeps it when told to ([plan_options] jdbc = "keep").
JDBC_SAMPLERS = {"JDBCSampler"}
JDBC_POOL = "JDBCDataSource"
JDBC_DEFAULT_PORTS = {"jdbc:postgresql": 5432, "jdbc:mysql": 3306, "jdbc:mariadb": 3306, "jdbc:sqlserver": 1433,
                      "jdbc:db2": 50000, "jdbc:h2": 9092, "jdbc:derby": 1527}
SCRIPT_SAMPLERS = {"JSR223Sampler", "BeanShellSampler", "JavaSampler", "BSFSampler", "JUnitSampler"}
SAMPLERS = HTTP_SAMPLERS | JDBC_SAMPLERS | set(OTHER_HOST_SAMPLERS) | SCRIPT_SAMPLERS | {"DebugSampler", FLOW_CONTROL,
                                                                          "kg.apc.jmeter.samplers.DummySampler"}

CSV_DATA_SET = "CSVDataSet"
LISTENERS = {"ResultCollector", "BackendListener", "Summariser", "MailerResultCollector", "ResultSaver",
             "kg.apc.jmeter.vizualizers.CorrectedResultCollector", "kg.apc.jmeter.reporters.FlexibleFileWriter",
             "kg.apc.jmeter.reporters.AutoStop", "kg.apc.jmeter.reporters.ConsoleStatusLogger",
             "kg.apc.jmeter.perfmon.PerfMonCollector", "kg.apc.jmeter.jmxmon.JMXMonCollector",
             "kg.apc.jmeter.dbmon.DbMonCollector"}
TRANSACTION = "TransactionController"


def is_plugin(tag: str) -> bool:
    """Plugins are saved under their class name; JMeter's own elements under a short alias."""
    return "." in tag and not tag.startswith("org.apache.jmeter.")


def is_thread_group(tag: str) -> bool:
    return tag in (STANDARD_GROUP, SETUP_GROUP, TEARDOWN_GROUP, OPEN_MODEL_GROUP) or tag in PLUGIN_GROUPS \
        or tag.endswith("ThreadGroup")


def is_timer(tag: str) -> bool:
    return tag in THINK_TIMERS or tag in SCRIPTED_TIMERS or tag in PACING_TIMERS or tag.endswith("Timer")

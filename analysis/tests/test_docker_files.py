"""Static checks of docker/ (no Docker engine here): images build from files that exist, run unprivileged with a
health check, compose files reference real Dockerfiles and mounts, and the dashboard queries real metric names."""

import json
import re
from pathlib import Path

import pytest
import yaml  # PyYAML is a test extra (pyproject.toml): a missing one is a broken install, not a skip

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
COMPOSE_FILES = sorted(DOCKER.glob("compose-*.yml"))


def _instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_there_are_compose_files_for_distributed_jmeter_and_monitoring():
    names = {p.name for p in COMPOSE_FILES}
    assert {"compose-distributed.yml", "compose-monitoring.yml"} <= names


@pytest.mark.parametrize("dockerfile", sorted(DOCKER.glob("*.Dockerfile")), ids=lambda p: p.name)
def test_every_image_is_multi_stage_runs_unprivileged_and_copies_files_that_exist(dockerfile):
    steps = _instructions(dockerfile)
    froms = [a for i, a in steps if i == "FROM"]
    assert len(froms) >= 2, "multi-stage: build tools stay out of the runtime image"
    users = [a for i, a in steps if i == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0"), "the final stage runs as a non-root user"
    for instruction, args in steps:
        if instruction == "COPY" and "--from=" not in args:
            sources = [a for a in args.split() if not a.startswith("--")][:-1]
            for source in sources:
                assert list(ROOT.glob(source)), f"{dockerfile.name}: COPY {source}: nothing in the build context"


def test_the_server_image_exposes_8080_and_the_actuator_on_8081_where_it_checks_its_health():
    steps = _instructions(DOCKER / "server.Dockerfile")
    assert ("EXPOSE", "8080 8081") in steps
    assert ("ENV", "SERVER_PORT=8080 MANAGEMENT_SERVER_PORT=8081") in steps
    health = [a for i, a in steps if i == "HEALTHCHECK"]
    assert health and "${MANAGEMENT_SERVER_PORT}/actuator/health" in health[0]


@pytest.mark.parametrize("compose", COMPOSE_FILES, ids=lambda p: p.name)
def test_compose_services_build_from_real_dockerfiles_and_mount_real_files(compose):
    doc = yaml.safe_load(compose.read_text())
    services = doc["services"]
    assert services
    for name, service in services.items():
        build = service.get("build")
        if build:
            context = (compose.parent / build["context"]).resolve()
            assert (context / build["dockerfile"]).is_file(), f"{name}: {build['dockerfile']} missing"
        else:
            assert service.get("image"), f"{name}: neither build nor image"
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                target = (compose.parent / source).resolve()
                # ../reports is created by the run; everything else must be in the repository
                assert target.exists() or target.name == "reports", f"{name}: mount {source} does not exist"
        for dep in (service.get("depends_on") or {}):
            assert dep in services, f"{name} depends on unknown service {dep}"


def test_the_dashboard_queries_only_metrics_the_server_exposes():
    contract = (ROOT / "docs" / "contracts.md").read_text()
    exposed = set(re.findall(r"`(littlegrid_[a-z_]+|tomcat_[a-z_]+)", contract))
    dashboard = json.loads((DOCKER / "monitoring" / "grafana" / "dashboards" / "littlegrid.json").read_text())
    queried = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            queried |= set(re.findall(r"\b(littlegrid_[a-z_]+|tomcat_[a-z_]+)", target["expr"]))
    assert queried
    # a Prometheus timer's series are NAME_count/_sum; the contract names them NAME_count / _sum
    base = {re.sub(r"_(count|sum)$", "", m) for m in exposed}
    missing = {q for q in queried if q not in exposed and re.sub(r"_(count|sum)$", "", q) not in base}
    assert not missing, f"dashboard queries metrics the server does not expose: {sorted(missing)}"


def test_prometheus_scrapes_the_server_actuator_every_second():
    config = yaml.safe_load((DOCKER / "monitoring" / "prometheus.yml").read_text())
    job = config["scrape_configs"][0]
    assert job["metrics_path"] == "/actuator/prometheus"
    # on the management port, whose threads a saturated application pool cannot starve
    assert job["static_configs"][0]["targets"] == ["server:8081"]
    assert config["global"]["scrape_interval"] == "1s"


def test_distributed_compose_runs_rmi_over_ssl_with_one_keystore_at_the_path_the_grid_names():
    from littlegrid.run.grid_file import load_grid
    doc = yaml.safe_load((DOCKER / "compose-distributed.yml").read_text())
    grid = load_grid(DOCKER / "distributed.toml")
    assert grid.rmi.ssl and grid.rmi.keystore == Path("/run/secrets/rmi_keystore")
    assert "rmi_keystore" in doc["secrets"]
    for name in ("engine1", "engine2", "controller"):
        assert "rmi_keystore" in doc["services"][name]["secrets"], name  # compose mounts it at /run/secrets/
    entry = (DOCKER / "jmeter-entrypoint.sh").read_text()
    assert "/run/secrets/rmi_keystore" in entry
    # SSL off only when asked for: the one disabling line sits under RMI_SSL=false
    assert entry.count("server.rmi.ssl.disable=true") == 1 and 'if [ "${RMI_SSL:-true}" = "false" ]' in entry
    # users is the total N: 2 engines × 5..20 threads as before
    assert grid.axes["users"] == [10, 20, 40]

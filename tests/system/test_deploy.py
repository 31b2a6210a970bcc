"""The scale-out deployment, checked offline (no Docker engine, no cluster): both compose files
against the compose-spec JSON schema (vendored by check-jsonschema), the cluster compose file's
shape (Redis with AOF, three replicas sharing only Redis, nginx in front), ``deploy/nginx.conf``
by ``nginx -t``, and ``deploy/k8s/`` against the Kubernetes schemas (kubernetes-validate, which
bundles them) plus the links between the manifests that a schema cannot see."""

from __future__ import annotations

import json
import re
import subprocess
from importlib import resources
from pathlib import Path
from urllib.parse import urlparse

import jsonschema
import kubernetes_validate
import pytest
import yaml

from app.config import Settings
from tests.packages import require

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
CLUSTER_COMPOSE = ROOT / "docker-compose.cluster.yml"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
K8S = ROOT / "deploy" / "k8s"
K8S_VERSION = "1.37.0"
PORT = 8000
SETTINGS = {name.upper() for name in Settings.model_fields}


def compose_schema() -> dict:
    vendored = resources.files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json"
    return json.loads(vendored.read_text())


def load_yaml(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {str(k): str(v) for k, v in env.items()}


def probe_text(service: dict) -> str:
    test = (service.get("healthcheck") or {}).get("test")
    return " ".join(test) if isinstance(test, list) else str(test)


def volume_target(volume) -> str:
    target = volume["target"] if isinstance(volume, dict) else str(volume).split(":")[1]
    return target.rstrip("/")


def depends_on(service: dict) -> dict[str, str]:
    deps = service.get("depends_on") or {}
    if isinstance(deps, list):
        return {name: "service_started" for name in deps}
    return {name: spec.get("condition", "service_started") for name, spec in deps.items()}


# --- compose files ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", [COMPOSE, CLUSTER_COMPOSE], ids=lambda p: p.name)
def test_compose_file_matches_the_compose_spec(path):
    jsonschema.validate(load_yaml(path), compose_schema())


def test_compose_schema_rejects_a_misspelt_key():
    broken = load_yaml(CLUSTER_COMPOSE)
    broken["services"]["redis"]["healthchek"] = broken["services"]["redis"].pop("healthcheck")
    with pytest.raises(jsonschema.ValidationError, match="healthchek"):
        jsonschema.validate(broken, compose_schema())


@pytest.fixture(scope="module")
def cluster() -> dict:
    return load_yaml(CLUSTER_COMPOSE)["services"]


def replicas(services: dict) -> dict[str, dict]:
    return {
        name: s for name, s in services.items() if str(s.get("image", "")).startswith("gridpath")
    }


def test_cluster_runs_redis_7_with_aof_and_a_healthcheck(cluster):
    redis = cluster["redis"]
    assert re.fullmatch(r"redis:7(\.[\d.]+)?(-\w+)?", redis["image"]), redis["image"]
    command = redis["command"]
    command = command if isinstance(command, list) else command.split()
    assert command[command.index("--appendonly") + 1] == "yes", command
    assert any(volume_target(v) == "/data" for v in redis.get("volumes", [])), (
        "Redis keeps its AOF in the container: mount a volume at /data"
    )
    assert "redis-cli" in probe_text(redis) and "ping" in probe_text(redis)


def test_cluster_has_three_replicas_sharing_only_redis(cluster):
    gridpaths = replicas(cluster)
    assert len(gridpaths) == 3, sorted(gridpaths)
    for name, service in gridpaths.items():
        env = environment(service)
        store = urlparse(env.get("MAP_STORE", ""))
        assert store.scheme == "redis" and store.hostname == "redis", (name, env)
        assert set(env) <= SETTINGS, f"{name}: unknown settings {set(env) - SETTINGS}"
        assert not service.get("volumes"), f"{name} mounts {service['volumes']}: share only Redis"
        assert not service.get("ports"), f"{name} publishes ports: only nginx should"
        assert depends_on(service).get("redis") == "service_healthy", name
        assert "/health" in probe_text(service) and f":{PORT}/" in probe_text(service), name
        assert service["healthcheck"].get("start_period"), f"{name}: no start_period for warm-up"
        assert service.get("restart") == "unless-stopped", name


def test_cluster_puts_nginx_in_front_of_every_replica(cluster):
    nginx = cluster["nginx"]
    assert str(nginx["image"]).startswith("nginx:")
    assert nginx.get("ports"), "nginx publishes no port"
    mounts = [str(v).split(":") for v in nginx.get("volumes", [])]
    assert ["./deploy/nginx.conf", "/etc/nginx/nginx.conf", "ro"] in mounts, mounts
    deps = depends_on(nginx)
    assert {name: deps.get(name) for name in replicas(cluster)} == dict.fromkeys(
        replicas(cluster), "service_healthy"
    )
    assert nginx.get("healthcheck"), "nginx has no healthcheck"


# --- nginx -----------------------------------------------------------------------------------


def test_nginx_upstream_names_every_replica(cluster):
    text = NGINX_CONF.read_text()
    upstream = re.search(r"upstream\s+gridpath\s*\{(.*?)\}", text, re.S)
    assert upstream, "no `upstream gridpath` block"
    servers = set(re.findall(r"^\s*server\s+([\w.-]+:\d+)", upstream.group(1), re.M))
    assert servers == {f"{name}:{PORT}" for name in replicas(cluster)}, servers
    assert re.search(r"proxy_pass\s+http://gridpath;", text)
    assert re.search(r"proxy_set_header\s+X-Request-ID\s+\$\w+;", text), "X-Request-ID not passed"


def test_nginx_accepts_the_largest_upload():
    size = re.search(r"client_max_body_size\s+(\d+)([km]?);", NGINX_CONF.read_text())
    assert size, "no client_max_body_size: nginx's 1 MB default would refuse map uploads"
    limit = int(size.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[size.group(2)]
    assert limit >= Settings().max_upload_bytes


def run_nginx_t(conf: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    (binary,) = require("nginx")
    # The replicas' names resolve only on the compose network: point them at loopback.
    local = tmp_path / "nginx.conf"
    local.write_text(re.sub(r"gridpath-\d+:", "127.0.0.1:", conf.read_text()))
    return subprocess.run(
        [binary, "-t", "-q", "-e", "stderr", "-p", str(tmp_path), "-c", str(local)],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_nginx_config_passes_nginx_t(tmp_path):
    run = run_nginx_t(NGINX_CONF, tmp_path)
    assert run.returncode == 0, run.stderr


def test_nginx_t_rejects_a_broken_config(tmp_path):
    broken = tmp_path / "broken.conf"
    broken.write_text(NGINX_CONF.read_text().replace("proxy_pass", "proxy_passs", 1))
    run = run_nginx_t(broken, tmp_path)
    assert run.returncode != 0 and "proxy_passs" in run.stderr


# --- Kubernetes ------------------------------------------------------------------------------


def k8s_documents() -> list[tuple[str, dict]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [(path.name, doc) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return docs


def k8s(kind: str, name: str) -> dict:
    found = [d for _, d in k8s_documents() if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"{len(found)} {kind}/{name} in deploy/k8s"
    return found[0]


@pytest.mark.parametrize(
    "doc", [d for _, d in k8s_documents()], ids=[f"{f}:{d['kind']}" for f, d in k8s_documents()]
)
def test_manifest_matches_the_kubernetes_schema(doc):
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_kubernetes_schema_rejects_a_misspelt_field():
    deployment = k8s("Deployment", "gridpath")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinesProbe"] = container.pop("readinessProbe")
    with pytest.raises(kubernetes_validate.ValidationError, match="readinesProbe"):
        kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)


def test_kustomization_lists_every_manifest():
    listed = set(load_yaml(K8S / "kustomization.yaml")["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk


@pytest.fixture(scope="module")
def pod() -> dict:
    return k8s("Deployment", "gridpath")["spec"]["template"]


@pytest.fixture(scope="module")
def container(pod) -> dict:
    (gridpath,) = pod["spec"]["containers"]
    return gridpath


def test_deployment_probes_health_on_the_served_port(container):
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports.get("http") == PORT
    command = container.get("command", [])
    assert command[command.index("--port") + 1] == str(PORT), command
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] == "/health" and get["port"] in ("http", PORT), (probe, get)
    startup = container["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 120, (
        "the startup probe must allow a cold numba compile (minutes)"
    )


def test_deployment_limits_resources_and_matches_search_threads(container):
    resources_ = container["resources"]
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(resources_[kind]), (kind, resources_)
    settings = k8s("ConfigMap", "gridpath-settings")["data"]
    assert int(settings["SEARCH_THREADS"]) == int(resources_["limits"]["cpu"]), (
        "SEARCH_THREADS should match the CPU limit (the CPU count ignores limits)"
    )


def test_deployment_terminates_gracefully(pod, container):
    sleep = container["lifecycle"]["preStop"]["exec"]["command"]
    assert sleep[0] == "sleep", sleep
    command = container["command"]
    graceful = int(command[command.index("--timeout-graceful-shutdown") + 1])
    assert pod["spec"]["terminationGracePeriodSeconds"] > int(sleep[1]) + graceful


def test_deployment_reads_settings_and_token_secrets(container):
    (source,) = container["envFrom"]
    settings = k8s("ConfigMap", source["configMapRef"]["name"])["data"]
    assert set(settings) <= SETTINGS, f"unknown settings {set(settings) - SETTINGS}"
    tokens = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in container["env"]}
    assert set(tokens) == {"ADMIN_TOKEN", "API_TOKEN"}
    assert all(ref["name"] == "gridpath-tokens" for ref in tokens.values())
    assert not any(e.get("value") for e in container["env"]), "a token in plain text"


def test_configmap_store_is_the_redis_service():
    store = urlparse(k8s("ConfigMap", "gridpath-settings")["data"]["MAP_STORE"])
    assert store.scheme == "redis"
    service = k8s("Service", store.hostname)
    assert store.port in {p["port"] for p in service["spec"]["ports"]}
    statefulset = k8s("StatefulSet", store.hostname)
    assert statefulset["spec"]["serviceName"] == store.hostname
    labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()


def test_redis_statefulset_persists_an_append_only_file():
    statefulset = k8s("StatefulSet", "gridpath-redis")
    (redis,) = statefulset["spec"]["template"]["spec"]["containers"]
    assert redis["image"].startswith("redis:7")
    args = redis["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    data_dir = args[args.index("--dir") + 1]
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    mounts = {m["name"]: m["mountPath"] for m in redis["volumeMounts"]}
    assert mounts[claim["metadata"]["name"]] == data_dir
    assert redis.get("readinessProbe") and redis.get("resources")


def test_service_selects_the_pods(pod):
    service = k8s("Service", "gridpath")
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= {"http", PORT}


def test_autoscaler_scales_the_deployment_on_cpu():
    hpa = k8s("HorizontalPodAutoscaler", "gridpath")
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", "gridpath")
    (metric,) = hpa["spec"]["metrics"]
    assert metric["type"] == "Resource" and metric["resource"]["name"] == "cpu"
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]

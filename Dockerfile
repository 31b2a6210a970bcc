# gridpath: the pathfinding service in a container.
#
#   docker build -t gridpath .
#   docker run --rm -p 8000:8000 gridpath          # or: docker compose up
#
# Layers, from least to most often changed: the dependencies (from pyproject.toml only), the
# package itself, the numba warm-up (compiled kernels kept in NUMBA_CACHE_DIR), then the maps.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    MAPS_DIR=/app/maps \
    NUMBA_CACHE_DIR=/app/.numba-cache \
    LOG_FORMAT=json

# The service runs as this unprivileged user; a numeric USER below lets orchestrators
# (e.g. Kubernetes runAsNonRoot) verify that without looking the name up.
RUN groupadd --system --gid 10001 gridpath \
    && useradd --system --uid 10001 --gid gridpath --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin gridpath

WORKDIR /app

# Dependency layer: rebuilt only when pyproject.toml or requirements.lock changes, not on
# every code change. The list is read from pyproject.toml itself (build-system requires +
# project dependencies), the versions from requirements.lock (`make lock`), as CI installs.
COPY pyproject.toml requirements.lock /tmp/src/
RUN python -c "import tomllib; p = tomllib.load(open('/tmp/src/pyproject.toml', 'rb')); print('\n'.join(p['build-system']['requires'] + p['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -c /tmp/src/requirements.lock -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# The package itself, installed (not editable) into site-packages; its dependencies and build
# backend are already there, so this step needs no network. The source is removed after, so
# the code runs from site-packages and /app holds only the maps and the kernel cache.
COPY README.md /tmp/src/
COPY gridpath /tmp/src/gridpath
COPY app /tmp/src/app
RUN pip install --no-deps --no-build-isolation /tmp/src \
    && rm -rf /tmp/src \
    && install -d -o gridpath -g gridpath /app/.numba-cache

USER 10001:10001

# Compile the numba kernels now, as the user that serves, into NUMBA_CACHE_DIR, so a new
# container loads them from disk instead of paying the JIT at start-up. numba keys its cache
# on the CPU: on a host whose CPU differs from the build machine's, the first start compiles
# again (the cache stays writable, so only once per container).
RUN python -m gridpath.search.warmup

# The maps come last: changing a map does not redo the warm-up. docker-compose.yml mounts the
# host's ./maps over this folder instead.
COPY maps /app/maps

# The commit in /health and gridpath_build_info: docker build --build-arg GIT_COMMIT=$(git rev-parse HEAD)
# (last, so a new commit rebuilds no other layer).
ARG GIT_COMMIT=unknown
ENV GIT_COMMIT=${GIT_COMMIT}

EXPOSE 8000

# Ready (200) once the maps are loaded and the kernels of the common queries warm; /health
# answers 503 before, which urllib raises as an error, so the probe fails until then. The
# image starts warm; on a host whose CPU differs from the build machine's numba compiles
# again: the serving kernels take about a minute on a loaded 2-core machine (the rest compile
# after, in the background), so the start period allows 180 s, as deploy/k8s's startupProbe.
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]

# One process. `--workers N` runs N processes instead, each loading its own copy of every map
# (memory grows N times) and each with its own SEARCH_THREADS searches at once; then set
# PROMETHEUS_MULTIPROC_DIR (e.g. /tmp/gridpath-metrics) so /metrics sums the workers.
# `python -m app` is `uvicorn app.main:app` that exits 0 after a graceful stop: on SIGTERM it
# stops accepting and lets in-flight requests finish for up to 25 s (below the 30 s that
# Kubernetes and the compose file give before SIGKILL).
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000", "--timeout-graceful-shutdown", "25"]

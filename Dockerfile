# The table companion's image: Debian's Python, the wheel and its pinned requirements from PyPI,
# served as `make run` serves it (gunicorn's workers), as a user without rights, the instance
# folder on a volume. Build with the Docker format (`podman build --format docker`): OCI's
# format has no HEALTHCHECK. Behind a proxy that signs TLS with its own authority, give pip that
# authority: `-v /etc/ssl/certs/ca-certificates.crt:/run/ca.crt:ro --build-arg CA_BUNDLE=/run/ca.crt`.
FROM debian:bookworm-slim AS build
ARG CA_BUNDLE
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py requirements.txt ./
COPY companion companion
COPY templates templates
COPY static static
COPY translations translations
COPY migrations migrations
RUN if [ -n "$CA_BUNDLE" ]; then export PIP_CERT="$CA_BUNDLE"; fi \
    && python3 -m venv /opt/build && /opt/build/bin/pip wheel --quiet --no-deps --wheel-dir /wheels .

FROM debian:bookworm-slim
ARG CA_BUNDLE
# postgresql-client: pg_dump and pg_restore for `table-companion backup` and `restore`.
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv postgresql-client \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --no-create-home companion \
    && mkdir /data && chown companion /data
COPY requirements.txt /tmp/requirements.txt
RUN if [ -n "$CA_BUNDLE" ]; then export PIP_CERT="$CA_BUNDLE"; fi \
    && python3 -m venv /opt/companion \
    && /opt/companion/bin/pip install --quiet --no-cache-dir --disable-pip-version-check -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt
COPY --from=build /wheels /wheels
RUN /opt/companion/bin/pip install --quiet --no-cache-dir --no-deps /wheels/*.whl && rm -rf /wheels
ENV PATH=/opt/companion/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    COMPANION_INSTANCE=/data \
    PORT=8000 \
    ACCESS_LOG=1 \
    BEHIND_PROXY=1
VOLUME /data
USER companion
WORKDIR /data
EXPOSE 8000
# The health endpoint asks the database; gunicorn stops on SIGTERM once the requests under way are answered.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ['PORT'] + '/healthz', timeout=4)"]
STOPSIGNAL SIGTERM
CMD ["table-companion", "serve"]

# LexSpec app image (also runs the embedded CPU server: `lexspec serve`).
# Installs exactly as scripts/install.sh does: a venv in .venv, llama-cpp-python compiled from
# source, then the package itself. The build stage keeps the compilers out of the final image.
FROM python:3.11-slim-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake git \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN scripts/install.sh

FROM python:3.11-slim-bookworm
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 1000 lexspec \
    && mkdir -p /data /corpus \
    && chown lexspec:lexspec /data /corpus
WORKDIR /app
COPY --from=build --chown=lexspec:lexspec /app /app
ENV PATH="/app/.venv/bin:${PATH}" \
    PYTHONUNBUFFERED=1 \
    LEXSPEC_DATA_DIR=/data
USER lexspec
EXPOSE 8501 8001
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s \
    CMD python -c "import urllib.request as u; u.urlopen('http://localhost:8501/_stcore/health', timeout=4)" || exit 1
CMD ["sh", "-c", "lexspec db upgrade && exec streamlit run app/web.py --server.address 0.0.0.0 --server.port 8501 --server.headless true --browser.gatherUsageStats false"]

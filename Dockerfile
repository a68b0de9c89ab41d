# Multi-stage: a release build, then a slim runtime as a non-root user.
FROM rust:1.95-bookworm AS build
WORKDIR /src
# Dependencies first, in a layer of their own that is rebuilt only when the
# manifests change: every target is stubbed, so the build compiles the
# dependencies and nothing of ours.
COPY Cargo.toml Cargo.lock ./
COPY migrations/Cargo.toml migrations/
# A dependency carried with a patch is a dependency: built in this layer too.
COPY vendor vendor
RUN mkdir -p src migrations/src benches/load tests/api \
    && for f in src/main.rs benches/engines.rs benches/bots.rs benches/load/main.rs tests/api/main.rs; do \
         echo 'fn main() {}' > "$f"; done \
    && touch src/lib.rs migrations/src/lib.rs \
    && cargo build --release --locked --bin sealed-orders \
    && rm -rf src migrations/src benches tests \
         target/release/.fingerprint/sealed-orders-* target/release/deps/sealed_orders-* \
         target/release/deps/libsealed_orders-* target/release/deps/libmigration-* \
         target/release/sealed-orders
# Then our code (the stubs' fingerprints are gone, so all of it is built).
COPY . .
RUN cargo build --release --locked --bin sealed-orders

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home /app sealed
COPY --from=build /src/target/release/sealed-orders /usr/local/bin/sealed-orders
WORKDIR /app
RUN chown sealed /app
USER sealed
ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080
# `sealed-orders healthcheck` asks the local /readyz (the database answers).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/sealed-orders", "healthcheck"]
CMD ["/usr/local/bin/sealed-orders"]

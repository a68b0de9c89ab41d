# Multi-stage: a release build, then a slim runtime as a non-root user.
FROM rust:1.95-bookworm AS build
WORKDIR /src
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
CMD ["/usr/local/bin/sealed-orders"]

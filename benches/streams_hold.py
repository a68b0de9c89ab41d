#!/usr/bin/env python3
"""Holds event streams open against a running server, for benches/memory.sh.

    benches/streams_hold.py BASE_URL STREAMS SLOW

Registers a player, who opens MATCHES waiting matches of four seats (a waiting
match's stream stays open, as an active one's does); then opens STREAMS
anonymous match streams (`GET /api/v1/matches/{id}/events`, `Accept:
text/event-stream`) spread over them; SLOW of them never read past their
response head, the rest read whatever comes. Prints
`OPEN <open> FAILED <failed> FRAMES <frames read so far>` once every stream was
tried, then holds them until a line (or the end) comes on standard input, and
closes them all.
"""

import asyncio
import json
import sys
import urllib.parse
import urllib.request
import uuid

CONCURRENT_OPENS = 200
MATCHES = 100


def post(base, path, body, token=None):
    req = urllib.request.Request(
        f"{base}/api/v1{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    if token:
        req.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def waiting_matches(base, count):
    login = {"name": f"holder-{uuid.uuid4().hex[:8]}", "password": "password1"}
    post(base, "/players", login)
    token = post(base, "/auth/token", login)["access_token"]
    return [
        post(base, "/matches", {"game": "malacca", "seats": 4}, token)["id"]
        for _ in range(count)
    ]


async def hold(host, port, path, slow, gate, counts, stop):
    async with gate:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                "Accept: text/event-stream\r\n\r\n".encode()
            )
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            counts["failed"] += 1
            return
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        counts["failed"] += 1
        writer.close()
        return
    counts["open"] += 1
    try:
        if slow:
            await stop.wait()
        else:
            reading = asyncio.ensure_future(reader.read(65536))
            stopping = asyncio.ensure_future(stop.wait())
            while True:
                done, _ = await asyncio.wait(
                    {reading, stopping}, return_when=asyncio.FIRST_COMPLETED
                )
                if stopping in done:
                    reading.cancel()
                    break
                chunk = reading.result()
                if not chunk:
                    stopping.cancel()
                    break
                counts["frames"] += chunk.count(b"\n\n")
                reading = asyncio.ensure_future(reader.read(65536))
    finally:
        writer.close()


async def main():
    base, streams, slow = sys.argv[1].rstrip("/"), int(sys.argv[2]), int(sys.argv[3])
    url = urllib.parse.urlparse(base)
    ids = waiting_matches(base, MATCHES)
    gate = asyncio.Semaphore(CONCURRENT_OPENS)
    counts = {"open": 0, "failed": 0, "frames": 0}
    stop = asyncio.Event()
    tasks = [
        asyncio.ensure_future(
            hold(
                url.hostname,
                url.port,
                f"/api/v1/matches/{ids[i % len(ids)]}/events",
                i < slow,
                gate,
                counts,
                stop,
            )
        )
        for i in range(streams)
    ]
    while counts["open"] + counts["failed"] < streams:
        await asyncio.sleep(0.1)
    # The first frames (each match's events so far) reach the readers.
    await asyncio.sleep(2)
    print(f"OPEN {counts['open']} FAILED {counts['failed']} FRAMES {counts['frames']}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)


if __name__ == "__main__":
    asyncio.run(main())

#!/usr/bin/env python3
"""Holds event streams open against a running server, for benches/memory.sh.

    benches/streams_hold.py BASE_URL STREAMS SLOW

Opens STREAMS anonymous match streams (`GET /api/v1/matches/{id}/events`,
`Accept: text/event-stream`), spread over the server's active matches; SLOW of
them never read past their response head, the rest read whatever comes. Prints
`OPEN <open> FAILED <failed> FRAMES <frames read so far>` once every stream was
tried, then holds them until a line (or the end) comes on standard input, and
closes them all.
"""

import asyncio
import json
import sys
import urllib.parse
import urllib.request

CONCURRENT_OPENS = 200


def active_matches(base, wanted):
    ids, cursor = [], None
    while len(ids) < wanted:
        query = {"status": "active", "limit": "200"}
        if cursor:
            query["cursor"] = cursor
        url = f"{base}/api/v1/matches?{urllib.parse.urlencode(query)}"
        with urllib.request.urlopen(url) as r:
            page = json.load(r)
        ids += [m["id"] for m in page["items"]]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    return ids


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
    ids = active_matches(base, streams)
    if not ids:
        sys.exit("no active matches to stream")
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

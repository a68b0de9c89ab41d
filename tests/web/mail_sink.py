#!/usr/bin/env python3
"""A local SMTP sink for the browser tests (the standard library only).

    python tests/web/mail_sink.py PORT DIRECTORY

Accepts every message (EHLO/HELO, MAIL, RCPT, DATA with dot-stuffing, RSET,
NOOP, QUIT) and writes each, as received, to DIRECTORY/<n>.eml, where the
tests read the mailed links. Never relays anything.
"""

import asyncio
import sys
from pathlib import Path

PORT = int(sys.argv[1])
OUT = Path(sys.argv[2])
OUT.mkdir(parents=True, exist_ok=True)
count = 0


async def serve(reader, writer):
    global count
    writer.write(b"220 sink ESMTP\r\n")
    while True:
        line = await reader.readline()
        if not line:
            break
        verb = line[:4].upper()
        if verb == b"EHLO":
            writer.write(b"250-sink\r\n250 8BITMIME\r\n")
        elif verb == b"DATA":
            writer.write(b"354 go on\r\n")
            await writer.drain()
            raw = bytearray()
            while True:
                data = await reader.readline()
                if not data or data == b".\r\n":
                    break
                raw += data[1:] if data.startswith(b".") else data
            count += 1
            (OUT / f"{count:04}.eml").write_bytes(bytes(raw))
            writer.write(b"250 queued\r\n")
        elif verb == b"QUIT":
            writer.write(b"221 bye\r\n")
            await writer.drain()
            break
        else:
            writer.write(b"250 ok\r\n")
        await writer.drain()
    writer.close()


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", PORT)
    async with server:
        await server.serve_forever()


asyncio.run(main())

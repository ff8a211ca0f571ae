"""A WebSocket server nobody at Courier wrote: Python's `websockets` (RFC 6455), for
WebSocketPythonServerTests. Listens on 127.0.0.1 with an ephemeral port, prints the port,
and exits when its standard input closes (the test process ended).

Its one argument is how it compresses (RFC 7692 permessage-deflate, when the client offers it):
  deflate              websockets' default: a window kept across messages (context takeover)
  no-context-takeover  each message compressed on its own
  none                 no compression

Paths:
  /echo          every message back as it came (text or binary)
  /fragments     a text message in three fragments and a binary one in two, then echo
  /close/<code>  closes at once with <code> and the reason "bye from python"
  /big/<bytes>   sends one binary message of <bytes> zero bytes (compressed, a deflate bomb
                 of about <bytes>/1000 bytes on the wire), then echo
  /auth          like /echo, but only with `Authorization: Bearer fresh`; else 401
The server refuses client messages over 1 MiB with close code 1009 (its max_size).
"""

import asyncio
import sys
from http import HTTPStatus

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

LIMIT = 1 << 20


async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def handler(ws):
    try:
        await serve_path(ws)
    except ConnectionClosed:
        pass  # the client closed or failed the connection: what several tests do on purpose


async def serve_path(ws):
    path = ws.request.path
    if path in ("/echo", "/auth"):
        await echo(ws)
    elif path == "/fragments":
        await ws.send(["frag", "ment", "ed"])
        await ws.send([b"\x01\x02", b"\x03"])
        await echo(ws)
    elif path.startswith("/close/"):
        await ws.close(int(path.split("/")[2]), "bye from python")
    elif path.startswith("/big/"):
        await ws.send(bytes(int(path.split("/")[2])))
        await echo(ws)
    else:
        await ws.close(1008, "unknown path")


def process_request(connection, request):
    if request.path == "/auth" and request.headers.get("Authorization") != "Bearer fresh":
        return connection.respond(HTTPStatus.UNAUTHORIZED, "the access token expired\n")
    return None


async def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "deflate"
    compression = {
        "deflate": dict(compression="deflate"),
        "no-context-takeover": dict(compression=None, extensions=[ServerPerMessageDeflateFactory(server_no_context_takeover=True)]),
        "none": dict(compression=None),
    }[mode]
    async with serve(handler, "127.0.0.1", 0, process_request=process_request, max_size=LIMIT, ping_interval=None, **compression) as server:
        port = server.sockets[0].getsockname()[1]
        print(port, flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.read)


asyncio.run(main())

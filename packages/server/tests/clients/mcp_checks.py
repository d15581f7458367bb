"""The official MCP Python SDK (`mcp` from PyPI) against a Kindgi MCP endpoint.

Usage: mcp_checks.py <case> <url> <token> [mode]. Each case prints one JSON line with what it saw and
exits 0; any failure raises (a traceback, exit 1). The Node test decides what is right.
"""

import asyncio
import json
import sys
import time

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


def client_for(url: str, token: str, mode: str) -> Client:
    # The SDK's documented way to send headers: an httpx2 client of one's own (its timeouts, as the SDK's own).
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=300))
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def list_all(client: Client) -> dict:
    names, pages, cursor = [], 0, None
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="bypass") if cursor else await client.list_tools(cache_mode="bypass")
        pages += 1
        names += [tool.name for tool in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            break
    return {"names": names, "pages": pages}


async def case_list(url: str, token: str, mode: str) -> dict:
    async with client_for(url, token, mode) as client:
        listed = await list_all(client)
        tools = (await client.list_tools(cache_mode="bypass")).tools
        first = tools[0]
        listed["first"] = {
            "name": first.name,
            "inputSchema": first.input_schema,
            "outputSchema": first.output_schema,
            "readOnlyHint": first.annotations.read_only_hint if first.annotations else None,
        }
        listed["protocolVersion"] = client.protocol_version
        return listed


async def case_call(url: str, token: str, mode: str, name: str, arguments: str) -> dict:
    async with client_for(url, token, mode) as client:
        await client.list_tools()
        result = await client.call_tool(name, json.loads(arguments))
        return {"isError": bool(result.is_error), "structured": result.structured_content, "text": text_of(result)}


async def case_unknown(url: str, token: str, mode: str) -> dict:
    async with client_for(url, token, mode) as client:
        try:
            await client.call_tool("acme.no-such-tool", {})
        except Exception as error:  # the SDK's error for a JSON-RPC error answer
            return {"raised": type(error).__name__, "code": getattr(getattr(error, "error", None), "code", None)}
        return {"raised": None}


async def case_cancel(url: str, token: str, mode: str, name: str, arguments: str) -> dict:
    async with client_for(url, token, mode) as client:
        await client.list_tools()
        started = time.time()
        try:
            await asyncio.wait_for(client.call_tool(name, json.loads(arguments)), timeout=1.0)
        except (asyncio.TimeoutError, TimeoutError):
            return {"cancelledAt": time.time() * 1000, "waitedMs": (time.time() - started) * 1000}
        return {"cancelledAt": None}


async def case_unauthorized(url: str, token: str, mode: str) -> dict:
    # The SDK turns an HTTP error into a generic one; the status is what must say what happened.
    async with httpx2.AsyncClient() as http:
        response = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                   headers={"accept": "application/json, text/event-stream"})
        return {"status": response.status_code, "challenge": response.headers.get("www-authenticate")}


CASES = {
    "list": case_list,
    "call": case_call,
    "unknown": case_unknown,
    "cancel": case_cancel,
    "unauthorized": case_unauthorized,
}

if __name__ == "__main__":
    case, url, token, mode, *rest = sys.argv[1:]
    print(json.dumps(asyncio.run(CASES[case](url, token, mode, *rest))))

"""The pack service's parts that need no process: the command line, the settings, request parsing,
schema issues in Ajv's shape, the env filter's names."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kindgi.pack.serving.argv import read_argv
from kindgi.pack.serving.platform_env import missing_env, undeclared_env
from kindgi.pack.serving.settings import read_config
from kindgi.pack.serving.validation import compiled
from kindgi.pack.serving.wire import WireError, parse_request


def test_argv_keeps_the_published_rules() -> None:
    read = read_argv(["--index", "a.json", "--host=127.0.0.1", "--module-root", "--token-fd", "3", "-x"])
    assert read.values == {"index": "a.json", "host": "127.0.0.1", "token-fd": "3"}
    assert read.problems == ["--module-root needs a directory", 'Unknown argument "-x"']
    assert read.first == ("unknown", 'Unknown argument "-x"')
    assert read_argv(["--version", "--help"]).first == ("version", "")


def test_settings_list_every_problem_at_once() -> None:
    config, problems = read_config([], {"PORT": "eighty", "KINDGI_PACK_ENV_CHECK": "loose"})
    assert config is None
    assert problems == [
        'PORT must be a port number, got "eighty"',
        "KINDGI_PACK_SERVICE_TOKEN is required",
        'KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "loose"',
    ]


def test_settings_read_the_token_from_a_descriptor_and_close_it(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"secret-token\n")
    os.close(write_end)
    config, problems = read_config(["--token-fd", str(read_end), "--index", "x/index.json"], {}, tmp_path)
    assert problems == []
    assert config is not None
    assert (config.token, config.token_source, config.port) == ("secret-token", "fd", 8080)
    assert config.module_root == tmp_path / "x"
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.close(read_end)


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (b'{"v":2,', "malformed-message", "Request body is not valid JSON"),
        (b"[1]", "malformed-message", "Message must be a JSON object"),
        (b'{"kind":"invoke"}', "unknown-protocol-version", "Expected protocol v2, got undefined"),
        (b'{"v":2,"kind":"run"}', "unexpected-message-kind", 'Unknown request kind "run"'),
        (b'{"v":2,"kind":"invoke","tool":{},"input":{},"ctx":{}}', "malformed-message", "`tool.id` is required"),
        (
            b'{"v":2,"kind":"check-invoke","check":{"id":"x"},"config":[],"trace":{}}',
            "malformed-message",
            "`config` must be an object",
        ),
    ],
)
def test_requests_are_checked_in_the_published_order(body: bytes, code: str, message: str) -> None:
    with pytest.raises(WireError) as raised:
        parse_request(body)
    assert raised.value.message == {"v": 2, "kind": "error", "code": code, "message": message}


def test_a_request_nested_past_256_levels_is_malformed() -> None:
    deep = json.dumps(
        {
            "v": 2,
            "kind": "invoke",
            "tool": {"id": "t"},
            "ctx": {"tenantId": "t", "runId": "r"},
            "input": json.loads("[" * 300 + "]" * 300),
        }
    )
    with pytest.raises(WireError) as raised:
        parse_request(deep.encode())
    assert raised.value.message["message"] == "Message nests arrays and objects deeper than 256 levels"


def test_issues_take_ajv_shape_and_defaults_fill_nested_objects() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "options": {"type": "object", "properties": {"count": {"type": "integer", "default": 1}}, "default": {}},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    value: dict[str, object] = {"extra": True}
    issues = compiled(schema).validate(value, fill_defaults=True)
    assert value["options"] == {"count": 1}
    assert {
        "instancePath": "",
        "schemaPath": "#/required",
        "keyword": "required",
        "params": {"missingProperty": "name"},
        "message": "must have required property 'name'",
    } in issues
    assert any(
        i["keyword"] == "additionalProperties" and i["params"] == {"additionalProperty": "extra"} for i in issues
    )
    assert compiled(schema).validate({"name": ""}, fill_defaults=False)[0]["message"] == (
        "must NOT have fewer than 1 characters"
    )


def test_the_env_filter_keeps_declared_kindgi_and_platform_names() -> None:
    env = {"A": "1", "SECRET": "x", "KINDGI_X": "k", "PATH": "/bin", "LC_ALL": "C", "PYTHONPATH": "p", "REQ": ""}
    declaration = {"required": ["REQ"], "optional": ["A"]}
    assert undeclared_env(declaration, env) == ["SECRET"]
    assert missing_env(declaration, env) == ["REQ"]

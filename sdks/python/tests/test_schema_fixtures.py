"""Shared schema fixtures: the Python SDK's schemas equal the TypeScript SDK's (Zod, converted live by
node with @kindgi/protocol's settings) and the Java SDK's (the text its SchemaDerivationTest asserts)."""

from __future__ import annotations

import enum
import json
import re
import shutil
import subprocess
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from conftest import FIXTURES, REPO
from kindgi.pack.schemas import slot_from

CASES = json.loads((FIXTURES / "shared-schemas.json").read_text(encoding="utf-8"))["cases"]
JAVA_TEST = REPO / "sdks/java/kindgi-pack/src/test/java/com/kindgi/pack/SchemaDerivationTest.java"


class VerifyCitationInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    citation: str = Field(min_length=1)
    jurisdiction: str = Field(pattern=r"^(US|UK|EU)$")


class VerifyCitationOutput(BaseModel):
    found: bool
    canonicalCite: str | None = None  # noqa: N815 - the wire name


class CitationsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    minLookups: int = Field(default=1, ge=0)  # noqa: N815 - the wire name


class Color(enum.Enum):
    RED = "red"
    DARK_GREEN = "dark-green"


class Inner(BaseModel):
    name: str = Field(description="Who")


class Collections(BaseModel):
    tags: list[str] = Field(min_length=1, max_length=5)
    color: Color
    note: str | None = None
    inner: Inner


MODELS: dict[str, type[BaseModel]] = {
    "verify-citation-input": VerifyCitationInput,
    "verify-citation-output": VerifyCitationOutput,
    "citations-config": CitationsConfig,
    "collections-and-enums": Collections,
}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_python_schema_equals_the_fixture(case: dict[str, Any]) -> None:
    assert slot_from(MODELS[case["name"]], case["side"]).schema == case["expected"]


@pytest.mark.parametrize("case", [c for c in CASES if "java" in c], ids=[c["name"] for c in CASES if "java" in c])
def test_java_asserts_the_same_schema(case: dict[str, Any]) -> None:
    assert json.loads(case["java"]) == case["expected"]
    # The Java test writes each expected schema as concatenated string literals: join them back.
    source = re.sub(r'"\s*\+\s*"', "", JAVA_TEST.read_text(encoding="utf-8"))
    assert json.dumps(case["java"])[1:-1] in source


def test_zod_converts_to_the_same_schemas() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to convert the Zod fixtures")
    zod_cases = [c for c in CASES if "zod" in c]
    # The same options as @kindgi/protocol's toJSONSchemaSync; run from packages/protocol to resolve zod.
    script = (
        "import { z } from 'zod';\nconst out = {};\n"
        + "".join(
            f"out[{json.dumps(c['name'])}] = z.toJSONSchema({c['zod']}, {{ io: {json.dumps(c['side'])}, "
            "target: 'draft-2020-12', unrepresentable: 'any' });\n"
            for c in zod_cases
        )
        + "for (const v of Object.values(out)) delete v.$schema;\nprocess.stdout.write(JSON.stringify(out));\n"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        cwd=REPO / "packages" / "protocol",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    converted = json.loads(done.stdout)
    for case in zod_cases:
        assert converted[case["name"]] == case["expected"], case["name"]

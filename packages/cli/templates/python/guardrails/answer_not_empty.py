import json
from typing import Any

from kindgi.pack import CheckResult, RunTrace, define_guardrail


def _answer_text(trace: RunTrace) -> str:
    output = trace.output
    return output if isinstance(output, str) else json.dumps(output if output is not None else "")


def _evaluate(config: dict[str, Any], trace: RunTrace) -> CheckResult:
    length = len(_answer_text(trace).strip())
    minimum = config.get("minLength", 1)
    if length >= minimum:
        return CheckResult.ok()
    return CheckResult.fail(f"The answer has {length} character(s); at least {minimum} needed")


# A sample guardrail: an agent's answer must say something. Replace it with the rule your agents need.
answer_not_empty = define_guardrail(
    id="__PACK_ID__.answer-not-empty",
    name="Answers are not empty",
    on_violation="halt",
    severity="error",
    config_schema={
        "type": "object",
        "properties": {"minLength": {"type": "integer", "minimum": 1, "default": 1}},
        "additionalProperties": False,
    },
    config={"minLength": 1},
    check_id="__PACK_ID__.checks.answer-not-empty",
    check=_evaluate,
)

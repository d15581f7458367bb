from guardrails.answer_not_empty import answer_not_empty
from tools.greet import GreetInput, greet

from kindgi.pack import Cancellation, CheckContext, RunTrace, ToolContext, ToolLogger


def _context() -> ToolContext:
    return ToolContext(
        tenant_id="t-test",
        run_id="run-test",
        cancellation=Cancellation(),
        log=ToolLogger(lambda level, message, fields: None),
    )


def test_greets_by_name() -> None:
    output = greet.invoke(GreetInput(name="Ada", greeting="Hi"), _context())
    assert greet.convert_output(output) == {"message": "Hi, Ada!"}


def test_refuses_an_empty_answer_and_passes_one_that_says_something() -> None:
    ctx = CheckContext(cancellation=Cancellation())
    empty = answer_not_empty.evaluate({"minLength": 1}, RunTrace({"output": "  "}), ctx)
    said = answer_not_empty.evaluate({"minLength": 1}, RunTrace({"output": "Hello"}), ctx)
    assert answer_not_empty.convert_result(empty)["passed"] is False
    assert answer_not_empty.convert_result(said)["passed"] is True

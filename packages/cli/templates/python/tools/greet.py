from pydantic import BaseModel, Field

from kindgi.pack import ToolContext, define_tool


class GreetInput(BaseModel):
    name: str = Field(min_length=1, max_length=200, description="Who to greet")
    greeting: str = Field(default="Hello", min_length=1, max_length=50, description="The word to greet with")


class GreetOutput(BaseModel):
    message: str


def _greet(value: GreetInput, ctx: ToolContext) -> GreetOutput:
    ctx.log.debug("greeting", {"name": value.name})
    return GreetOutput(message=f"{value.greeting}, {value.name}!")


# A sample tool: replace it with one that does what your agents need.
greet = define_tool(
    id="__PACK_ID__.greet",
    description="Greets someone by name and returns the greeting.",
    # Read-only: it changes nothing outside itself, so a dry run may call it.
    mutating=False,
    handler=_greet,
)

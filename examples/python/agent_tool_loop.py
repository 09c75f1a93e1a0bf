"""An agent's code tool: the model writes Python, a sandbox runs it, the
result goes back to the model as the tool's answer; names persist between
calls, so the model works like a person in a notebook.

The "model" here is a script of the tool calls a model would make, so the
example runs offline; put your LLM client where `next_tool_call` is.

    python examples/python/agent_tool_loop.py
"""

from __future__ import annotations

from collections.abc import Iterator

from backyard_ls import Execution, Sandbox

TOOL = {
    "name": "run_python",
    "description": "Run Python code in a stateful sandbox (like a notebook cell); returns its output, value or error.",
    "input_schema": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]},
}


def tool_answer(r: Execution) -> str:
    """What the model reads back: output, the value, or the traceback."""
    parts = []
    if r.stdout:
        parts.append(r.stdout.rstrip("\n"))
    if r.stderr:
        parts.append("[stderr]\n" + r.stderr.rstrip("\n"))
    if r.error is not None:
        parts.append(r.error.traceback)
    elif r.value is not None:
        parts.append(f"Out[{r.execution_count}]: {r.value}")
    return "\n".join(parts) or "(no output)"


def next_tool_call(transcript: list[str]) -> Iterator[str]:
    """Stands in for the model: the code it would send, step by step."""
    yield "orders = [('east', 120.0), ('west', 80.5), ('east', 42.25)]\nlen(orders)"
    yield "totals = {}\nfor region, amount in orders:\n    totals[region] = totals.get(region, 0) + amount\ntotals['north']"
    # The model read the KeyError above and fixes its code.
    yield "best = max(totals, key=lambda region: totals[region])\nprint('best region:', best)\nround(totals[best], 2)"


def main() -> None:
    transcript: list[str] = []
    with Sandbox(timeout=10) as sandbox:
        for code in next_tool_call(transcript):
            answer = tool_answer(sandbox.run(code))
            transcript.append(answer)
            print(f">>> run_python\n{code}\n<<< {answer}\n")


if __name__ == "__main__":
    main()

"""A GRPO reward function with TRL's signature: it scores a group of
model completions by running each one's code with the sample's tests, all
in one parallel batch (each in an empty namespace, under a time limit).

    from trl import GRPOTrainer
    trainer = GRPOTrainer(model=..., reward_funcs=[code_reward], train_dataset=ds)

The dataset needs a "tests" column (assert statements); TRL passes every
column to the reward function as a keyword argument, one value per
completion.

    python examples/python/grpo_reward.py
"""

from __future__ import annotations

import re
from typing import Any

from backyard_ls import run_batch

FENCE = re.compile(r"```(?:python)?\n(.*?)```", re.S)


def extract_code(completion: Any) -> str:
    """The last fenced code block of a completion (a string, or a
    conversation whose last message is the model's)."""
    text = completion if isinstance(completion, str) else completion[-1]["content"]
    blocks = FENCE.findall(text)
    return blocks[-1] if blocks else text


def code_reward(completions: list[Any], **kwargs: Any) -> list[float]:
    """1.0 for a completion whose code passes all its sample's tests, 0.0
    otherwise (an exception, a timeout, a crash all score 0)."""
    tests = kwargs.get("tests") or [""] * len(completions)
    snippets = [{"id": i, "code": extract_code(c) + "\n\n" + t} for i, (c, t) in enumerate(zip(completions, tests))]
    rewards = [0.0] * len(completions)
    for r in run_batch(snippets, timeout=5, parallel=4):
        rewards[r.id] = 1.0 if r.success else 0.0
    return rewards


def main() -> None:
    prompt_tests = "assert add(2, 3) == 5\nassert add(-1, 1) == 0"
    completions = [
        [{"role": "assistant", "content": "Here you go:\n```python\ndef add(a, b):\n    return a + b\n```"}],
        [{"role": "assistant", "content": "```python\ndef add(a, b):\n    return a - b\n```"}],
        [{"role": "assistant", "content": "```python\ndef add(a, b):\n    while True:\n        pass\n```"}],
        [{"role": "assistant", "content": "I cannot write code."}],
    ]
    rewards = code_reward(completions, tests=[prompt_tests] * len(completions))
    for c, reward in zip(completions, rewards):
        print(f"{reward:.1f}  {extract_code(c).strip().splitlines()[-1]!r}")


if __name__ == "__main__":
    main()

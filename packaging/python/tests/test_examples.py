"""The examples in examples/python run and say what they should."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(os.environ.get("BACKYARD_REPO", Path(__file__).resolve().parents[3])) / "examples" / "python"


def run(name: str) -> str:
    r = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_agent_tool_loop() -> None:
    out = run("agent_tool_loop.py")
    assert "<<< Out[1]: 3" in out
    assert "KeyError: 'north'" in out  # the model's mistake, shown to it
    assert out.rstrip().endswith("<<< best region: east\nOut[3]: 162.25")


def test_grpo_reward() -> None:
    out = run("grpo_reward.py").splitlines()
    assert [line.split()[0] for line in out] == ["1.0", "0.0", "0.0", "0.0"]


def test_grpo_reward_as_trl_calls_it() -> None:
    sys.path.insert(0, str(EXAMPLES))
    try:
        from grpo_reward import code_reward
    finally:
        sys.path.remove(str(EXAMPLES))
    completions = ["```python\ndef sq(x):\n    return x * x\n```", "def sq(x): return x + x", "```python\nimport os\nos.system('true')\n```"]
    tests = ["assert sq(3) == 9"] * 3
    assert code_reward(completions, tests=tests, prompts=["p"] * 3) == [1.0, 0.0, 0.0]


def test_notebook_session() -> None:
    out = run("notebook_session.py")
    assert "Out[1]: 2\napples    12 × 0.50\npears      4 × 0.75\nOut[3]: 9.0\n" in out
    assert "[4] KeyError: \"no item 'plums'\"" in out


def test_the_readme_example(tmp_path: Path) -> None:
    readme = (EXAMPLES.parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("\n## Python\n"):]
    code = section[section.index("```python\n") + len("```python\n"):]
    code = code[:code.index("```")]
    script = tmp_path / "readme.py"
    script.write_text(code, encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "9.75 monty items: 3\nerror IndexError 1\n0 ok 2\nslow timeout None\n"


def test_tracebacks_are_laid_out_as_the_servers() -> None:
    # notebook/testdata/tracebacks.json: errors and the text the server's
    # renderer (and the editors') gives them, every frame written one way.
    from backyard_ls import ExecutionError

    vectors = json.loads((EXAMPLES.parents[1] / "notebook" / "testdata" / "tracebacks.json").read_text(encoding="utf-8"))
    assert vectors
    for v in vectors:
        e = ExecutionError.from_record(v["error"])
        text = e.format(lambda f: f"  line {f.line}, in {f.name}\n    {f.text}\n")
        assert text == v["text"], v["name"]

# %% A tokenizer for arithmetic
import re
TOKEN = re.compile(r"\s*(?:(\d+\.?\d*)|(.))")

def tokenize(src):
    out = []
    for num, op in TOKEN.findall(src):
        if num:
            out.append(("num", float(num) if "." in num else int(num)))
        elif op.strip():
            out.append(("op", op))
    return out

tokenize("3 + 4.5 * (2 - 1)")

# %% A recursive-descent parser and evaluator
class Parser:
    def __init__(self, tokens):
        self.toks, self.i = tokens, 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else ("end", None)

    def take(self, kind=None, value=None):
        tok = self.peek()
        if kind and tok[0] != kind or value and tok[1] != value:
            raise SyntaxError(f"expected {value or kind}, got {tok[1]!r} at token {self.i}")
        self.i += 1
        return tok

    def expr(self):
        v = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            v = v + self.term() if self.take()[1] == "+" else v - self.term()
        return v

    def term(self):
        v = self.factor()
        while self.peek() in (("op", "*"), ("op", "/")):
            v = v * self.factor() if self.take()[1] == "*" else v / self.factor()
        return v

    def factor(self):
        kind, val = self.peek()
        if kind == "num":
            self.take()
            return val
        if val == "-":
            self.take()
            return -self.factor()
        self.take("op", "(")
        v = self.expr()
        self.take("op", ")")
        return v

def calc(src):
    p = Parser(tokenize(src))
    v = p.expr()
    p.take("end")
    return v

calc("3 + 4.5 * (2 - 1)"), calc("2 * (3 + 4) * 5"), calc("-(1 - 10) / 4")

# %% Agrees with Python's eval
exprs = ["1+2*3", "(1+2)*3", "10/4-1", "2*-3", "((7))"]
[(e, calc(e), eval(e)) for e in exprs]

# %% Errors
calc("2 * (3 + 4")

# %% Division by zero comes from Python
calc("1 / (2 - 2)")

# %% Token counts
from collections import Counter
Counter(kind for kind, _ in tokenize("1 + 2 * 3 - (4 / 5)"))

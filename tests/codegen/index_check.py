"""A static check of a generated kernel's index arithmetic: no index computation ever wraps.

`check_kernel(kernel)` parses the kernel's source (the C++ subset Brickyard's generators write:
declarations, for/if/while, lambdas, helper functions, casts, templates' calls) and evaluates it
abstractly at its real launch shape: every integer is an interval in its C type, with the usual
arithmetic conversions of C++ (an `int` times an `int` is an `int`; a `long long` operand widens
the other). threadIdx/blockDim are intervals from the kernel's block; a kernel is a wrapper that
calls its block function (`<entry>_body`) with `by_this_block()`, the virtual block index of the
plain launch, whose `idx`/`grid` fields are intervals from the kernel's grid (as blockIdx/gridDim,
which a hand-written kernel may still read, are); a loop variable is the interval its start and
condition allow (and its increment is evaluated too: a grid-stride `lin += step` past the last
element must not wrap either); a comparison in an `if` or `?:` narrows the variable it tests in
each branch; lambdas and helpers are evaluated at their calls with the arguments' intervals.

Whenever a 32-bit (or narrower) operation's result interval leaves its type, or a conversion
narrows a value that may not fit (an explicit `(int)` cast, an `int` initialised or assigned from
a `long long`, an argument bound to an `int` parameter), that is a wrap, recorded with its line.
Wraps travel with values through variables, expressions and pointers, so a report also names the
global-memory addresses (subscripts of, or arithmetic on, pointers derived from the kernel's
parameters) whose computation carries one. Not index arithmetic, and not checked: values loaded
from memory, floats converted to integers and results of functions the check does not model
(the prelude's) are "opaque" (any value of their type; arithmetic on them follows the op's own
semantics), and 64-bit arithmetic (no tensor has 2^63 elements).

It also reports, per pointer parameter, the interval of element offsets the kernel's addresses
span, so a test can assert that the evaluation reached a large tensor's last element (the index
arithmetic of the last element was evaluated, not something smaller).

Why this and not a grep for "long long": a kernel may declare its loop index 64-bit and still
compute `row * stride` or `k * n` in `int`, narrow an offset with `(int)`, or keep a 32-bit index
that is provably small (a lane, a shared-memory slot, a k-tile counter) where 32 bits are right
and faster. Interval evaluation tells these apart. Why not compile the kernel on the host and run
it at the last element: which block and which grid-stride iteration touch the last element
differs by kind, running any kernel needs its buffers (4+ GiB here), and a wrap is undefined
behaviour that need not show in one run; the evaluation needs no memory, no GPU and no C++
compiler, and covers every thread of every block at once. Its limits: arithmetic on opaque
values is not checked (an index read from an index tensor, or computed from a float coordinate,
is data-dependent; the renderers give such values 64-bit types), and beyond the comparisons
above it is path-insensitive, so it may report a wrap on a path that cannot run (the generated
kernels' guards are of that simple form)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

# ---- C types ------------------------------------------------------------------------------------

INT_TYPES = {
    "int": (32, True), "unsigned int": (32, False), "long": (64, True), "unsigned long": (64, False),
    "long long": (64, True), "unsigned long long": (64, False), "short": (16, True),
    "unsigned short": (16, False), "char": (8, True), "signed char": (8, True), "unsigned char": (8, False),
    "bool": (1, False), "int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True),
    "uint16_t": (16, False), "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True),
    "uint64_t": (64, False), "size_t": (64, False), "ptrdiff_t": (64, True),
}
FLOAT_TYPES = {"float", "double", "by_half", "by_bfloat16", "half", "__half", "__nv_bfloat16"}
QUALIFIERS = {"const", "volatile", "constexpr", "static", "__restrict__", "__restrict", "__grid_constant__",
              "__shared__", "extern", "inline", "__device__", "__forceinline__", "register",
              "BY_DEVICE_CALLED", "BY_DEVICE_CONST", "BY_DEVICE_STATE"}
TYPE_KEYWORDS = {"signed", "unsigned", "int", "long", "short", "char", "bool", "float", "double", "void", "auto"}
OTHER_TYPE_NAMES = {"uint4", "uint2", "uint3", "uint1", "int4", "int2", "int3", "float4", "float2", "float3",
                    "double2", "dim3", "by_tensor_map", "by_block_index", "by_half2", "by_bfloat162", "half2"}
TYPE_NAMES = FLOAT_TYPES | OTHER_TYPE_NAMES | {t for t in INT_TYPES if " " not in t}
CASTS = {"reinterpret_cast", "static_cast", "const_cast"}
INT32_MAX = 2**31 - 1
# The mark of a value the check cannot bound and that is not index arithmetic: memory contents,
# a float converted to an integer, the result of a function it does not model.
DATA = "<opaque>"


@dataclass(frozen=True)
class CType:
    base: str           # "int", "unsigned long long", "float", "uint4", "void", "auto", ...
    ptr: int = 0        # pointer depth plus array dimensions

    @property
    def is_int(self) -> bool:
        return self.ptr == 0 and self.base in INT_TYPES

    @property
    def is_float(self) -> bool:
        return self.ptr == 0 and self.base in FLOAT_TYPES

    def deref(self) -> "CType":
        return CType(self.base, max(0, self.ptr - 1))


def normalise_type(words: list[str]) -> str:
    """The base type of a list of declaration specifiers (qualifiers dropped)."""
    w = [x for x in words if x not in QUALIFIERS]
    unsigned = "unsigned" in w
    signed = "signed" in w
    w = [x for x in w if x not in ("unsigned", "signed")]
    longs = w.count("long")
    rest = [x for x in w if x not in ("long", "int")]
    if rest:
        base = " ".join(rest)
        if base == "char" and (signed or unsigned):
            return ("unsigned " if unsigned else "signed ") + "char"
        if base == "short":
            return "unsigned short" if unsigned else "short"
        return base
    base = {0: "int", 1: "long", 2: "long long"}[min(longs, 2)]
    return ("unsigned " + base) if unsigned else base


# ---- values -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Val:
    kind: str                          # "int" | "float" | "ptr" | "other" | "lambda" | "block"
    bits: int = 64
    signed: bool = True
    lo: int = 0
    hi: int = 0
    wraps: frozenset = frozenset()     # the wraps this value's computation may carry (and DATA)
    space: str = ""                    # ptr: "global" | "local"
    base: str = ""                     # global ptr: the parameter it derives from
    off: tuple | None = None           # global ptr: element offsets from that parameter (None: unknown)
    elem: CType | None = None          # ptr: the pointee type
    fn: object = None                  # lambda: (params, body); block: None, "idx" or "grid"


def int_bounds(bits: int, signed: bool) -> tuple[int, int]:
    if bits == 1:
        return 0, 1
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def type_name(bits: int, signed: bool) -> str:
    return {(32, True): "int", (32, False): "unsigned int", (64, True): "long long",
            (64, False): "unsigned long long"}.get((bits, signed), f"{'' if signed else 'u'}int{bits}")


def mk_int(bits: int, signed: bool, lo: int, hi: int, wraps=frozenset()) -> Val:
    return Val("int", bits, signed, lo, hi, frozenset(wraps))


def top_int(bits: int, signed: bool, wraps=frozenset()) -> Val:
    lo, hi = int_bounds(bits, signed)
    return mk_int(bits, signed, lo, hi, wraps)


def other(wraps=frozenset()) -> Val:
    return Val("other", wraps=frozenset(wraps))


def fmt(lo: int, hi: int) -> str:
    def f(v):
        return f"{v}" if abs(v) < 2**20 else f"{'-' if v < 0 else ''}2^{abs(v).bit_length() - 1}+"
    return f"[{f(lo)}, {f(hi)}]"


def join(a: Val, b: Val) -> Val:
    if a == b:
        return a
    w = a.wraps | b.wraps
    if a.kind == b.kind == "int":
        bits, signed = max(a.bits, b.bits), a.signed if a.bits >= b.bits else b.signed
        return mk_int(bits, signed, min(a.lo, b.lo), max(a.hi, b.hi), w)
    if a.kind == b.kind == "ptr" and a.space == b.space and a.base == b.base:
        off = None if a.off is None or b.off is None else (min(a.off[0], b.off[0]), max(a.off[1], b.off[1]))
        return replace(a, wraps=w, off=off)
    if a.kind == b.kind:
        return replace(a, wraps=w)
    return other(w)


# ---- tokens -------------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFuUlL]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|::|[-+*/%<>=!~&|^?:;,.(){}\[\]])
""", re.S | re.X)


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    line: int


def tokenize(src: str) -> list[Tok]:
    # preprocessor lines (#pragma unroll) and the prelude's pragma macro carry no arithmetic
    src = "\n".join("" if ln.lstrip().startswith("#") else ln for ln in src.split("\n"))
    src = re.sub(r"\bBY_ROLLED\b", "", src)
    out, pos, line = [], 0, 1
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if not m:
            raise SyntaxError(f"line {line}: cannot tokenize {src[pos:pos + 20]!r}")
        kind = m.lastgroup
        text = m.group()
        if kind != "ws":
            out.append(Tok(kind, text, line))
        line += text.count("\n")
        pos = m.end()
    out.append(Tok("eof", "", line))
    return out


def literal(text: str) -> Val:
    t = text.lower()
    if t.startswith("0x"):
        digits, suffix = re.match(r"(0x[0-9a-f]+)([ul]*)", t).groups()
        v = int(digits, 16)
        hexa = True
    else:
        m = re.match(r"(\d+)([ul]*)$", t)
        if not m:
            return Val("float")
        v, suffix = int(m.group(1)), m.group(2)
        hexa = False
    unsigned = "u" in suffix
    longs = suffix.count("l")
    # C++ [lex.icon]: the first type of the list that holds the value
    cands = []
    if longs == 0:
        cands += [(32, False)] if unsigned else ([(32, True), (32, False)] if hexa else [(32, True)])
    if longs <= 1:
        cands += [(64, False)] if unsigned else ([(64, True), (64, False)] if hexa else [(64, True)])
    cands += [(64, False)] if unsigned else [(64, True), (64, False)]
    for bits, signed in cands:
        lo, hi = int_bounds(bits, signed)
        if lo <= v <= hi:
            return mk_int(bits, signed, v, v)
    return mk_int(64, False, v, v)


# ---- parser -------------------------------------------------------------------------------------

class Parser:
    """Statements and expressions of the generated kernels into tuples (see `Checker` for their meaning)."""

    def __init__(self, toks: list[Tok], type_names: set[str]):
        self.t = toks
        self.i = 0
        self.type_names = set(type_names)
        self.variables: set[str] = set()     # every name declared so far: never a template

    # -- cursor
    def peek(self, k: int = 0) -> Tok:
        return self.t[min(self.i + k, len(self.t) - 1)]

    def next(self) -> Tok:
        tok = self.t[self.i]
        self.i += 1
        return tok

    def accept(self, text: str) -> bool:
        if self.peek().text == text and self.peek().kind != "str":
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> Tok:
        tok = self.next()
        if tok.text != text:
            raise SyntaxError(f"line {tok.line}: expected {text!r}, found {tok.text!r}")
        return tok

    def skip_balanced(self, open_: str, close: str) -> None:
        self.expect(open_)
        depth = 1
        while depth:
            tok = self.next()
            if tok.kind == "eof":
                raise SyntaxError("unbalanced " + open_)
            depth += (tok.text == open_) - (tok.text == close)

    # -- types
    def is_type_word(self, tok: Tok) -> bool:
        return tok.kind == "id" and (tok.text in TYPE_KEYWORDS or tok.text in QUALIFIERS or tok.text in self.type_names)

    def starts_declaration(self) -> bool:
        tok = self.peek()
        if tok.kind != "id":
            return False
        if tok.text in TYPE_KEYWORDS or tok.text in QUALIFIERS:
            return True
        if tok.text in self.type_names:
            nxt = self.peek(1)
            return nxt.kind == "id" or nxt.text in ("*", "&")
        return False

    def type_words(self) -> list[str]:
        words, have_name = [], False
        while self.is_type_word(self.peek()):
            tok = self.peek()
            named = tok.text not in TYPE_KEYWORDS and tok.text not in QUALIFIERS
            if named and have_name:
                break
            if named or tok.text in TYPE_KEYWORDS - {"signed", "unsigned", "long", "short"}:
                have_name = have_name or named or tok.text not in ("int",)
            words.append(self.next().text)
            if named:
                # a user type name is complete; what follows is qualifiers or the declarator
                while self.peek().text in QUALIFIERS:
                    words.append(self.next().text)
                break
        if not words:
            raise SyntaxError(f"line {self.peek().line}: expected a type, found {self.peek().text!r}")
        return words

    def abstract_type(self) -> CType:
        """A type name in a cast or template argument: specifiers, then * and qualifiers."""
        base = normalise_type(self.type_words())
        ptr = 0
        while self.peek().text in ("*", "&") or self.peek().text in QUALIFIERS:
            ptr += self.next().text == "*"
        return CType(base, ptr)

    def declarator(self, base: str) -> tuple[CType, str, list]:
        ptr = 0
        while self.peek().text in ("*", "&") or self.peek().text in QUALIFIERS:
            ptr += self.next().text == "*"
        name = self.next()
        if name.kind != "id":
            raise SyntaxError(f"line {name.line}: expected a name, found {name.text!r}")
        self.variables.add(name.text)
        dims = []
        while self.accept("["):
            dims.append(self.expr() if self.peek().text != "]" else None)
            self.expect("]")
        return CType(base, ptr + len(dims)), name.text, dims

    # -- top level
    def program(self) -> dict:
        funcs = {}
        while self.peek().kind != "eof":
            if self.peek().text in ("BY_KERNEL", "BY_DEVICE", "BY_DEVICE_CALLED", "BY_DEVICE_CONST", "BY_DEVICE_STATE",
                                    "BY_HD", "extern", "__global__", "__device__",
                                    "__forceinline__", "inline", "static") or self.peek().kind == "str":
                self.next()
                continue
            if self.peek().text == "template":
                self.next()
                self.skip_balanced("<", ">")
                continue
            words = self.type_words()
            while self.peek().text == "__launch_bounds__":
                self.next()
                self.skip_balanced("(", ")")
            ptr = 0
            while self.peek().text in ("*", "&"):
                ptr += self.next().text == "*"
            name = self.next().text
            if self.peek().text != "(":      # a file-scope declaration: not evaluated
                while self.next().text != ";":
                    pass
                continue
            params = self.params()
            body = self.block()
            funcs[name] = (CType(normalise_type(words), ptr), params, body)
        return funcs

    def params(self) -> list[tuple[CType, str]]:
        self.expect("(")
        out = []
        while not self.accept(")"):
            base = normalise_type(self.type_words())
            ctype, name, _ = self.declarator(base)
            out.append((ctype, name))
            self.accept(",")
        return out

    # -- statements
    def block(self) -> tuple:
        self.expect("{")
        stmts = []
        while not self.accept("}"):
            stmts.append(self.statement())
        return ("block", stmts)

    def statement(self) -> tuple:
        tok = self.peek()
        if tok.text == "{":
            return self.block()
        if tok.text == ";":
            self.next()
            return ("empty",)
        if tok.text == "if":
            self.next()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            then = self.statement()
            other_ = self.statement() if self.accept("else") else None
            return ("if", cond, then, other_)
        if tok.text == "for":
            self.next()
            self.expect("(")
            init = None if self.peek().text == ";" else self.simple_statement()
            if init is None:
                self.expect(";")
            cond = None if self.peek().text == ";" else self.expr()
            self.expect(";")
            step = None if self.peek().text == ")" else self.expr()
            self.expect(")")
            return ("for", init, cond, step, self.statement())
        if tok.text == "while":
            self.next()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            return ("for", None, cond, None, self.statement())
        if tok.text in ("return", "break", "continue"):
            self.next()
            e = None if self.peek().text == ";" else self.expr()
            self.expect(";")
            return ("return", e) if tok.text == "return" else (tok.text,)
        return self.simple_statement()

    def simple_statement(self) -> tuple:
        """A declaration or an expression statement, with its `;`."""
        if self.starts_declaration():
            line = self.peek().line
            base = normalise_type(self.type_words())
            decls = []
            while True:
                ctype, name, dims = self.declarator(base)
                init = None
                if self.accept("="):
                    init = self.assignment()
                elif self.peek().text == "(" and not dims:
                    self.next()
                    args = self.args_until(")")
                    init = ("call", ("id", base, line), args, line)
                decls.append((ctype, name, init, dims, line))
                if not self.accept(","):
                    break
            self.expect(";")
            return ("decl", decls)
        e = self.expr()
        self.expect(";")
        return ("expr", e)

    # -- expressions (C++ precedence)
    BINARY = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
              ("<<", ">>"), ("+", "-"), ("*", "/", "%")]
    ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=")

    def expr(self) -> tuple:
        e = self.assignment()
        while self.peek().text == ",":
            self.next()
            e = ("comma", e, self.assignment())
        return e

    def args_until(self, close: str) -> list:
        args = []
        while not self.accept(close):
            args.append(self.assignment())
            self.accept(",")
        return args

    def assignment(self) -> tuple:
        lhs = self.conditional()
        if self.peek().text in self.ASSIGN:
            tok = self.next()
            return ("assign", tok.text, lhs, self.assignment(), tok.line)
        return lhs

    def conditional(self) -> tuple:
        c = self.binary(0)
        if self.peek().text == "?":
            line = self.next().line
            a = self.expr()
            self.expect(":")
            b = self.assignment()
            return ("cond", c, a, b, line)
        return c

    def binary(self, level: int) -> tuple:
        if level == len(self.BINARY):
            return self.unary()
        e = self.binary(level + 1)
        while self.peek().kind == "op" and self.peek().text in self.BINARY[level]:
            tok = self.next()
            e = ("bin", tok.text, e, self.binary(level + 1), tok.line)
        return e

    def is_cast(self) -> bool:
        """`(` type `)`: a C-style cast."""
        if self.peek().text != "(":
            return False
        tok = self.peek(1)
        return tok.kind == "id" and (tok.text in TYPE_KEYWORDS or tok.text in self.type_names
                                     or tok.text in QUALIFIERS)

    def unary(self) -> tuple:
        tok = self.peek()
        if tok.kind == "op" and tok.text in ("-", "+", "!", "~", "*", "&", "++", "--"):
            self.next()
            return ("un", tok.text, self.unary(), tok.line)
        if tok.text == "sizeof":
            self.next()
            self.skip_balanced("(", ")")
            return ("num", mk_int(64, False, 1, 64))
        if self.is_cast():
            self.next()
            ctype = self.abstract_type()
            self.expect(")")
            return ("cast", ctype, self.unary(), tok.line)
        return self.postfix(self.primary())

    def primary(self) -> tuple:
        tok = self.next()
        if tok.kind == "num":
            return ("num", literal(tok.text))
        if tok.kind == "str":
            return ("num", other())
        if tok.text == "(":
            e = self.expr()
            self.expect(")")
            return e
        if tok.text == "[":            # a lambda: [captures](params) { body }
            self.i -= 1
            self.skip_balanced("[", "]")
            params = self.params() if self.peek().text == "(" else []
            return ("lambda", params, self.block())
        if tok.text == "{":            # a braced initialiser list
            return ("list", self.args_until("}"), tok.line)
        if tok.kind == "id":
            if tok.text in CASTS or (tok.text not in self.type_names and tok.text not in self.variables
                                     and self.peek().text == "<" and self.template_call_ahead()):
                targs = self.template_args()
                return ("tcall", tok.text, targs, tok.line)
            if tok.text in TYPE_KEYWORDS or tok.text in self.type_names:
                return ("typename", CType(normalise_type([tok.text])), tok.line)
            return ("id", tok.text, tok.line)
        raise SyntaxError(f"line {tok.line}: unexpected {tok.text!r}")

    def template_call_ahead(self) -> bool:
        """Whether `<` ... `>` `(` follows (a template's call), not a comparison."""
        depth, k = 0, 0
        while True:
            tok = self.peek(k)
            if tok.kind == "eof" or tok.text in (";", "{", "}", "?", ":", "&&", "||", "="):
                return False
            if tok.text == "<":
                depth += 1
            elif tok.text == ">":
                depth -= 1
                if depth == 0:
                    return self.peek(k + 1).text == "("
            k += 1

    def template_args(self) -> list:
        self.expect("<")
        out = []
        while not self.accept(">"):
            if self.is_type_word(self.peek()):
                out.append(("type", self.abstract_type()))
            else:
                out.append(self.binary(7))      # above relational: a `>` closes the list
            self.accept(",")
        return out

    def postfix(self, e: tuple) -> tuple:
        while True:
            tok = self.peek()
            if tok.text == "(":
                self.next()
                e = ("call", e, self.args_until(")"), tok.line)
            elif tok.text == "[":
                self.next()
                i = self.expr()
                self.expect("]")
                e = ("index", e, i, tok.line)
            elif tok.text in (".", "->"):
                self.next()
                e = ("member", e, self.next().text, tok.line)
            elif tok.text in ("++", "--"):
                self.next()
                e = ("post", tok.text, e, tok.line)
            else:
                return e


# ---- abstract evaluation ------------------------------------------------------------------------

@dataclass
class Access:
    """Global-memory addresses computed at one place of the source."""

    param: str
    line: int
    off: tuple | None
    wraps: frozenset


@dataclass
class Report:
    entry: str
    accesses: list[Access] = field(default_factory=list)
    declared: dict = field(default_factory=dict)      # variable -> its C type (every declaration)
    wraps: set = field(default_factory=set)           # every index-arithmetic wrap, wherever it is used

    def wrapping(self) -> list[Access]:
        """The global-memory addresses whose computation carries a wrap."""
        return [a for a in self.accesses if a.wraps - {DATA}]

    def span(self, param: str) -> tuple | None:
        """The element offsets the kernel's addresses into `param` span (None: one is unknown)."""
        offs = [a.off for a in self.accesses if a.param == param]
        if not offs or any(o is None for o in offs):
            return None
        return min(o[0] for o in offs), max(o[1] for o in offs)

    def problems(self) -> list[str]:
        """Every index-arithmetic wrap (whether or not it reaches an address: a wrapped index that
        picks a twiddle factor or a loop's trip is as wrong), then the addresses that carry one."""
        out = sorted(self.wraps)
        for a in self.wrapping():
            out.append(f"{self.entry}.cu:{a.line}: the address into {a.param} carries: "
                       + "; ".join(sorted(a.wraps - {DATA})))
        return out


class Checker:
    MAX_LOOP_PASSES = 4

    def __init__(self, source: str, entry: str, grid, block, params, type_names=()):
        self.entry = entry
        self.grid, self.block = tuple(grid), tuple(block)
        names = TYPE_NAMES | set(type_names)
        self.funcs = Parser(tokenize(source), names).program()
        if entry not in self.funcs:
            raise ValueError(f"{entry}: no such function in the source")
        self.param_values = list(params)
        self.env: dict[str, tuple[CType, Val]] = {}
        self.decl_log: list[str] = []
        self.returns: list[list[Val]] = []     # what the functions being evaluated return
        self.report = Report(entry)
        self._accesses: dict[tuple, Access] = {}

    # -- driver
    def run(self) -> Report:
        ret, params, body = self.funcs[self.entry]
        pointers = [p for p in params if p[0].ptr]
        if len(pointers) != len(self.param_values):
            raise ValueError(f"{self.entry}: {len(pointers)} pointer parameters, {len(self.param_values)} bound")
        names = iter(self.param_values)
        for ctype, name in params:
            if ctype.ptr:
                label = next(names)
                self.env[name] = (ctype, Val("ptr", space="global", base=label, off=(0, 0), elem=ctype.deref()))
            else:
                self.env[name] = (ctype, self.top_of(ctype))
            self.report.declared[name] = ctype
        self.stmt(body)
        self.report.accesses = list(self._accesses.values())
        return self.report

    # -- helpers
    def top_of(self, ctype: CType, wraps=frozenset()) -> Val:
        if ctype.ptr:
            return Val("ptr", space="local", elem=ctype.deref(), wraps=frozenset(wraps))
        if ctype.is_int:
            return top_int(*INT_TYPES[ctype.base], wraps)
        if ctype.is_float:
            return Val("float", wraps=frozenset(wraps))
        return other(wraps)

    def convert(self, v: Val, ctype: CType, what: str, line: int) -> Val:
        """v converted to ctype; a narrowing that may not fit is marked as a wrap."""
        if ctype.ptr:
            if v.kind == "ptr":
                same = v.elem is not None and v.elem.base == ctype.base and v.elem.ptr == ctype.ptr - 1
                return replace(v, elem=ctype.deref(), off=v.off if same else None)
            return self.top_of(ctype, v.wraps)
        if ctype.is_int:
            bits, signed = INT_TYPES[ctype.base]
            if ctype.base == "bool":
                return mk_int(1, False, 0 if v.kind != "int" or v.lo <= 0 <= v.hi else 1,
                              0 if v.kind == "int" and v.lo == v.hi == 0 else 1, v.wraps)
            if v.kind != "int":          # floats, opaque values: any value of the type (opaque)
                return top_int(bits, signed, v.wraps | {DATA})
            lo, hi = int_bounds(bits, signed)
            if lo <= v.lo and v.hi <= hi:
                return mk_int(bits, signed, v.lo, v.hi, v.wraps)
            return top_int(bits, signed, self.wrap(v.wraps, f"line {line}: {what} narrows {fmt(v.lo, v.hi)} to {ctype.base}"))
        if ctype.is_float:
            return Val("float", wraps=v.wraps)
        if v.kind == "block" and ctype.base == "by_block_index":     # the wrapper passing it to the body
            return v
        return other(v.wraps) if v.kind != "ptr" else v

    def wrap(self, marks: frozenset, what: str) -> frozenset:
        """A wrap of index arithmetic (recorded), or data arithmetic (not ours: the op's semantics)."""
        if DATA in marks:
            return marks
        self.report.wraps.add(f"{self.entry}.cu: {what}")
        return marks | {what}

    def record(self, ptr: Val, line: int) -> None:
        if ptr.kind != "ptr" or ptr.space != "global":
            return
        key = (line, ptr.base)
        old = self._accesses.get(key)
        if old is None:
            self._accesses[key] = Access(ptr.base, line, ptr.off, ptr.wraps)
        else:
            off = None if old.off is None or ptr.off is None else \
                (min(old.off[0], ptr.off[0]), max(old.off[1], ptr.off[1]))
            self._accesses[key] = Access(ptr.base, line, off, old.wraps | ptr.wraps)

    def declare(self, name: str, ctype: CType, val: Val) -> None:
        self.env[name] = (ctype, val)
        self.decl_log.append(name)
        self.report.declared.setdefault(name, ctype)

    def snapshot(self) -> tuple[dict, int]:
        """The environment and the declarations so far, at the start of a scope."""
        return dict(self.env), len(self.decl_log)

    def restore(self, snap: tuple[dict, int]) -> dict:
        """The environment after a scope: what it declared dropped (a shadowed outer name gets its
        outer binding back), the outer names it assigned kept as updated."""
        saved, mark = snap
        inner = set(self.decl_log[mark:])
        out = {}
        for k, v in self.env.items():
            if k in inner:
                if k in saved:
                    out[k] = saved[k]
            elif k in saved:
                out[k] = v
        return out

    # -- statements
    def stmt(self, s: tuple) -> None:
        kind = s[0]
        if kind == "block":
            saved = self.snapshot()
            for x in s[1]:
                self.stmt(x)
            self.env = self.restore(saved)
        elif kind == "decl":
            for ctype, name, init, dims, line in s[1]:
                if dims:
                    for d in dims:
                        if d is not None:
                            self.expr(d)
                    self.declare(name, ctype, Val("ptr", space="local", elem=ctype.deref()))
                    if init is not None:
                        self.expr(init)
                    continue
                if init is None:
                    val = self.top_of(ctype)
                else:
                    v = self.expr(init)
                    if ctype.base == "auto":
                        ctype, val = CType(self.auto_type(v)), v
                    else:
                        val = self.convert(v, ctype, f"initialising {name}", line)
                self.declare(name, ctype, val)
        elif kind == "expr":
            self.expr(s[1])
        elif kind == "if":
            self.expr(s[1])
            saved = self.snapshot()
            branches = []
            for truth, body in ((True, s[2]), (False, s[3])):
                self.env = dict(saved[0])
                undo = self.refine(s[1], truth)
                if undo is None:                    # the condition never has this value
                    continue
                if body is not None:
                    self.stmt(body)
                self.unrefine(undo)
                branches.append(self.restore(saved))
            self.env = branches[0] if len(branches) == 1 else self.join_envs(*branches) if branches else saved[0]
        elif kind == "for":
            self.loop(*s[1:])
        elif kind == "return":
            if s[1] is not None:
                v = self.expr(s[1])
                if self.returns:
                    self.returns[-1].append(v)
        # break, continue, empty: nothing

    def auto_type(self, v: Val) -> str:
        if v.kind == "int":
            return type_name(v.bits, v.signed)
        return "auto"

    @staticmethod
    def join_envs(a: dict, b: dict) -> dict:
        out = {}
        for k in a.keys() & b.keys():
            (ta, va), (tb, vb) = a[k], b[k]
            out[k] = (ta, join(va, vb))
        return out

    def loop(self, init, cond, step, body) -> None:
        saved = self.snapshot()
        var = None
        if init is not None:
            self.stmt(init)
            if init[0] == "decl" and len(init[1]) == 1:
                var = init[1][0][1]
            elif init[0] == "expr" and init[1][0] == "assign" and init[1][2][0] == "id":
                var = init[1][2][1]
        if var is not None and self.env[var][1].kind == "int":
            ctype, v0 = self.env[var]
            rng = self.loop_range(var, v0, cond, step)
            if rng is None:
                self.env = self.restore(saved)
                return                      # the body never runs
            vb = mk_int(v0.bits, v0.signed, rng[0], rng[1], v0.wraps)
            # the increment, evaluated on the body's range, must not wrap either
            if step is not None:
                scratch = dict(self.env)
                self.env[var] = (ctype, vb)
                self.expr(step)
                stepped = self.env[var][1]
                self.env = scratch
                vb = replace(vb, wraps=vb.wraps | stepped.wraps)
            self.env[var] = (ctype, vb)
        for n in range(self.MAX_LOOP_PASSES + 1):
            snap = self.snapshot()
            before = snap[0]
            if cond is not None:
                self.expr(cond)
            self.stmt(body)
            if step is not None and var is None:
                self.expr(step)
            if var is not None:
                self.env[var] = before[var]
            after = self.join_envs(before, self.restore(snap))
            if after == before:
                break
            if n == self.MAX_LOOP_PASSES - 1:     # widen what still grows
                after = {k: (t, v if v == before[k][1] or v.kind != "int" else top_int(v.bits, v.signed, v.wraps))
                         for k, (t, v) in after.items()}
            self.env = after
        self.env = self.restore(saved)

    def loop_range(self, var: str, v0: Val, cond, step) -> tuple | None:
        """The interval of the loop variable inside the body: from its start and condition."""
        lo_t, hi_t = int_bounds(v0.bits, v0.signed)
        up = down = False
        if step is not None:
            if step[0] in ("post", "un") and step[1] in ("++", "--"):
                up, down = step[1] == "++", step[1] == "--"
            elif step[0] == "assign" and step[2][0] == "id" and step[2][1] == var:
                if step[1] in ("+=", "*=", "<<="):
                    up = self.expr_pure(step[3]).lo >= 0
                elif step[1] in ("-=", ">>=", "/="):
                    down = True
        # from the start value on, in the step's direction; the condition bounds the other side
        lo, hi = (v0.lo, hi_t) if up else ((lo_t, v0.hi) if down else (lo_t, hi_t))
        for c in self.conjuncts(cond):
            if c[0] != "bin" or c[1] not in ("<", "<=", ">", ">="):
                continue
            op, a, b = c[1], c[2], c[3]
            if b[0] == "id" and b[1] == var and not (a[0] == "id" and a[1] == var):
                a, b = b, a
                op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
            if not (a[0] == "id" and a[1] == var):
                continue
            bound = self.expr_pure(b)
            if bound.kind != "int":
                continue
            if op == "<":
                hi = min(hi, bound.hi - 1)
            elif op == "<=":
                hi = min(hi, bound.hi)
            elif op == ">":
                lo = max(lo, bound.lo + 1)
            else:
                lo = max(lo, bound.lo)
        if lo > hi:
            return None
        return lo, hi

    NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
    MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

    def refine(self, cond, truth: bool):
        """Narrows the variables a condition compares with bounds, in the branch where it is
        `truth` (all conjuncts when true; a single comparison when false). Returns what to undo,
        or None when the branch cannot run."""
        if cond[0] == "un" and cond[1] == "!":
            return self.refine(cond[2], not truth)
        comps = self.conjuncts(cond) if truth else ([cond] if cond[0] == "bin" else [])
        undo = {}
        for c in comps:
            if c[0] != "bin" or c[1] not in self.NEGATE:
                continue
            op, a, b = c[1], c[2], c[3]
            if not (a[0] == "id" and a[1] in self.env) and b[0] == "id" and b[1] in self.env:
                a, b, op = b, a, self.MIRROR[op]
            if not (a[0] == "id" and a[1] in self.env):
                continue
            ctype, v = self.env[a[1]]
            bound = self.expr_pure(b)
            if v.kind != "int" or bound.kind != "int":
                continue
            if not truth:
                op = self.NEGATE[op]
            lo, hi = v.lo, v.hi
            if op == "<":
                hi = min(hi, bound.hi - 1)
            elif op == "<=":
                hi = min(hi, bound.hi)
            elif op == ">":
                lo = max(lo, bound.lo + 1)
            elif op == ">=":
                lo = max(lo, bound.lo)
            elif op == "==":
                lo, hi = max(lo, bound.lo), min(hi, bound.hi)
            if lo > hi:
                self.unrefine(undo)
                return None
            undo.setdefault(a[1], self.env[a[1]])
            refined = replace(v, lo=lo, hi=hi)
            self.env[a[1]] = (ctype, refined)
            undo[a[1]] = (undo[a[1]][0], undo[a[1]][1], refined)
        return undo

    def unrefine(self, undo: dict) -> None:
        """Puts back the variables refine() narrowed (unless the branch assigned them)."""
        for name, (ctype, original, refined) in undo.items():
            if name in self.env and self.env[name][1] == refined:
                self.env[name] = (ctype, original)

    def conjuncts(self, e):
        if e is None:
            return []
        if e[0] == "bin" and e[1] == "&&":
            return self.conjuncts(e[2]) + self.conjuncts(e[3])
        return [e]

    def expr_pure(self, e) -> Val:
        saved, acc = dict(self.env), dict(self._accesses)
        v = self.expr(e)
        self.env, self._accesses = saved, acc
        return v

    # -- expressions
    def expr(self, e: tuple) -> Val:
        return getattr(self, "e_" + e[0])(e)

    def e_num(self, e):
        return e[1]

    def e_typename(self, e):
        return other()

    def e_list(self, e):
        w = frozenset().union(*(self.expr(x).wraps for x in e[1])) if e[1] else frozenset()
        return other(w)

    def e_lambda(self, e):
        return Val("lambda", fn=(e[1], e[2]))

    def e_id(self, e):
        name = e[1]
        if name in self.env:
            return self.env[name][1]
        if name in ("true", "false"):
            return mk_int(1, False, int(name == "true"), int(name == "true"))
        if name == "warpSize":
            return mk_int(32, True, 32, 32)
        if name in self.funcs:
            return Val("other", fn=name)
        return other()

    def e_comma(self, e):
        self.expr(e[1])
        return self.expr(e[2])

    def e_member(self, e):
        base = e[1]
        if base[0] == "id" and base[1] in ("threadIdx", "blockIdx", "blockDim", "gridDim") \
                and base[1] not in self.env and e[2] in ("x", "y", "z"):
            k = "xyz".index(e[2])
            if base[1] == "threadIdx":
                return mk_int(32, False, 0, self.block[k] - 1)
            if base[1] == "blockIdx":
                return mk_int(32, False, 0, self.grid[k] - 1)
            n = (self.block if base[1] == "blockDim" else self.grid)[k]
            return mk_int(32, False, n, n)
        v = self.expr(base)
        if v.kind == "block":
            # by_block.idx.x is blockIdx.x of the launch that by_this_block() describes, .grid.x gridDim.x
            if v.fn is None and e[2] in ("idx", "grid"):
                return replace(v, fn=e[2])
            if v.fn is not None and e[2] in ("x", "y", "z"):
                n = self.grid["xyz".index(e[2])]
                return mk_int(32, False, 0, n - 1) if v.fn == "idx" else mk_int(32, False, n, n)
        return other(v.wraps)

    def e_cast(self, e):
        v = self.expr(e[2])
        return self.convert(v, e[1], f"({e[1].base}{'*' * e[1].ptr}) cast", e[3])

    def e_tcall(self, e):
        raise SyntaxError(f"line {e[3]}: template {e[1]} without a call")

    def e_call(self, e):
        f, args, line = e[1], e[2], e[3]
        if f[0] == "tcall":
            vals = [self.expr(a) for a in args]
            if f[1] in CASTS and f[2] and f[2][0][0] == "type" and vals:
                return self.convert(vals[0], f[2][0][1], f"{f[1]}<{f[2][0][1].base}>", line)
            return other(frozenset().union(*(v.wraps for v in vals), {DATA}))
        if f[0] == "typename":                 # a functional cast: T(x)
            vals = [self.expr(a) for a in args]
            return self.convert(vals[0], f[1], f"{f[1].base}(...)", line) if vals else self.top_of(f[1])
        if f[0] == "id" and f[1] == "by_this_block" and f[1] not in self.env and f[1] not in self.funcs:
            return Val("block")             # the hardware block of this launch, as a virtual one
        if f[0] == "id" and f[1] == "BY_SHARED_BUFFER" and f[1] not in self.env:
            self.declare(args[0][1], CType("unsigned char", 1), Val("ptr", space="local", elem=CType("unsigned char")))
            return other()
        callee = self.expr(f) if f[0] != "id" or f[1] in self.env else None
        vals = [self.expr(a) for a in args]
        wraps = frozenset().union(*(v.wraps for v in vals)) if vals else frozenset()
        if callee is not None and callee.kind == "lambda":
            return self.call(*callee.fn, vals, line, None, fresh=False)
        name = f[1] if f[0] == "id" else None
        if name in ("by_min", "by_max", "min", "max", "std::min", "std::max") and len(vals) == 2 \
                and all(v.kind == "int" for v in vals):
            a, b = vals
            bits, signed = self.common(a, b)
            pick = min if "min" in name else max
            return mk_int(bits, signed, pick(a.lo, b.lo), pick(a.hi, b.hi), wraps)
        if name in self.funcs and name != self.entry:     # a helper of the kernel's source
            ret, params, body = self.funcs[name]
            return self.call(params, body, vals, line, ret, fresh=True)
        return other(wraps | {DATA})

    def call(self, params, body, vals: list[Val], line: int, ret: CType | None, fresh: bool) -> Val:
        """Evaluates a lambda's body (in the caller's scope: it captures by reference) or a helper
        function's (`fresh`: its parameters only) with the arguments bound; the join of what it
        returns, converted to `ret` (None: as returned)."""
        if len(self.returns) > 8:           # deep or recursive helpers: opaque
            return self.top_of(ret, {DATA}) if ret is not None else other({DATA})
        saved = self.snapshot()
        if fresh:
            self.env = {}
        for (ctype, name), v in zip(params, vals):
            self.declare(name, ctype, self.convert(v, ctype, f"passing {name}", line) if ctype.base != "auto" else v)
        self.returns.append([])
        self.stmt(body)
        got = self.returns.pop()
        if fresh:                           # the helper's names never were the caller's
            self.env = saved[0]
            del self.decl_log[saved[1]:]
        else:
            self.env = self.restore(saved)
        if ret is not None and ret.base != "auto":
            if ret.base == "void" and not ret.ptr:
                return other()
            got = [self.convert(v, ret, "returning", line) for v in got]
        if not got:
            return other()
        out = got[0]
        for v in got[1:]:
            out = join(out, v)
        return out

    def e_index(self, e):
        a, i = self.expr(e[1]), self.expr(e[2])
        if a.kind != "ptr":
            return other(a.wraps | i.wraps)
        p = self.ptr_add(a, i, "+", e[3])
        self.record(p, e[3])
        return self.load(p)

    def load(self, p: Val) -> Val:
        elem = p.elem or CType("other")
        if elem.ptr:
            # a row of an array, or a pointer loaded from memory
            return replace(p, elem=elem.deref()) if p.space == "local" else self.top_of(elem)
        if elem.is_int:
            return top_int(*INT_TYPES[elem.base], {DATA})    # data: any value, no wrap of ours
        return Val("float", wraps=frozenset({DATA})) if elem.is_float else other({DATA})

    def ptr_add(self, p: Val, i: Val, op: str, line: int) -> Val:
        if i.kind != "int":
            return replace(p, off=None, wraps=p.wraps | i.wraps)
        off = None
        if p.off is not None:
            off = (p.off[0] + i.lo, p.off[1] + i.hi) if op == "+" else (p.off[0] - i.hi, p.off[1] - i.lo)
        return replace(p, off=off, wraps=p.wraps | i.wraps)

    def e_un(self, e):
        op, line = e[1], e[3]
        if op in ("++", "--"):
            return self.assign_to(e[2], ("bin", op[0], e[2], ("num", mk_int(32, True, 1, 1)), line), line)
        if op == "&":
            x = e[2]
            if x[0] == "index":            # &p[i]: the address itself
                a, i = self.expr(x[1]), self.expr(x[2])
                if a.kind == "ptr":
                    p = self.ptr_add(a, i, "+", line)
                    self.record(p, line)
                    return p
                return Val("ptr", space="local", elem=CType("other"), wraps=a.wraps | i.wraps)
            v = self.expr(x)
            return Val("ptr", space="local", elem=CType("other"), wraps=v.wraps)
        v = self.expr(e[2])
        if op == "*":
            if v.kind == "ptr":
                self.record(v, line)
                return self.load(v)
            return other(v.wraps)
        if v.kind != "int":
            return v if v.kind in ("float", "other") else other(v.wraps)
        bits, signed = self.promote(v)
        if op == "!":
            return mk_int(32, True, 0, 1, v.wraps)
        if op == "+":
            return mk_int(bits, signed, v.lo, v.hi, v.wraps)
        if op == "-":
            return self.fit(bits, signed, -v.hi, -v.lo, v.wraps, f"-({fmt(v.lo, v.hi)})", line)
        if op == "~":
            if signed:
                return mk_int(bits, signed, ~v.hi, ~v.lo, v.wraps)
            return top_int(bits, signed, v.wraps)
        raise SyntaxError(f"unary {op}")

    def e_post(self, e):
        old = self.expr(e[2])
        self.assign_to(e[2], ("bin", e[1][0], e[2], ("num", mk_int(32, True, 1, 1)), e[3]), e[3])
        return old

    def e_cond(self, e):
        c = self.expr(e[1])
        vals = []
        for truth, x in ((True, e[2]), (False, e[3])):
            undo = self.refine(e[1], truth)
            if undo is None:
                continue
            vals.append(self.expr(x))
            self.unrefine(undo)
        if len(vals) == 1:
            return vals[0]
        a, b = vals if vals else (other(), other())
        if a.kind == b.kind == "int":
            bits, signed = self.common(a, b)
            a, b = self.widen(a, bits, signed), self.widen(b, bits, signed)
        v = join(a, b)
        return replace(v, wraps=v.wraps | (c.wraps if v.kind != "int" else frozenset()))

    def e_assign(self, e):
        op, lhs, rhs, line = e[1], e[2], e[3], e[4]
        value = rhs if op == "=" else ("bin", op[:-1], lhs, rhs, line)
        return self.assign_to(lhs, value, line)

    def assign_to(self, lhs, value_expr, line) -> Val:
        v = self.expr(value_expr)
        if lhs[0] == "id" and lhs[1] in self.env:
            ctype = self.env[lhs[1]][0]
            if ctype.base == "auto":
                nv = v
            else:
                nv = self.convert(v, ctype, f"assigning {lhs[1]}", line)
            self.env[lhs[1]] = (ctype, nv)
            return nv
        # a store through a subscript, a dereference or a member: evaluates the address
        self.expr(lhs)
        return v

    # -- integer arithmetic
    @staticmethod
    def promote(v: Val) -> tuple[int, bool]:
        if v.bits < 32:
            return 32, True
        return v.bits, v.signed

    def common(self, a: Val, b: Val) -> tuple[int, bool]:
        (ab, asg), (bb, bsg) = self.promote(a), self.promote(b)
        if asg == bsg:
            return max(ab, bb), asg
        ub, sb = (ab, bb) if not asg else (bb, ab)
        return (ub, False) if ub >= sb else (sb, True)

    def widen(self, v: Val, bits: int, signed: bool) -> Val:
        lo, hi = int_bounds(bits, signed)
        if lo <= v.lo and v.hi <= hi:
            return mk_int(bits, signed, v.lo, v.hi, v.wraps)
        # a negative value converted to unsigned: wraps by definition
        return top_int(bits, signed, self.wrap(v.wraps, f"{fmt(v.lo, v.hi)} converted to {type_name(bits, signed)}"))

    def fit(self, bits, signed, lo, hi, wraps, text, line) -> Val:
        tlo, thi = int_bounds(bits, signed)
        if tlo <= lo and hi <= thi:
            return mk_int(bits, signed, lo, hi, wraps)
        if bits >= 64:      # 64-bit arithmetic: no tensor reaches its limits (data-dependent values do)
            return top_int(bits, signed, wraps)
        return top_int(bits, signed, self.wrap(wraps, f"line {line}: {text} is {fmt(lo, hi)}, beyond {type_name(bits, signed)}"))

    def e_bin(self, e):
        op, line = e[1], e[4]
        a, b = self.expr(e[2]), self.expr(e[3])
        w = a.wraps | b.wraps
        if op in ("&&", "||"):
            return mk_int(32, True, 0, 1, w)
        if a.kind == "ptr" or b.kind == "ptr":
            if op in ("+", "-") and a.kind == "ptr" and b.kind != "ptr":
                p = self.ptr_add(a, b, op, line)
                self.record(p, line)
                return p
            if op == "+" and b.kind == "ptr":
                p = self.ptr_add(b, a, "+", line)
                self.record(p, line)
                return p
            if op in ("<", "<=", ">", ">=", "==", "!="):
                return mk_int(32, True, 0, 1, w)
            return other(w)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            if a.kind == b.kind == "int":
                bits, signed = self.common(a, b)
                if not signed:     # a signed operand that may be negative compares wrongly
                    self.widen(a, bits, signed), self.widen(b, bits, signed)
            return mk_int(32, True, 0, 1, w)
        if a.kind != "int" or b.kind != "int":
            kind = "float" if "float" in (a.kind, b.kind) else "other"
            return Val(kind, wraps=w)
        if op in ("<<", ">>"):
            bits, signed = self.promote(a)
        else:
            bits, signed = self.common(a, b)
            a, b = self.widen(a, bits, signed), self.widen(b, bits, signed)
            w = a.wraps | b.wraps
        text = f"`{op}` of {fmt(a.lo, a.hi)} and {fmt(b.lo, b.hi)} in {type_name(bits, signed)}"
        if op in ("+", "-", "*"):
            f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op]
            cs = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
            return self.fit(bits, signed, min(cs), max(cs), w, text, line)
        if op == "/":
            blo, bhi = b.lo, b.hi
            if blo <= 0 <= bhi:
                if blo == 0 and bhi > 0:
                    blo = 1
                else:
                    m = max(abs(a.lo), abs(a.hi))
                    return self.fit(bits, signed, -m, m, w, text, line)
            cs = [int(x / y) if (x < 0) != (y < 0) else x // y for x in (a.lo, a.hi) for y in (blo, bhi)]
            return self.fit(bits, signed, min(cs), max(cs), w, text, line)
        if op == "%":
            m = max(abs(b.lo), abs(b.hi)) - 1
            if m < 0:
                return top_int(bits, signed, w)
            lo = 0 if a.lo >= 0 else max(a.lo, -m)
            hi = 0 if a.hi <= 0 else min(a.hi, m)
            return mk_int(bits, signed, lo, hi, w)
        if op == "<<":
            if b.lo < 0 or b.hi >= bits:
                return top_int(bits, signed, w)
            cs = [x << y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
            return self.fit(bits, signed, min(cs), max(cs), w, text, line)
        if op == ">>":
            if b.lo < 0:
                return top_int(bits, signed, w)
            cs = [x >> min(y, bits - 1) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
            return mk_int(bits, signed, min(cs), max(cs), w)
        if op == "&":
            his = [v.hi for v in (a, b) if v.lo >= 0]
            return mk_int(bits, signed, 0, min(his), w) if his else top_int(bits, signed, w)
        if op in ("|", "^"):
            if a.lo >= 0 and b.lo >= 0:
                hi = (1 << max(a.hi, b.hi, 1).bit_length()) - 1
                return mk_int(bits, signed, max(a.lo, b.lo) if op == "|" else 0, hi, w)
            return top_int(bits, signed, w)
        raise SyntaxError(f"binary {op}")


def check_kernel(kernel, type_names=()) -> Report:
    """The index report of one generated Kernel (its source at its grid and block); pointer
    parameters are named by the graph values they bind (a test compares each value's span with
    its element count)."""
    from compiler.ir.dtypes import DType
    names = set(type_names) | {d.ctype for d in DType if " " not in d.ctype}
    labels = [p.value for p in kernel.params]
    return Checker(kernel.source, kernel.entry, kernel.grid, kernel.block, labels, names).run()

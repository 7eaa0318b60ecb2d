"""Shows that kernel source goldens differ from an earlier set only by the block-function change
(issue 12 item 5): each kernel of the new goldens is mapped back to the form it had before, a
single `__global__` function reading blockIdx/gridDim, and the files are compared byte for byte
(launch lines, helpers and every other line included).

The inverse mapping of codegen/block_function.py: a body and its wrapper

    BY_DEVICE void <K>_body(<params>, const by_block_index by_block) {
    <body>
    }
    BY_KERNEL void <bounds><K>(<params>) {
      <K>_body(<args>, by_this_block());
    }

(with `BY_DEVICE_STATE unsigned int <K>_arrivals[n];` before the wrapper, which passes
`by_this_block(<K>_arrivals)`, when its blocks count arrivals: split-K)

become the wrapper's signature line(s) over the body, with by_block.idx./by_block.grid. read as
blockIdx./gridDim. Checked on the way: the body's parameters are the wrapper's (a
`__grid_constant__` one as a const reference), the wrapper passes exactly their names, and no
`by_block`/`_body`/`by_this_block` is left after the mapping.

    python -m tests.codegen.block_index_diff --rev HEAD~1        # goldens of a git revision
    python -m tests.codegen.block_index_diff --before /tmp/goldens_before
Exits non-zero (and prints unified diffs) when any file differs otherwise."""
from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "goldens" / "kernels"
REPO = Path(__file__).resolve().parents[2]

KERNEL = re.compile(
    r"^BY_DEVICE void (?P<name>\w+)_body\((?P<bparams>.*?),? ?const by_block_index by_block\) \{\n"
    r"(?P<body>.*?)\n\}\n"
    r"(?:BY_DEVICE_STATE unsigned int (?P=name)_arrivals\[(?P<arrivals>\d+)\];\n)?"
    r"(?P<sig>BY_KERNEL void (?:__launch_bounds__\([^)]*\) )?(?P=name)\((?P<params>.*?)\) \{)\n"
    r"  (?P=name)_body\((?P<args>.*?)by_this_block\((?P<state>\w*)\)\);\n\}$",
    re.S | re.M)
DECL = re.compile(r"^(.*?)\s*\b([A-Za-z_]\w*)$", re.S)


def _decls(text: str) -> list[str]:
    return [d.strip() for d in text.split(",")] if text.strip() else []


def _check(m: re.Match) -> list[str]:
    """What is wrong with one body/wrapper pair (nothing: the mechanical form)."""
    problems = []
    wrapper, body = _decls(m["params"]), _decls(m["bparams"])
    want = []
    for d in wrapper:
        head, name = DECL.match(d).groups()
        if "__grid_constant__" in head.split():
            d = " ".join(w for w in head.split() if w != "__grid_constant__") + f"& {name}"
        want.append(d)
    if body != want:
        problems.append(f"{m['name']}: body parameters {body} are not the wrapper's {want}")
    names = [DECL.match(d).group(2) for d in wrapper]
    args = _decls(m["args"].rstrip().rstrip(","))
    if args != names:
        problems.append(f"{m['name']}: the wrapper passes {args}, not its parameters {names}")
    # arrival counters (split-K): declared for the wrapper, passed in the block index, or neither
    want_state = f"{m['name']}_arrivals" if m["arrivals"] else ""
    if m["state"] != want_state:
        problems.append(f"{m['name']}: the wrapper passes counters {m['state']!r}, declares {want_state!r}")
    return problems


def to_old_form(text: str) -> tuple[str, list[str], int]:
    """(the text with every kernel in its pre-block-function form, problems, kernels mapped)."""
    problems: list[str] = []
    count = 0

    def back(m: re.Match) -> str:
        nonlocal count
        count += 1
        problems.extend(_check(m))
        body = m["body"].replace("by_block.idx.", "blockIdx.").replace("by_block.grid.", "gridDim.")
        return f"{m['sig']}\n{body}\n}}"

    out = KERNEL.sub(back, text)
    for left in ("by_block", "_body(", "by_this_block"):
        if left in out:
            line = next(ln for ln in out.splitlines() if left in ln)
            problems.append(f"`{left}` left after the mapping: {line.strip()}")
    return out, problems, count


def _before_text(name: str, before: Path | None, rev: str | None) -> str | None:
    if before is not None:
        p = before / name
        return p.read_text() if p.exists() else None
    rel = (GOLDEN_DIR / name).relative_to(REPO)
    r = subprocess.run(["git", "show", f"{rev}:{rel.as_posix()}"], cwd=REPO, capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--before", type=Path, help="directory of the earlier goldens")
    src.add_argument("--rev", help="git revision whose tests/goldens/kernels are the earlier goldens")
    ap.add_argument("--after", type=Path, default=GOLDEN_DIR, help="directory of the new goldens")
    args = ap.parse_args(argv)
    bad = 0
    total = 0
    for path in sorted(args.after.glob("*.cu")):
        new = path.read_text()
        old = _before_text(path.name, args.before, args.rev)
        mapped, problems, n = to_old_form(new)
        total += n
        if old is None:
            print(f"{path.name}: no earlier golden")
            bad += 1
            continue
        if problems or mapped != old:
            bad += 1
            print(f"{path.name}: {n} kernels mapped back, DIFFERS")
            for p in problems:
                print(f"  {p}")
            diff = difflib.unified_diff(old.splitlines(), mapped.splitlines(), f"before/{path.name}",
                                        f"mapped/{path.name}", lineterm="", n=1)
            print("\n".join(list(diff)[:80]))
        else:
            print(f"{path.name}: {n} kernels mapped back, identical")
    print(f"{total} kernels in {len(list(args.after.glob('*.cu')))} files; {bad} file(s) differ "
          "other than by the block-function change")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

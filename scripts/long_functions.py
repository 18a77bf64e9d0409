"""Count the functions in src/ longer than a limit (default 50 lines), for the structure report.

Usage: python scripts/long_functions.py [--limit 50] [--list] [root]
A function's length is its last line minus its first (decorators excluded) plus one; nested
functions count on their own and within their parent.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path


def long_functions(root: Path, limit: int) -> list[tuple[str, str, int]]:
    """(file, qualified name, lines) of every function in ``root`` longer than ``limit`` lines."""
    found: list[tuple[str, str, int]] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    name = f"{prefix}{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        lines = (child.end_lineno or child.lineno) - child.lineno + 1
                        if lines > limit:
                            found.append((str(path.relative_to(root.parent)), name, lines))
                    stack.append((child, name + "."))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", nargs="?", default="src/vigil")
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    found = long_functions(Path(args.root), args.limit)
    if args.list:
        for file, name, lines in sorted(found, key=lambda row: -row[2]):
            print(f"{lines:5d}  {file}:{name}")
    print(f"functions over {args.limit} lines: {len(found)}")


if __name__ == "__main__":
    main()

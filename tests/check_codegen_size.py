#!/usr/bin/env python3
"""check_codegen_size.py [ROOT] — the size rule of issue 13 for the code generator: no function
in codegen/ longer than 120 lines and no C string literal there longer than 40 lines.

Every .c, .h and .cuh file under ROOT/codegen (ROOT defaults to the current directory) is read
with a small C lexer, so that braces and quotes inside comments, string literals and character
literals, and preprocessor lines, do not count. A function is a definition at file scope (inside
`extern "C" {` or a namespace too): its length runs from the first line of its signature (the
first line after the previous declaration, comment or preprocessor line) to the line of its
closing brace, both included. A string literal is a run of adjacent literals that C concatenates
into one ("a" "b" on separate lines is one literal); its length runs from its first line to its
last. Prints FILE:LINE, the name and the length of every offender; exit 1 if there is one."""
import os
import re
import sys

MAX_FUNCTION = 120
MAX_STRING = 40
EXTENSIONS = (".c", ".h", ".cuh")


def tokens(text):
    """Yield (kind, value, line) for the significant tokens: 'str' (a string literal), 'chr',
    'pp' (a whole preprocessor line, continuations included), 'punct' (one character) and
    'word'. Comments and white space are dropped."""
    i, line, n = 0, 1, len(text)
    at_line_start = True  # only white space since the last newline: '#' starts a directive
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "#" and at_line_start:
            start, j = line, i
            while j < n and text[j] != "\n":
                if text.startswith("/*", j):  # a comment may span lines inside a directive
                    end = text.find("*/", j + 2)
                    end = n if end < 0 else end + 2
                    line += text.count("\n", j, end)
                    j = end
                    continue
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    line += 1
                    j += 2
                    continue
                j += 1
            yield "pp", text[i:j], start
            i = j
            continue
        at_line_start = False
        if c in "\"'":
            start, j = line, i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    if j + 1 < n and text[j + 1] == "\n":
                        line += 1
                    j += 2
                    continue
                if text[j] == "\n":  # unterminated: stop at the end of the line
                    break
                j += 1
            yield ("str" if c == '"' else "chr"), text[i:j + 1], start
            i = j + 1
            continue
        m = re.compile(r"[A-Za-z_0-9]+").match(text, i)
        if m:
            yield "word", m.group(0), line
            i = m.end()
            continue
        yield "punct", c, line
        i += 1


def function_name(decl):
    """The declared name: the word before the first '(' of the declaration."""
    for k, (kind, value, _) in enumerate(decl):
        if kind == "punct" and value == "(":
            for kind2, value2, _ in reversed(decl[:k]):
                if kind2 == "word" and value2 != "__attribute__":
                    return value2
            return "?"
    return "?"


def is_function(decl):
    """A declaration followed by '{' at file scope defines a function when it has a parameter
    list and no '=' outside parentheses (an initialiser: `int x[] = {`), and is not a struct,
    union, enum or typedef."""
    if not decl:
        return False
    words = [v for k, v, _ in decl if k == "word"]
    if set(words) & {"struct", "union", "enum", "typedef"} and decl[-1][1] != ")":
        return False
    depth, paren = 0, False
    for kind, value, _ in decl:
        if kind != "punct":
            continue
        if value == "(":
            depth += 1
            paren = True
        elif value == ")":
            depth -= 1
        elif value == "=" and depth == 0:
            return False
    return paren


def is_scope(decl):
    """`extern "C" {` and `namespace x {`: a brace that holds definitions, not a body."""
    if len(decl) >= 2 and decl[0][1] == "extern" and decl[1][0] == "str":
        return True
    return bool(decl) and decl[0][1] == "namespace"


def check(path, rel):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    problems = []
    decl = []          # tokens of the current file-scope declaration
    decl_line = None   # its first line
    scopes = []        # for each open brace: 'scope' (extern/namespace), 'func' or 'block'
    func = None        # (name, first line) of the function being read
    body_depth = 0     # open braces inside the current function or file-scope initialiser
    string = None      # [first line, last line] of the literal being read
    prev_kind = None
    for kind, value, line in tokens(text):
        if kind == "str":
            if prev_kind == "str" and string:
                string[1] = line + value.count("\\\n")
            else:
                if string and string[1] - string[0] + 1 > MAX_STRING:
                    problems.append((string[0], f"string literal of {string[1] - string[0] + 1} "
                                     f"lines (limit {MAX_STRING})"))
                string = [line, line + value.count("\\\n")]
        prev_kind = kind
        if kind == "pp":
            if body_depth == 0 and func is None:
                decl, decl_line = [], None
            continue
        if body_depth > 0:
            if kind == "punct" and value == "{":
                body_depth += 1
            elif kind == "punct" and value == "}":
                body_depth -= 1
                if body_depth == 0 and func is not None:
                    name, first = func
                    length = line - first + 1
                    if length > MAX_FUNCTION:
                        problems.append((first, f"function {name} is {length} lines "
                                         f"(limit {MAX_FUNCTION})"))
                    func = None
                    decl, decl_line = [], None
            continue
        # file scope (possibly inside extern "C" / namespace)
        if kind == "punct" and value == "{":
            if is_scope(decl):
                scopes.append("scope")
            else:
                if is_function(decl):
                    func = (function_name(decl), decl_line)
                body_depth = 1
                if func is None:  # an initialiser or a struct: read to its '}' and go on
                    decl = decl + [(kind, value, line)]
                continue
            decl, decl_line = [], None
            continue
        if kind == "punct" and value == "}" and scopes:
            scopes.pop()
            decl, decl_line = [], None
            continue
        if kind == "punct" and value == ";":
            decl, decl_line = [], None
            continue
        if decl_line is None:
            decl_line = line
        decl.append((kind, value, line))
    if string and string[1] - string[0] + 1 > MAX_STRING:
        problems.append((string[0], f"string literal of {string[1] - string[0] + 1} lines "
                         f"(limit {MAX_STRING})"))
    return [f"{rel}:{ln}: {what}" for ln, what in sorted(problems)]


def selftest():
    """The checker on made-up sources at and just over the limits, with braces and quotes in
    comments, strings and character literals that must not count. None when it judges them
    right, else what went wrong."""
    import tempfile
    body = lambda n: "".join(f"    x += {i}; /* {{ */\n" for i in range(n))
    lit = lambda n: "".join(f'    "line {i} }} {{ \\" \\n"\n' for i in range(n))
    cases = [
        (f"static int ok(int x)\n{{\n{body(117)}}}\n", []),
        (f"int\nlong_one(void)\n{{\n    char c = '{{';\n{body(118)}}}\n", ["long_one is 123"]),
        (f"#define F(x) {{ \\\n  x }}\nstatic const int t[] = {{1, 2}};\nvoid f(void)\n"
         f"{{\n    g(\n{lit(40)}    );\n}}\n", []),
        (f"void f(void)\n{{\n    g(\n{lit(41)}    );\n}}\n", ["string literal of 41"]),
        (f'extern "C" {{\nvoid h(void)\n{{\n{body(119)}}}\n}}\n', ["h is 122"]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for k, (src, want) in enumerate(cases):
            path = os.path.join(tmp, f"case{k}.c")
            with open(path, "w") as f:
                f.write(src)
            got = check(path, f"case{k}.c")
            if len(got) != len(want) or any(w not in g for w, g in zip(want, got)):
                return f"self-test case {k}: expected {want}, got {got}"
    return None


def main():
    wrong = selftest()
    if wrong:
        print(f"check_codegen_size: {wrong}")
        return 2
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    top = os.path.join(root, "codegen")
    if not os.path.isdir(top):
        print(f"check_codegen_size: no directory {top}")
        return 2
    problems, files = [], 0
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(EXTENSIONS):
                path = os.path.join(dirpath, name)
                problems += check(path, os.path.relpath(path, root))
                files += 1
    for p in problems:
        print(p)
    print(f"{files} files under codegen/ checked: {len(problems)} over the limits "
          f"(functions {MAX_FUNCTION} lines, string literals {MAX_STRING} lines)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

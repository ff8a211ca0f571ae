#!/usr/bin/env python3
"""Compiles the guides' code: every ```swift block of README.md and Documentation/*.md, and of the
doc comments (`///`) of every Sources/**/*.swift file.

    python3 .ci/guides.py                    # regenerate Tests/CourierGuideTests/Generated
    python3 .ci/guides.py --check-manifests  # also evaluate the Package.swift fragments

A source file's doc comments are read as one Markdown text (each line's `/// ` removed; a block's
line is its line in the source file) and become Generated/Doc<Module><Path>.swift, with
`enum Doc<Module><Path>Guide`, importing the file's own module too; markers go on the `///` line
before the fence. An example inside the file's `#if X` (a trait, `canImport(Security)`) compiles
only where `X` holds, as its declaration does: the script reads the file's `#if`s, so the block
needs no `if` marker. An example on an internal declaration cannot compile outside its module:
its block says so with `skip:`.

Each guide becomes one Swift file, Tests/CourierGuideTests/Generated/<Guide>.swift, built by
`swift build --build-tests` and run by `swift test`, so a guide whose code stops compiling fails
CI (`.ci/run` regenerates the files and fails when they differ from the committed ones).

A guide's code lives in `enum <Guide>Guide`, so names from different guides never collide:
  - types and functions a block declares become members of that enum (functions `static`),
    `extension`s stay at file scope, `import`s go to the top of the file;
  - a block's statements become the body of a `static func line<N>() async throws`, compiled and
    never called, or, with the `run` marker, a `@Test` that runs against CourierTesting's stubs;
  - a block that only declares endpoint members (`var body: RequestBody? { … }`) compiles each of
    them inside an endpoint of its own;
  - `@Test` functions a guide shows are tests (`static`), and run.
What a block uses without declaring it (a `client`, a `tokenEndpoint`) comes from the
hand-written files in Tests/CourierGuideTests/Support. The generated code is the visible code,
plus only: `evaluate(…)` around an expression statement (a guide often shows its value in a
comment; unused, it would warn), and `_ = name` after a `let`/`var` (warnings otherwise; CI has
none).

A block without a marker is compiled (its statements are not run). Markers are an HTML comment on
the line before the fence, which neither DocC nor GitHub shows: `<!-- guide: MARKERS -->`,
MARKERS separated by commas:
  run                 the statements run, as a `@Test`
  scope NAME          blocks with the same scope share one function: a block sees the values of
                      the blocks of its scope before it
  compile-only        the block's `@Test` functions are compiled, not run (their attribute is dropped)
  if <condition>      compiled only where `#if <condition>` holds, e.g. `if canImport(Combine)`
  manifest            a Package.swift fragment (found on its own when it starts with `.package(`,
                      `.target(`, `.testTarget(`, `// Package.swift` or `// swift-tools-version`): evaluated by
                      `swift package dump-package` with --check-manifests
  skip: <reason>      not compiled; the reason is printed (code that shows a compile error)
Anything else, or a block that cannot be placed, fails the script: no block is skipped silently.
The generated files are not linted (`// swift-format-ignore-file`): they keep the guides' layout.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUT = os.path.join("Tests", "CourierGuideTests", "Generated")
DEFAULT_IMPORTS = ["Courier", "Foundation", "Testing"]

KEYWORDS = {
    "let", "var", "if", "guard", "for", "while", "repeat", "do", "switch", "case", "default", "return",
    "throw", "break", "continue", "defer", "import", "func", "struct", "enum", "class", "actor",
    "protocol", "extension", "typealias", "fallthrough", "catch", "else", "where", "in", "print",
    "Task", "_", "static", "private", "fileprivate", "public", "internal", "final", "nonisolated",
}
DECL_KEYWORDS = {"struct", "enum", "class", "actor", "protocol", "typealias", "func"}
MODIFIERS = {"private", "fileprivate", "internal", "public", "final", "nonisolated", "indirect", "open"}


class GuideError(Exception):
    pass


# --- Lexing -----------------------------------------------------------------------------------

def scan(lines):
    """For each line: (brace depth at its start, paren/bracket depth at its start, code, column of
    its `//` comment or None) where code is the line with string contents blanked and comments
    removed."""
    out = []
    braces = parens = 0
    in_string = None  # None, '"' or '"""'
    in_block_comment = False
    stack = []  # interpolation: paren depth inside \( … )
    for line in lines:
        start = (braces, parens)
        code = []
        comment = None
        i = 0
        n = len(line)
        while i < n:
            c = line[i]
            if in_block_comment:
                if line.startswith("*/", i):
                    in_block_comment = False
                    i += 2
                else:
                    i += 1
                continue
            if in_string:
                if c == "\\":
                    if i + 1 < n and line[i + 1] == "(":
                        stack.append((in_string, 0))
                        in_string = None
                        code.append("(")
                        i += 2
                        continue
                    i += 2
                    continue
                if line.startswith(in_string, i):
                    code.append('"')
                    i += len(in_string)
                    in_string = None
                    continue
                i += 1
                continue
            if line.startswith("//", i):
                comment = i
                break
            if line.startswith("/*", i):
                in_block_comment = True
                i += 2
                continue
            if line.startswith('#"', i):
                end = line.find('"#', i + 2)
                code.append('""')
                i = n if end < 0 else end + 2
                continue
            if line.startswith('"""', i):
                in_string = '"""'
                code.append('"')
                i += 3
                continue
            if c == '"':
                in_string = '"'
                code.append('"')
                i += 1
                continue
            if stack and c in "()":
                s, d = stack[-1]
                if c == "(":
                    stack[-1] = (s, d + 1)
                elif d == 0:
                    stack.pop()
                    in_string = s
                    code.append(")")
                    i += 1
                    continue
                else:
                    stack[-1] = (s, d - 1)
            if c == "{":
                braces += 1
            elif c == "}":
                braces -= 1
            elif c in "([":
                parens += 1
            elif c in ")]":
                parens -= 1
            code.append(c)
            i += 1
        out.append((start[0], start[1], "".join(code).rstrip(), comment))
    return out


def first_word(code):
    m = re.match(r"\s*([#@]?[A-Za-z_][A-Za-z0-9_]*)", code)
    return m.group(1) if m else ""


def strip_attributes(code):
    """The code after leading attributes and modifiers."""
    s = code.strip()
    while True:
        m = re.match(r"@[A-Za-z_][A-Za-z0-9_.]*", s)
        if m:
            s = s[m.end():]
            if s.startswith("("):
                depth = 0
                for j, ch in enumerate(s):
                    depth += ch == "("
                    depth -= ch == ")"
                    if depth == 0:
                        s = s[j + 1:]
                        break
            s = s.lstrip()
            continue
        w = first_word(s)
        if w in MODIFIERS:
            s = s[len(w):].lstrip()
            continue
        return s


CONTINUATION_START = re.compile(r"^\s*(\.|\}|\)|\]|catch\b|else\b|where\b|&&|\|\||\?\?|[-+*/]\s|:|->)")
CONTINUATION_END = re.compile(r"(=|,|&&|\|\||\?\?|->|[-+*/])\s*$")


# --- Blocks -----------------------------------------------------------------------------------

class Block:
    def __init__(self, guide, line, lines, markers):
        self.guide = guide
        self.line = line
        self.lines = lines
        self.markers = markers
        self.kind = None  # code, members, manifest, skip

    @property
    def where(self):
        return f"{self.guide}:{self.line}"


MARKER = re.compile(r"^\s*<!--\s*guide:\s*(.*?)\s*-->\s*$")
# On a line of its own anywhere in a guide: the guide's code names module A, which is this
# repository's module B (a generated client's module, say, which in a user's package has the
# user's name): every block is compiled with the name B.
MODULE_ALIAS = re.compile(r"^\s*<!--\s*guide:\s*module\s+(\w+)\s+is\s+(\w+)\s*-->\s*$")


def read_blocks(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    conditions = None
    if path.endswith(".swift"):
        conditions = compile_conditions(text)
        text = doc_comment_text(text)
    aliases = [m.groups() for m in map(MODULE_ALIAS.match, text) if m]
    blocks = []
    i = 0
    while i < len(text):
        m = re.match(r"^(\s*)```swift\s*$", text[i])
        if m:
            indent = len(m.group(1))
            j = i + 1
            while j < len(text) and text[j].strip() != "```":
                j += 1
            if j == len(text):
                raise GuideError(f"{path}:{i + 1}: a ```swift fence is never closed")
            body = [line[indent:] if line[:indent].strip() == "" else line for line in text[i + 1:j]]
            for name, module in aliases:
                body = [re.sub(rf"\b{name}\b", module, line) for line in body]
            k = i - 1
            while k >= 0 and not text[k].strip():
                k -= 1
            markers = {}
            mm = MARKER.match(text[k]) if k >= 0 and not MODULE_ALIAS.match(text[k]) else None
            if mm:
                spec = mm.group(1)
                if "skip:" in spec:  # the reason is the rest, commas and all
                    spec, reason = spec.split("skip:", 1)
                    markers["skip"] = reason.strip()
                for part in [p.strip() for p in spec.split(",") if p.strip()]:
                    if part.startswith("if "):
                        markers["if"] = part[3:].strip()
                    elif part.startswith("scope "):
                        markers["scope"] = part[6:].strip()
                    elif part in ("run", "compile-only", "manifest"):
                        markers[part] = True
                    else:
                        raise GuideError(f"{path}:{k + 1}: unknown guide marker {part!r}")
            if conditions and conditions[i]:  # the declaration's own `#if`, and the block's
                own = [markers["if"]] if "if" in markers and markers["if"] not in conditions[i] else []
                markers["if"] = " && ".join(f"({c})" for c in conditions[i] + own)
            blocks.append(Block(path, i + 1, body, markers))
            i = j
        i += 1
    return blocks


def compile_conditions(lines):
    """For each line of a Swift file, the `#if` conditions it is compiled under (`#else` negates
    its branch's condition), so that a doc comment's example compiles where its declaration does."""
    stack = []  # per open #if: (the conditions of its branches so far, the current branch's)
    out = []
    for line in lines:
        out.append([current for _, current in stack])
        code = re.sub(r"//.*", "", line).strip()
        prior = " || ".join(f"({c})" for c in stack[-1][0]) if stack else ""
        if code.startswith("#if "):
            stack.append(([code[4:].strip()], code[4:].strip()))
        elif code.startswith("#elseif ") and stack:
            stack[-1] = (stack[-1][0] + [code[8:].strip()], f"!({prior}) && ({code[8:].strip()})")
        elif code.startswith("#else") and stack:
            stack[-1] = (stack[-1][0], f"!({prior})")
        elif code.startswith("#endif") and stack:
            stack.pop()
    return out


def doc_comment_text(lines):
    """A Swift file's doc comments as Markdown, line for line (other lines blank), so a block's
    line number is its line in the source file."""
    out = []
    for line in lines:
        m = re.match(r"^\s*/// ?(.*)$", line)
        out.append(m.group(1) if m else "")
    return out


MANIFEST_START = re.compile(r"^\s*(// swift-tools-version|\.package\(|\.target\(|\.testTarget\(|\.executableTarget\(|// Package\.swift|dependencies:|targets:)")


def split_items(block):
    """Top-level items: (kind, lines). Kinds: import, ifimport, decl, extension, test, member, stmt."""
    lines = block.lines
    scanned = scan(lines)
    items = []
    current = None
    pending_comments = []
    prev_code = ""
    i = 0
    while i < len(lines):
        b, p, code, _ = scanned[i]
        if not code.strip():
            if current is not None and (b > 0 or p > 0):
                current[1].append(lines[i])
            elif lines[i].strip():
                pending_comments.append(lines[i])  # a comment between items: keep it with the next
            elif current is not None:
                current[1].append(lines[i])
            i += 1
            continue
        new = (
            b == 0 and p == 0
            and not CONTINUATION_START.match(code)
            and not CONTINUATION_END.search(prev_code)
            and not (current is not None and re.fullmatch(r"\s*(@[A-Za-z_][\w.]*(\(.*\))?\s*)+", prev_code))
        )
        if new and code.strip().startswith("#if"):
            j = i
            depth = 0
            while j < len(lines):
                c = scanned[j][2].strip()
                depth += c.startswith("#if")
                depth -= c.startswith("#endif")
                if depth == 0:
                    break
                j += 1
            group = lines[i:j + 1]
            inner = [scanned[k][2].strip() for k in range(i + 1, j) if scanned[k][2].strip()]
            kind = "ifimport" if inner and all(c.startswith(("import ", "#else", "#elseif")) for c in inner) else "stmt"
            items.append([kind, pending_comments + group])
            pending_comments = []
            current = None
            prev_code = ""
            i = j + 1
            continue
        if new:
            current = [classify_item(code, block), pending_comments + [lines[i]], code]
            pending_comments = []
            items.append(current)
        else:
            if current is None:
                raise GuideError(f"{block.where}: cannot place line {lines[i]!r}")
            current[1].extend(pending_comments + [lines[i]])
            pending_comments = []
        prev_code = code
        i += 1
    if pending_comments:
        if items:
            items[-1][1].extend(pending_comments)
        else:
            items.append(["stmt", pending_comments])
    for item in items:
        while item[1] and not item[1][-1].strip():
            item[1].pop()
        if item[0] == "stmt" and re.match(r"\s*@", item[2] if len(item) > 2 else ""):
            # Attributes on lines of their own: classify by the declaration they are on.
            code = " ".join(c for _, _, c, _ in scan(item[1]) if c.strip())
            item[0] = classify_item(code, block)
    return [item[:2] for item in items]


def classify_item(code, block):
    rest = strip_attributes(code)
    word = first_word(rest)
    if word == "import":
        return "import"
    if word == "extension":
        return "extension"
    if word in DECL_KEYWORDS:
        return "test" if re.match(r"\s*@Test\b", code) else "decl"
    if word == "var" and re.match(r"var\s+\w+\s*:[^=]*\{\s*$", rest) or re.match(r"var\s+\w+\s*:[^=]*\{.*\}\s*$", rest):
        return "member"
    if word == "static" and first_word(rest[len("static"):]) in ("let", "var", "func"):
        return "decl"  # a static member a doc comment shows: a member of the guide's enum
    if word in ("static", "case", "default") or code.strip().startswith(("}", ")", "]")):
        raise GuideError(f"{block.where}: cannot classify {code.strip()!r} (a member outside its type?)")
    return "stmt"


# --- Statement fix-ups --------------------------------------------------------------------------

ASSIGNMENT = re.compile(r"(?<![=!<>])=(?!=)")


def depth0(code):
    """The parts of `code` outside parentheses, brackets and braces opened on this line."""
    out = []
    d = 0
    for ch in code:
        if ch in "([{":
            d += 1
        elif ch in ")]}":
            d -= 1
        elif d == 0:
            out.append(ch)
    return "".join(out)


def fix_statements(body):
    """`_ = ` before expression statements and `_ = name` after unread `let`s (see the header)."""
    scanned = scan(body)
    text = "\n".join(s[2] for s in scanned)
    starts = []
    prev_code = ""
    for i, (b, p, code, _) in enumerate(scanned):
        if not code.strip():
            continue
        if p == 0 and not CONTINUATION_START.match(code) and not CONTINUATION_END.search(prev_code):
            starts.append(i)
        prev_code = code
    # The end of each statement: the last line before the next start at the same or a lower depth.
    inserts = {}
    prefix = {}  # first line: last line of a statement to wrap in `evaluate(…)`
    for i in starts:
        b = scanned[i][0]
        end = i
        for k in range(i + 1, len(body)):
            if not scanned[k][2].strip():
                continue
            if k in starts and scanned[k][0] <= b:
                break
            if scanned[k][0] == b and scanned[k][2].strip().startswith("}"):
                break  # the brace that closes the block the statement is in
            if scanned[k][0] < b:
                break
            end = k
        code = scanned[i][2].strip()
        word = first_word(code)
        statement = " ".join(scanned[k][2] for k in range(i, end + 1))
        m = re.match(r"(let|var)\s+(\(\s*[A-Za-z_][\w\s,]*\)|[A-Za-z_]\w*)\s*(:[^={]*)?(=|\{)", code)
        if m:
            indent = re.match(r"\s*", body[i]).group(0)
            for name in re.findall(r"[A-Za-z_]\w*", m.group(2)):
                uses = len(re.findall(r"(?<![\w.])" + re.escape(name) + r"\b", text))
                # At the function's top level always (a closure may shadow the name); a `var`
                # only written to warns too.
                if uses <= 1 or b == 0 or m.group(1) == "var":
                    inserts.setdefault(end, []).append(f"{indent}_ = {name}")
            continue
        bare = re.sub(r"^((try[?!]?|await)\s+)+", "", code)
        if word in KEYWORDS or bare.startswith(("#", "@", "_ ", "}")) or word == "":
            continue
        if ASSIGNMENT.search(depth0(statement)) or re.search(r"(\+|-|\*|/|<<|>>|&|\|)=", depth0(statement)):
            continue
        # The only statement of a closure may be its (implicit) return value: leave it.
        before = [k for k in range(i - 1, -1, -1) if scanned[k][2].strip()]
        after = [k for k in range(end + 1, len(body)) if scanned[k][2].strip()]
        opener = scanned[before[0]][2].strip() if before else ""
        control = re.match(r"(\}\s*)?(do|if|else|for|while|guard|catch|repeat|switch|defer)\b", opener)
        if b > 0 and opener.endswith(("{", " in")) and not control and (
            not after or scanned[after[0]][2].strip().startswith("}")
        ):
            continue
        prefix[i] = end
    lines = list(body)
    for first, last in prefix.items():
        indent = re.match(r"\s*", lines[first]).group(0)
        lines[first] = indent + "evaluate(" + lines[first][len(indent):]
        comment = scanned[last][3]
        if first == last and comment is not None:
            comment += len("evaluate(")
        line = lines[last]
        if comment is None:
            lines[last] = line.rstrip() + ")"
        else:
            code, rest = line[:comment].rstrip(), line[comment:]
            lines[last] = code + ")" + " " * max(1, len(line[:comment]) - len(code) - 1) + rest
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        out.extend(inserts.get(i, []))
    return out


# --- Generation ---------------------------------------------------------------------------------

def guide_name(path):
    if path.endswith(".swift"):  # Sources/Courier/Client/Call+Progress.swift: DocCourierClientCallProgress
        parts = os.path.splitext(path)[0].split(os.sep)[1:]
        return "Doc" + "".join(re.sub(r"\W", "", p[:1].upper() + p[1:]) for p in parts)
    base = os.path.splitext(os.path.basename(path))[0]
    return "Readme" if base == "README" else base


def source_module(path):
    """The module a source file belongs to (its doc comments' examples import it), or None."""
    parts = path.split(os.sep)
    return parts[1] if path.endswith(".swift") and len(parts) > 2 and parts[0] == "Sources" else None


def indent(lines, by="    "):
    return [by + line if line.strip() else "" for line in lines]


def make_static(lines):
    out = list(lines)
    for i, line in enumerate(out):
        code = re.sub(r"//.*", "", line)
        m = re.search(r"^(\s*(?:@\w+(?:\([^)]*\))?\s+)*)((?:nonisolated\s+|private\s+|fileprivate\s+)*)func\b", code)
        if m and "static" not in code:
            out[i] = line[:m.end(1)] + m.group(2) + "static " + line[m.end(1) + len(m.group(2)):]
            return out
    return out


def drop_test_attributes(lines):
    text = "\n".join(lines)
    out = []
    i = 0
    while True:
        j = text.find("@Test", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        k = j + 5
        if k < len(text) and text[k] == "(":
            depth = 0
            while k < len(text):
                depth += text[k] == "("
                depth -= text[k] == ")"
                k += 1
                if depth == 0:
                    break
        while k < len(text) and text[k] in " \n":
            k += 1
        i = k
    return "".join(out).split("\n")


def generate(path, counts):
    blocks = read_blocks(path)
    name = guide_name(path)
    imports = set()
    if_imports = []
    members = []  # lines inside the enum
    extensions = []
    functions = []  # [header comment, condition, run, body lines, first block]
    scopes = {}  # scope name: its function
    tally = {"blocks": len(blocks), "compiled": 0, "run": 0, "manifest": 0, "conditional": 0, "skipped": 0}
    skipped = []
    manifests = []
    for block in blocks:
        code_lines = [line for line in block.lines if line.strip() and not line.strip().startswith("//")]
        if "skip" in block.markers:
            tally["skipped"] += 1
            skipped.append(f"{block.where}: {block.markers['skip']}")
            continue
        if block.markers.get("manifest") or (code_lines and MANIFEST_START.match(block.lines[0] if block.lines else "")) or (
            code_lines and MANIFEST_START.match(code_lines[0])
        ):
            tally["manifest"] += 1
            manifests.append(block)
            continue
        items = split_items(block)
        condition = block.markers.get("if")
        wrap = (lambda ls: [f"#if {condition}"] + ls + ["#endif"]) if condition else (lambda ls: ls)
        stmts = [it for it in items if it[0] == "stmt"]
        member_items = [it for it in items if it[0] == "member"]
        if member_items and not stmts:
            kind = "members"
        else:
            kind = "code"
            for it in member_items:
                it[0] = "stmt"
            stmts = [it for it in items if it[0] == "stmt"]
        tests = [it for it in items if it[0] == "test"]
        runs = bool(block.markers.get("run")) or (bool(tests) and not block.markers.get("compile-only"))
        if block.markers.get("run") and not stmts:
            raise GuideError(f"{block.where}: `run` on a block without statements")
        header = f"// {block.where}"
        block_members = []
        for kind_, lines in items:
            if kind_ == "import":
                for line in lines:
                    m = re.match(r"\s*import\s+(\w+)", line)
                    if m:
                        imports.add((m.group(1), condition))
            elif kind_ == "ifimport":
                if lines not in if_imports:
                    if_imports.append(lines)
            elif kind_ == "extension":
                extensions.extend(wrap([header] + lines) + [""])
            elif kind_ == "decl":
                block_members.extend(make_static(lines) if first_word(strip_attributes(lines[0] if not lines[0].strip().startswith("//") else next(l for l in lines if not l.strip().startswith("//")))) == "func" else lines)
            elif kind_ == "test":
                if block.markers.get("compile-only"):
                    block_members.extend(make_static(drop_test_attributes(lines)))
                else:
                    block_members.extend(make_static(lines))
            elif kind_ == "member":
                wrapper = f"Line{block.line}Member{len([l for l in block_members if l.startswith('struct Line')]) + 1}"
                needs_base = not any(re.search(r"func\s+baseURL\b", l) for l in lines)
                body = []
                if needs_base:
                    body.append('func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }')
                block_members.append(f"struct {wrapper}: Requestable {{")
                block_members.extend(indent(body + lines))
                block_members.append("}")
        if block_members:
            members.extend(wrap([header] + block_members) + [""])
        if stmts:
            body = []
            for _, lines in stmts:
                body.extend(lines)
            scope = block.markers.get("scope")
            if scope and scope in scopes:
                prev = scopes[scope]
                prev[3].extend([f"// {block.where}"] + body)
                prev[2] = prev[2] or bool(block.markers.get("run"))
                if condition != prev[1]:
                    raise GuideError(f"{block.where}: scope {scope!r} has blocks with different `if`s")
            else:
                functions.append([header, condition, bool(block.markers.get("run")), body, block])
                if scope:
                    scopes[scope] = functions[-1]
        tally["compiled"] += 1
        if condition:
            tally["conditional"] += 1
        if runs:
            tally["run"] += 1
    out = [
        f"// Generated by .ci/guides.py from {path}: do not edit. Edit the guide, then run",
        "// `python3 .ci/guides.py`. The code is the guide's own, arranged as the script's header explains.",
        "// swift-format-ignore-file",
        "",
    ]
    plain = {m for m, c in imports if c is None} | set(DEFAULT_IMPORTS) | ({source_module(path)} - {None})
    for module in sorted(plain):
        out.append(f"import {module}")
    for module, condition in sorted((m, c) for m, c in imports if c is not None and m not in plain):
        out.extend([f"#if {condition}", f"import {module}", "#endif"])
    networking = ["#if canImport(FoundationNetworking)", "import FoundationNetworking", "#endif"]
    if path.endswith(".swift") and networking not in if_imports:
        if_imports.append(networking)  # URLSession's types on Linux, as the file itself imports them
    for group in if_imports:
        out.extend(group)
    out.append("")
    out.append(f"enum {name}Guide {{")
    body = list(members)
    for header, condition, run, lines, block in functions:
        fn = []
        fn.append(header)
        if run:
            fn.append(f'@Test("{block.where}") static func line{block.line}() async throws {{')
        else:
            fn.append(f"static func line{block.line}() async throws {{")
        fn.extend(indent(fix_statements(lines)))
        fn.append("}")
        body.extend((([f"#if {condition}"] + fn + ["#endif"]) if condition else fn) + [""])
    while body and not body[-1]:
        body.pop()
    out.extend(indent(body))
    out.append("}")
    if extensions:
        # An extension of a type the guide declares (in the enum) names it through the enum.
        declared = {
            m.group(1)
            for line in body
            for m in [re.match(r"\s*(?:(?:public|private|fileprivate|internal|final|indirect)\s+)*(?:struct|enum|class|actor|protocol)\s+(\w+)", line)]
            if m
        }
        out.append("")
        out.extend(re.sub(r"^(\s*extension\s+)(\w+)\b", lambda m: m.group(1) + (f"{name}Guide." if m.group(2) in declared else "") + m.group(2), line) for line in extensions)
    while out and not out[-1]:
        out.pop()
    counts.append((path, tally, skipped))
    return "\n".join(out) + "\n", manifests


# --- Manifests ----------------------------------------------------------------------------------

def check_manifest(block, workdir):
    elements = re.split(r"\n(?=\.package\()", "\n".join(block.lines))
    if len(elements) > 1:  # alternatives, one manifest each (one package cannot be listed twice)
        for element in elements:
            check_manifest(Block(block.guide, block.line, element.split("\n"), block.markers), workdir)
        return
    code = "\n".join(block.lines)
    stripped = [l for l in block.lines if l.strip() and not l.strip().startswith("//")]
    first = stripped[0].strip()
    deps = ['.package(url: "https://github.com/example/courier.git", from: "1.0.0")',
            '.package(url: "https://github.com/CoreOffice/XMLCoder.git", from: "0.18.0")',
            '.package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4")']
    targets = ['.target(name: "App")', '.target(name: "MyApp")']
    if "let package = Package(" in code:
        manifest = code
    elif first.startswith(".package("):
        body = f"dependencies: [\n{code}\n],\ntargets: [{', '.join(targets)}]"
    elif first.startswith((".target(", ".testTarget(", ".executableTarget(")):
        names = re.findall(r'name:\s*"(\w+)"', code.split("dependencies")[0])
        body = f"dependencies: [{', '.join(deps)}],\ntargets: [\n{code},\n{', '.join(t for t in targets if not any(n in t for n in names))}\n]"
    else:
        body = code
    if "let package = Package(" not in code:
        manifest = f"// swift-tools-version: 6.2\nimport PackageDescription\n\nlet package = Package(\n    name: \"GuideCheck\",\n{body}\n)\n"
    os.makedirs(workdir, exist_ok=True)
    with open(os.path.join(workdir, "Package.swift"), "w") as f:
        f.write(manifest)
    result = subprocess.run(["swift", "package", "--package-path", workdir, "dump-package"], capture_output=True, text=True)
    if result.returncode != 0:
        raise GuideError(f"{block.where}: the manifest fragment does not load:\n{manifest}\n{result.stderr}")


# --- Main ---------------------------------------------------------------------------------------

def main(argv):
    check = "--check-manifests" in argv
    guides = ["README.md"] + sorted(
        os.path.join("Documentation", f) for f in os.listdir(os.path.join(ROOT, "Documentation")) if f.endswith(".md")
    ) + sorted(
        os.path.relpath(os.path.join(d, f), ROOT)
        for d, _, fs in os.walk(os.path.join(ROOT, "Sources")) for f in fs if f.endswith(".swift")
    )
    counts = []
    all_manifests = []
    files = {}
    errors = []
    for path in guides:
        try:
            source, manifests = generate(path, counts)
        except GuideError as error:
            errors.append(error)
            continue
        all_manifests.extend(manifests)
        if counts[-1][1]["blocks"]:
            files[guide_name(path) + ".swift"] = source
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    if errors:
        return 1
    out_dir = os.path.join(ROOT, OUT)
    os.makedirs(out_dir, exist_ok=True)
    for existing in os.listdir(out_dir):
        if existing.endswith(".swift") and existing not in files:
            os.remove(os.path.join(out_dir, existing))
    for name, source in files.items():
        target = os.path.join(out_dir, name)
        if not os.path.exists(target) or open(target, encoding="utf-8").read() != source:
            with open(target, "w", encoding="utf-8") as f:
                f.write(source)
    total = {"blocks": 0, "compiled": 0, "run": 0, "manifest": 0, "conditional": 0, "skipped": 0}
    print(f"{'guide':<40} {'blocks':>6} {'compiled':>8} {'run':>4} {'manifest':>8} {'#if':>4} {'skipped':>7}")
    for path, tally, _ in counts:
        for key in total:
            total[key] += tally[key]
        print(f"{path:<40} {tally['blocks']:>6} {tally['compiled']:>8} {tally['run']:>4} {tally['manifest']:>8} "
              f"{tally['conditional']:>4} {tally['skipped']:>7}")
    print(f"{'total':<40} {total['blocks']:>6} {total['compiled']:>8} {total['run']:>4} {total['manifest']:>8} "
          f"{total['conditional']:>4} {total['skipped']:>7}")
    print("(#if: compiled only where the block's condition holds, counted in compiled; run: counted in compiled)")
    for _, _, skipped in counts:
        for line in skipped:
            print(f"skipped {line}")
    if check:
        workdir = tempfile.mkdtemp(prefix="courier-guide-manifest-")
        try:
            for block in all_manifests:
                check_manifest(block, workdir)
        except GuideError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        print(f"{len(all_manifests)} manifest fragments load with `swift package dump-package`.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The app's scripts are ES modules: linked here into one module per bundle, each of them run once per page.

Why a linker of our own: a page on a slow phone line can afford no round trip per file, so a page's
scripts travel as one bundle (assets.py), and no JavaScript bundler runs where the app is built or
served (esbuild and Rollup need Node; the Python ports are unmaintained). The scripts keep to the
part of the module syntax this reads, and anything else stops the bundle with a ModuleError naming
the file and line, at the first request or in the tests:

- `import { a, b as c } from "./file.js";` at the start of a line: named imports only;
- `export function a`, `export const a = …`, `export class A`, `export { a, b as c };`.

What a module exports is read once, when the module has run: export functions and objects (their
contents may change), not variables assigned later.

Each module becomes a function in the bundle, run through `define` on the first bundle that brings
it: a page's own bundle holds all the modules it needs beyond the shared bundle's, so one module may
come again in the bundle of another page a boosted link brings, and still runs once. The shared
bundle holds the registry and exports it; every other bundle imports it from the shared bundle's
address, which the page has loaded already (the browser's module map runs that one once too).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# Libraries written as classic scripts, placed in a module: the names their top level declares are what they export.
LIBRARIES = {"vendor/htmx/htmx.min.js": ("htmx",)}

_NAME = r"[A-Za-z_$][\w$]*"
_IMPORT = re.compile(r'^import[ \t]*\{([^}]*)\}[ \t]*from[ \t]*"([^"]+)";?[ \t]*$\n?', re.M)
_DECLARATION = r"(?:async[ \t]+)?function[ \t]*\*?[ \t]*|const[ \t]+|class[ \t]+"
_EXPORT_DECLARATION = re.compile(rf"^export[ \t]+({_DECLARATION})({_NAME})", re.M)
_EXPORT_LIST = re.compile(r"^export[ \t]*\{([^}]*)\};?[ \t]*$\n?", re.M)
# What is left of the module syntax once the forms above are read: a form this does not read.
_UNREAD = re.compile(r"^[ \t]*(?:import|export)\b(?![ \t]*[(.])", re.M)
_ALIAS = re.compile(rf"^({_NAME})(?:\s+as\s+({_NAME}))?$")

# The registry every bundle's modules run through; the shared bundle declares it and exports it.
_REGISTRY = (
    "const modules=new Map();"
    "function define(name,factory){if(!modules.has(name))modules.set(name,factory());}"
)


class ModuleError(ValueError):
    """A script a bundle cannot be linked from: a form of the module syntax not read here, or an import not found."""


@dataclass(frozen=True)
class Module:
    """One script read as a module: its path under static/, what it imports from where, what it exports, its code."""

    name: str
    imports: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    exports: tuple[tuple[str, str], ...]
    code: str


def _line_of(source: str, position: int) -> int:
    return source.count("\n", 0, position) + 1


def _aliases(listed: str, name: str, source: str, position: int) -> tuple[tuple[str, str], ...]:
    """`a, b as c` as ((a, a), (b, c)): each name as written first, then as the other side calls it."""
    pairs = []
    for item in filter(None, (part.strip() for part in listed.split(","))):
        found = _ALIAS.match(item)
        if not found:
            raise ModuleError(f"{name}:{_line_of(source, position)}: cannot read {item!r}")
        pairs.append((found.group(1), found.group(2) or found.group(1)))
    return tuple(pairs)


def read_module(name: str, source: str) -> Module:
    """A script's imports and exports, and its code without them."""
    if name in LIBRARIES:
        return Module(name, (), tuple((export, export) for export in LIBRARIES[name]), source)
    imports = []
    for found in _IMPORT.finditer(source):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(name), found.group(2)))
        imports.append((target, _aliases(found.group(1), name, source, found.start())))
    exports = [(found.group(2), found.group(2)) for found in _EXPORT_DECLARATION.finditer(source)]
    for found in _EXPORT_LIST.finditer(source):
        exports += [(local, exported) for local, exported in _aliases(found.group(1), name, source, found.start())]
    code = _EXPORT_LIST.sub("", _IMPORT.sub("", source))
    code = _EXPORT_DECLARATION.sub(lambda found: found.group(1) + found.group(2), code)
    unread = _UNREAD.search(code)
    if unread:
        raise ModuleError(f"{name}:{_line_of(code, unread.start())}: a form of import or export not read here")
    return Module(name, tuple(imports), tuple((exported, local) for local, exported in exports), code)


def in_order(entries: Iterable[str], read: Callable[[str], Module], provided: frozenset[str]) -> list[Module]:
    """The modules a bundle holds, each after those it imports: the entries and what they need, but what the
    shared bundle provides."""
    ordered: dict[str, Module] = {}
    visiting: set[str] = set()

    def visit(name: str, importer: str) -> None:
        if name in ordered or name in provided:
            return
        if name in visiting:
            raise ModuleError(f"{importer}: imports {name}, which imports it back")
        visiting.add(name)
        try:
            module = read(name)
        except FileNotFoundError:
            raise ModuleError(f"{importer}: imports {name}, which does not exist") from None
        for target, _ in module.imports:
            visit(target, name)
        visiting.discard(name)
        ordered[name] = module

    for entry in entries:
        visit(entry, entry)
    return list(ordered.values())


def _defined(module: Module, minify: Callable[[str, str], str]) -> str:
    """A module as its bundle runs it: a function given what it imports, returning what it exports."""
    imported = "".join(
        "const{" + ",".join(name if name == local else f"{name}:{local}" for name, local in names) + "}="
        f"modules.get({json.dumps(target)});"
        for target, names in module.imports
    )
    exported = ",".join(name if name == local else f"{name}:{local}" for name, local in module.exports)
    code = minify(module.name, module.code)
    return f"define({json.dumps(module.name)},function(){{{imported}{code}\nreturn{{{exported}}};}});"


def link(modules: list[Module], minify: Callable[[str, str], str], shared: str | None = None) -> str:
    """One bundle's code: the shared one (`shared` None) declares the registry and exports it; another imports it
    from the shared bundle's address, `shared`, relative to its own."""
    head = _REGISTRY if shared is None else f"import{{define,modules}}from{json.dumps(shared)};"
    tail = "export{define,modules};" if shared is None else ""
    return "\n".join([head, *(_defined(module, minify) for module in modules), tail])

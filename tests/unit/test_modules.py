"""The scripts linked as ES modules: what the linker reads of each, in what order a bundle runs them, what it stops."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.web.modules import LIBRARIES, ModuleError, in_order, link, read_module

STATIC = Path(__file__).resolve().parents[2] / "static"


def plain(name: str, code: str) -> str:
    return code


def sources(texts: dict[str, str]):
    """A reader of modules from their texts, by path."""

    def read(name: str):
        if name not in texts:
            raise FileNotFoundError(name)
        return read_module(name, texts[name])

    return read


def test_imports_and_exports_are_read_and_the_code_keeps_the_rest():
    module = read_module(
        "js/seats.js",
        'import { onLoad, text as say } from "./app.js";\n'
        'import { describers } from "./entries.js";\n'
        "export function fill(row) { return say(row); }\n"
        "export const WIDTH = 3;\n"
        "function hidden() {}\n"
        "export { hidden as conceal };\n"
        "var later = import(url);\n",
    )
    assert module.imports == (("js/app.js", (("onLoad", "onLoad"), ("text", "say"))),
                              ("js/entries.js", (("describers", "describers"),)))  # fmt: skip
    assert module.exports == (("fill", "fill"), ("WIDTH", "WIDTH"), ("conceal", "hidden"))
    assert "import {" not in module.code and "export" not in module.code
    assert "function fill(row)" in module.code and "var later = import(url);" in module.code


@pytest.mark.parametrize(
    "source",
    [
        'import app from "./app.js";\n',
        'import * as app from "./app.js";\n',
        "export default function () {}\n",
        "export let count = 0;\n",
        'export { text } from "./app.js";\n',
    ],
)
def test_a_form_of_the_module_syntax_not_read_stops_the_bundle_naming_the_file_and_line(source):
    with pytest.raises(ModuleError, match=r"js/odd\.js:2:"):
        read_module("js/odd.js", "// the first line\n" + source)


def test_a_bundle_holds_its_entries_after_what_they_import_but_what_the_shared_bundle_has():
    read = sources({
        "js/app.js": "export function onLoad() {}\n",
        "js/writes.js": 'import { onLoad } from "./app.js";\nexport function newKey() {}\n',
        "js/offline.js": 'import { newKey } from "./writes.js";\nimport { rows } from "./entries.js";\n',
        "js/entries.js": "export const rows = [];\n",
        "js/games/topic.js": 'import { rows } from "../entries.js";\n',
    })
    names = [module.name for module in in_order(["js/offline.js", "js/games/topic.js"], read, frozenset({"js/app.js"}))]
    assert names == ["js/writes.js", "js/entries.js", "js/offline.js", "js/games/topic.js"]


def test_an_import_of_no_file_or_in_a_circle_stops_the_bundle():
    with pytest.raises(ModuleError, match="js/a.js: imports js/gone.js, which does not exist"):
        in_order(["js/a.js"], sources({"js/a.js": 'import { x } from "./gone.js";\n'}), frozenset())
    circle = sources({"js/a.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
                     "js/b.js": 'import { a } from "./a.js";\nexport const b = 2;\n'})  # fmt: skip
    with pytest.raises(ModuleError, match="imports it back"):
        in_order(["js/a.js"], circle, frozenset())


def test_the_shared_bundle_exports_the_registry_and_another_imports_it_from_the_shared_address():
    read = sources({"js/app.js": "export function onLoad() {}\n",
                    "js/seats.js": 'import { onLoad } from "./app.js";\nonLoad();\n'})  # fmt: skip
    shared = link(in_order(["js/app.js"], read, frozenset()), plain)
    assert shared.endswith("export{define,modules};")
    assert 'define("js/app.js",function(){' in shared and "return{onLoad}" in shared
    page = link(in_order(["js/seats.js"], read, frozenset({"js/app.js"})), plain, shared="../0123456789ab.js")
    assert page.startswith('import{define,modules}from"../0123456789ab.js";')
    assert 'const{onLoad}=modules.get("js/app.js");' in page and 'define("js/app.js"' not in page


def test_the_apps_own_scripts_are_all_read_by_the_linker():
    # Every script of the app but the service worker, a classic script by the web's rules.
    scripts = [path for path in STATIC.glob("js/**/*.js") if path.name != "sw.js"]
    assert len(scripts) >= 10
    for path in scripts:
        module = read_module(path.relative_to(STATIC).as_posix(), path.read_text(encoding="utf-8"))
        assert "window.Companion" not in module.code, module.name
        for target, _ in module.imports:
            assert (STATIC / target).is_file(), (module.name, target)
    for library, names in LIBRARIES.items():
        assert all(f"var {name}=" in (STATIC / library).read_text(encoding="utf-8") for name in names)

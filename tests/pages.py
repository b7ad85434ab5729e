"""A page or htmx fragment read as its user meets it: text, controls by role and name, what its forms send."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

# Elements that never hold content, so no end tag closes them.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# What a page holds that is never drawn as text.
UNDRAWN = {"script", "style", "template", "head", "title"}
HEADINGS = {f"h{level}" for level in range(1, 7)}
# Elements drawn on a line (or in a cell) of their own: their text never runs into the text beside them.
BLOCKS = HEADINGS | {"address", "article", "aside", "br", "button", "caption", "dd", "details", "dialog", "div", "dl",
                     "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "legend", "li",
                     "main", "nav", "ol", "option", "p", "section", "summary", "table", "td", "th", "tr", "ul"}


@dataclass(eq=False)
class Element:
    """One element of the page, with its attributes and what it holds (elements and text, in order)."""

    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)

    def __getitem__(self, name: str) -> str:
        return self.attrs[name]

    def get(self, name: str, default: str | None = None) -> str | None:
        """An attribute's value, or `default` when the element has none."""
        return self.attrs.get(name, default)

    def has(self, name: str) -> bool:
        """Whether the element carries the attribute (a boolean one such as `checked` or `open`)."""
        return name in self.attrs

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self) -> Iterator[Element]:
        """Every element inside this one, in the page's order."""
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.iter()

    def find_all(self, tag: str | None = None, *, cls: str | None = None, **attrs: str) -> list[Element]:
        """The elements inside this one with this tag, class and attribute values (`for_` for `for`)."""
        wanted = {name.rstrip("_").replace("_", "-"): value for name, value in attrs.items()}
        return [
            element
            for element in self.iter()
            if (tag is None or element.tag == tag)
            and (cls is None or cls in element.classes)
            and all(element.attrs.get(name) == value for name, value in wanted.items())
        ]

    def one(self, tag: str | None = None, *, cls: str | None = None, **attrs: str) -> Element:
        """The only element inside this one that fits; fails when there is none or more than one."""
        found = self.find_all(tag, cls=cls, **attrs)
        assert len(found) == 1, f"{len(found)} elements {tag or ''}{'.' + cls if cls else ''} {attrs} in {self}"
        return found[0]

    def by_id(self, element_id: str) -> Element:
        """The element with this id (the page's own, so one)."""
        return self.one(id=element_id)

    @property
    def text(self) -> str:
        """The text a user reads in the element, runs of white space as one space (hidden parts included)."""
        return " ".join(self._texts(visible_only=False).split())

    @property
    def visible_text(self) -> str:
        """The text drawn on screen: without `hidden` elements and those for screen readers alone."""
        return " ".join(self._texts(visible_only=True).split())

    def _texts(self, visible_only: bool) -> str:
        parts = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif child.tag in UNDRAWN or (visible_only and child.is_hidden_from_sight()):
                continue
            elif child.tag in BLOCKS:
                parts.append(f" {child._texts(visible_only)} ")
            else:
                parts.append(child._texts(visible_only))
        return "".join(parts)

    def is_hidden_from_sight(self) -> bool:
        return self.has("hidden") or "visually-hidden" in self.classes

    @property
    def role(self) -> str | None:
        """The element's ARIA role, given or implied by its tag."""
        if self.get("role"):
            return self["role"]
        kind = (self.get("type") or "text").lower()
        if self.tag == "button" or (self.tag == "input" and kind in {"submit", "button", "reset"}):
            return "button"
        if self.tag == "input":
            inputs = {"checkbox": "checkbox", "radio": "radio", "hidden": None, "number": "spinbutton"}
            return inputs.get(kind, "textbox")
        implied = {"a": "link" if self.has("href") else None, "progress": "progressbar", "textarea": "textbox",
                   "select": "combobox", "table": "table", "tr": "row", "td": "cell", "th": "columnheader",
                   "ul": "list", "ol": "list", "li": "listitem", "nav": "navigation", "fieldset": "group",
                   "details": "group", "dialog": "dialog", "img": "img", "form": "form"}  # fmt: skip
        if self.tag == "th" and self.get("scope") == "row":
            return "rowheader"
        return "heading" if self.tag in HEADINGS else implied.get(self.tag)

    def name(self, page: Element | None = None) -> str:
        """The element's accessible name: aria-label, aria-labelledby, its <label>, its text or value, its title."""
        page = page or self.root
        if self.get("aria-label"):
            return self["aria-label"]
        if self.get("aria-labelledby"):
            return " ".join(page.by_id(part).text for part in self["aria-labelledby"].split())
        if self.tag in {"input", "select", "textarea", "progress"}:
            if self.get("id") and (labels := page.find_all("label", for_=self["id"])):
                return labels[0].text
            if (label := self.closest("label")) is not None:
                return label.text
            if self.tag == "input" and (self.get("type") or "") in {"submit", "button"}:
                return self.get("value") or ""
        elif self.tag == "fieldset" and (legends := [c for c in self.children if isinstance(c, Element)
                                                     and c.tag == "legend"]):  # fmt: skip
            return legends[0].text
        elif self.role in {"button", "link", "heading", "cell", "columnheader", "rowheader", "listitem", "checkbox",
                           "radio"}:
            return self.text
        return self.get("title") or ""

    def closest(self, tag: str | None = None, *, cls: str | None = None) -> Element | None:
        """The nearest element around this one with this tag and class."""
        element = self.parent
        while element is not None and not (
            (tag is None or element.tag == tag) and (cls is None or cls in element.classes)
        ):
            element = element.parent
        return element

    @property
    def root(self) -> Element:
        element = self
        while element.parent is not None:
            element = element.parent
        return element

    def is_hidden_from_everyone(self) -> bool:
        """Whether neither eyes nor a screen reader meet the element: it or an element around it is `hidden`
        or aria-hidden."""
        element: Element | None = self
        while element is not None:
            if element.has("hidden") or element.get("aria-hidden") == "true":
                return True
            element = element.parent
        return False

    def by_role(self, role: str, name: str | re.Pattern | None = None) -> list[Element]:
        """The elements inside this one with this role, and this accessible name (exact, or a pattern it holds),
        as assistive technology meets them: those hidden from everyone left out."""
        page = self.root
        found = []
        for element in self.iter():
            if element.role != role or element.is_hidden_from_everyone():
                continue
            if name is None:
                found.append(element)
            elif isinstance(name, re.Pattern) and name.search(element.name(page)):
                found.append(element)
            elif isinstance(name, str) and element.name(page) == name:
                found.append(element)
        return found

    def one_by_role(self, role: str, name: str | re.Pattern | None = None) -> Element:
        """The only element with this role and name; fails when there is none or more than one."""
        found = self.by_role(role, name)
        assert len(found) == 1, f"{len(found)} elements of role {role} named {name!r}"
        return found[0]

    def fields(self) -> list[tuple[str, str]]:
        """What this form sends (without the button that submits it): its named fields and those that name it
        with form="…", unchecked boxes and disabled fields left out, in the page's order."""
        page = self.root
        form_id = self.get("id")
        inside = set(self.iter())
        sent = []
        for element in page.iter():
            if element.tag not in {"input", "select", "textarea"} or not element.get("name"):
                continue
            if element.get("form") is not None:
                if element.get("form") != form_id:
                    continue
            elif element not in inside:
                continue
            if element.has("disabled"):
                continue
            kind = (element.get("type") or "text").lower()
            if kind in {"submit", "button", "reset", "image"}:
                continue
            if kind in {"checkbox", "radio"} and not element.has("checked"):
                continue
            if element.tag == "select":
                chosen = [o for o in element.find_all("option") if o.has("selected")] or element.find_all("option")[:1]
                sent += [(element["name"], o.get("value", o.text)) for o in chosen]
            elif element.tag == "textarea":
                sent.append((element["name"], "".join(c for c in element.children if isinstance(c, str))))
            else:
                sent.append((element["name"], element.get("value", "on" if kind in {"checkbox", "radio"} else "")))
        return sent

    def __str__(self) -> str:
        shown = " ".join(f'{k}="{v}"' if v else k for k, v in self.attrs.items())
        return f"<{self.tag}{' ' if shown else ''}{shown}>"


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.open = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs}, parent=self.open)
        self.open.children.append(element)
        if tag not in VOID:
            self.open = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open.children.append(Element(tag, {name: value or "" for name, value in attrs}, parent=self.open))

    def handle_endtag(self, tag: str) -> None:
        # An end tag closes the nearest open element of its kind, and any left open inside it (<p>, <li>).
        element = self.open
        while element is not None and element.tag != tag:
            element = element.parent
        if element is not None and element.parent is not None:
            self.open = element.parent

    def handle_data(self, data: str) -> None:
        self.open.children.append(data)


def read(html: str) -> Element:
    """The page (or fragment) as elements, its root holding them all."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def checked(page: Element, name: str) -> list[str]:
    """The values of the ticked boxes or the chosen radio named `name`, as the form would send them."""
    return [box.get("value", "on") for box in page.find_all("input", name=name) if box.has("checked")]


def definitions(page: Element) -> list[tuple[str, str]]:
    """The page's description lists read as (term, description) pairs, in order."""
    pairs = []
    for term in page.find_all("dt"):
        siblings = [c for c in term.parent.children if isinstance(c, Element)]
        following = siblings[siblings.index(term) + 1:]
        if following and following[0].tag == "dd":
            pairs.append((term.text, following[0].text))
    return pairs


def table_rows(table: Element) -> list[dict[str, str]]:
    """A table's body rows, each as its cells' texts by the column headers' texts."""
    columns = [header.text for header in table.by_role("columnheader")]
    found = []
    for row in table.find_all("tr"):
        cells = [cell.text for cell in row.children if isinstance(cell, Element) and cell.tag in {"td", "th"}]
        if cells and not row.by_role("columnheader"):
            found.append(dict(zip(columns, cells, strict=True)))
    return found


def hrefs(page: Element) -> list[str]:
    """Where the links inside `page` lead (those drawn as buttons too), in order."""
    return [link["href"] for link in page.find_all("a") if link.has("href")]


def rows(html: str) -> list[list[str]]:
    """The rows of the page's (first) table body, each as the text of its cells, in order."""
    body = read(html).find_all("tbody")[0]
    return [[cell.text for cell in row.children if isinstance(cell, Element) and cell.tag in {"td", "th"}]
            for row in body.find_all("tr")]  # fmt: skip

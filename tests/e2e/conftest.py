"""The guard every browser test runs under: a console error, a CSP violation, an uncaught page error
or a 5xx answer in any page of the test's browsers fails the test, unless the test named it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Error, Page, Response, WebError


class BrowserFaults:
    """What went wrong in the pages a test drove, and the exact texts the test said it provokes.

    Chromium reports every Content-Security-Policy violation as a console error ("Refused to …",
    "Applying inline style violates …"), and every failed request the page makes as
    "Failed to load resource: …" (a 4xx the test provokes on purpose, or net::ERR_… offline):
    a test that provokes one names it by its exact text with `expect`.
    """

    def __init__(self) -> None:
        self.faults: list[str] = []
        self.expected: set[str] = set()
        self.seen_expected: set[str] = set()
        self.optional: set[str] = set()
        self.contexts: list[BrowserContext] = []
        self.closed: list[BrowserContext] = []

    def expect(self, text: str, *, may_not_come: bool = False) -> None:
        """This test provokes a console error or page error of exactly this text; it must come, unless
        whether it comes is up to timing (a poll that may or may not fall while the network is cut)."""
        self.expected.add(text)
        if may_not_come:
            self.optional.add(text)

    def _record(self, text: str, where: str) -> None:
        if text in self.expected:
            self.seen_expected.add(text)
        else:
            self.faults.append(f"{text}\n      at {where}")

    def watch(self, context: BrowserContext) -> BrowserContext:
        """Listen to every page the context has or opens."""
        self.contexts.append(context)
        context.on("close", lambda closed: self.closed.append(closed))
        context.on("console", self._console)
        context.on("weberror", self._page_error)
        context.on("response", self._response)
        return context

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            at = message.location
            source = f"{at.get('url')}:{at.get('lineNumber')}:{at.get('columnNumber')}"
            self._record(message.text, f"{source} (page {self._url(message.page)})")

    def _page_error(self, error: WebError) -> None:
        thrown = error.error
        self._record(f"uncaught {thrown.name or 'Error'}: {thrown.message}", self._url(error.page))

    def _response(self, response: Response) -> None:
        if response.status >= 500:
            request = response.request
            try:
                where = self._url(request.frame.page)
            except Error:  # a service worker's own request has no frame
                where = "service worker"
            self._record(f"{response.status} answer to {request.method} {response.url}", where)

    @staticmethod
    def _url(page: Page | None) -> str:
        try:
            return page.url if page else "?"
        except Error:
            return "?"

    def flush(self) -> None:
        """Let events the browser already sent reach the listeners: one round trip per open page."""
        for context in self.contexts:
            for page in context.pages:
                try:
                    if not page.is_closed():
                        page.evaluate("0")
                except Error:
                    pass

    def report(self) -> str:
        """What the test must be failed for, or '' when nothing."""
        lines = []
        if self.faults:
            lines.append(f"{len(self.faults)} browser fault(s) the test did not expect:")
            counts = Counter(self.faults)
            lines += [f"  - {fault}" + (f"\n      ({n} times)" if n > 1 else "") for fault, n in counts.items()]
        missing = self.expected - self.seen_expected - self.optional
        if missing:
            lines.append("Expected in the browser but never came: " + "; ".join(sorted(missing)))
        return "\n".join(lines)


@pytest.fixture(autouse=True)
def browser_faults(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[BrowserFaults]:
    """Watch every browser context the test makes (the `page` fixture's one and its own)."""
    faults = BrowserFaults()
    if "browser" in request.fixturenames or "page" in request.fixturenames:
        browser: Browser = request.getfixturevalue("browser")
        new_context, new_page = browser.new_context, browser.new_page
        monkeypatch.setattr(browser, "new_context", lambda *args, **kwargs: faults.watch(new_context(*args, **kwargs)))

        def watched_page(*args, **kwargs) -> Page:
            page = new_page(*args, **kwargs)
            faults.watch(page.context)
            return page

        monkeypatch.setattr(browser, "new_page", watched_page)
    request.node.browser_faults = faults
    yield faults
    # The phones a test opened go with it (the `page` fixture has closed its own): left open, each would go on polling
    # its stopped server every second for the rest of the worker's run, a browser's worth of CPU by the suite's end.
    for context in [context for context in faults.contexts if context not in faults.closed]:
        context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After the test's body, fail it for every browser fault it did not name."""
    faults: BrowserFaults | None = getattr(item, "browser_faults", None)
    try:
        result = yield
    except BaseException:
        if faults is not None and (report := faults.report()):
            item.add_report_section("call", "browser faults", report)
        raise
    if faults is not None:
        faults.flush()
        if report := faults.report():
            pytest.fail(report, pytrace=False)
    return result

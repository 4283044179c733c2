"""The Decisions view: each decision with its whole why chain, and whether it needs review."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Markdown, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from statedump.core.errors import StatedumpError
from statedump.core.render.why import why_markdown
from statedump.models import Decision
from statedump.services.why import needs_review, why
from statedump.tui import text
from statedump.tui.widgets import stylesheet
from statedump.tui.widgets.session_view import SessionView

REVIEW_MARK = "⚠ needs review"


def decision_prompt(d: Decision, reasons: list[str] | None) -> Text:
    """A decision in the list: its status (and the review mark once known) over its title."""
    prompt = Text.assemble(text.status(d.status))
    if reasons:
        prompt.append(f"  {REVIEW_MARK} ({len(reasons)})", style="bold yellow")
    prompt.append("\n")
    prompt.append_text(text.line(d.title, "bold"))
    return prompt


class DecisionsView(SessionView):
    """Decisions on the left; on the right, `statedump why` for the highlighted one."""

    DEFAULT_CSS = stylesheet(__file__)
    MAIN = "#decisions-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_record", "Open record"),
        Binding("w", "read", "Read why"),
    ]

    def compose(self) -> ComposeResult:
        self.decisions = self.state.of_kind(Decision)
        self.reviews: dict[str, list[str]] = {}
        self.documents: dict[str, str] = {}
        with Horizontal():
            yield OptionList(*(Option(decision_prompt(d, None), id=d.id) for d in self.decisions), id="decisions-list")
            with VerticalScroll(id="why-scroll"):
                yield Markdown("_No decisions recorded._" if not self.decisions else "", id="why-doc", open_links=False)

    def on_mount(self) -> None:
        if self.decisions:
            self.query_one("#decisions-list", OptionList).highlighted = 0
            self._review_all()

    @work(thread=True, group="review")
    def _review_all(self) -> None:
        # The list marks every decision that needs review, not only those already opened.
        for d in self.decisions:
            try:
                reasons = self.reader(needs_review, self.session_id, d, self.state)
            except StatedumpError as err:
                self.app.call_from_thread(self.notify, str(err), severity="error", markup=False)
                return
            self.app.call_from_thread(self._mark, d.id, reasons)

    def _mark(self, decision_id: str, reasons: list[str]) -> None:
        self.reviews[decision_id] = reasons
        listing = self.query_one("#decisions-list", OptionList)
        index = listing.get_option_index(decision_id)
        listing.replace_option_prompt_at_index(index, decision_prompt(self.decisions[index], reasons))

    def current(self) -> Decision | None:
        """The highlighted decision."""
        index = self.query_one("#decisions-list", OptionList).highlighted
        return self.decisions[index] if index is not None and 0 <= index < len(self.decisions) else None

    def select(self, decision_id: str) -> None:
        """Highlight a decision by id."""
        for i, d in enumerate(self.decisions):
            if d.id == decision_id:
                self.query_one("#decisions-list", OptionList).highlighted = i

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_id is None:
            return
        if event.option_id in self.documents:
            self.query_one("#why-doc", Markdown).update(self.documents[event.option_id])
        else:
            self.query_one("#why-doc", Markdown).update("_Tracing the decision…_")
            self._trace(event.option_id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_read()

    @work(thread=True, exclusive=True, group="why")
    def _trace(self, decision_id: str) -> None:
        worker = get_current_worker()
        try:
            report = self.reader(why, self.session_id, decision_id, self.state)
        except StatedumpError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", markup=False)
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self.call_later, self._traced, decision_id, why_markdown(report), report.review_reasons)

    async def _traced(self, decision_id: str, document: str, reasons: list[str]) -> None:
        self.documents[decision_id] = document
        self._mark(decision_id, reasons)
        current = self.current()
        if current is not None and current.id == decision_id:
            await self.query_one("#why-doc", Markdown).update(document)
            self.query_one("#why-scroll", VerticalScroll).scroll_home(animate=False)

    def action_open_record(self) -> None:
        current = self.current()
        if current is not None:
            self.post_message(self.OpenRecord(current.id))

    def action_read(self) -> None:
        self.query_one("#why-scroll", VerticalScroll).focus()

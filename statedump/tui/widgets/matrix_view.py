"""The Matrix view: compatibility records as a grid, component/option down, target across."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from statedump.models import Compat
from statedump.tui import text
from statedump.tui.widgets import stylesheet
from statedump.tui.widgets.session_view import SessionView

RESULT_CELL = {
    "works": ("✔ works", "bold black on green"),
    "fails": ("✘ fails", "bold white on red"),
    "partial": ("◐ partial", "bold black on yellow"),
    "untested": ("? untested", "dim"),
}
"""How each result looks in its cell: a symbol (for screens without colour) and a colour."""


def compat_detail(c: Compat) -> Text:
    """What the selected cell says: result, symptom, how to reproduce, versions."""
    parts: list[Text | str] = [
        Text.assemble(text.status(c.status), "  ", text.plain(c.title, "bold")),
        Text.assemble(("component ", "dim"), text.line(c.component), ("  option ", "dim"), text.line(c.option)),
        Text.assemble(("target ", "dim"), text.line(c.target), ("  id ", "dim"), c.id),
    ]
    if c.symptom:
        parts.append(Text.assemble(("symptom ", "bold red"), text.plain(c.symptom)))
    if c.repro:
        parts.append(Text.assemble(("repro ", "bold"), text.plain(c.repro)))
    if c.versions:
        parts.append(Text.assemble(("versions ", "dim"), text.line(", ".join(f"{k} {v}" for k, v in c.versions.items()))))
    if c.source:
        parts.append(Text.assemble(("source ", "dim"), text.line(c.source)))
    return text.joined(parts)


class MatrixView(SessionView):
    """One row per component and option, one column per target; a cell is the latest result recorded."""

    DEFAULT_CSS = stylesheet(__file__)
    MAIN = "#matrix-table"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("o", "open_record", "Open record")]

    def compose(self) -> ComposeResult:
        yield DataTable(id="matrix-table", cursor_type="cell", fixed_columns=2)
        with VerticalScroll(id="matrix-detail-scroll"):
            yield Static(id="matrix-detail")

    def on_mount(self) -> None:
        compat = self.state.of_kind(Compat)
        self.targets = list(dict.fromkeys(c.target for c in compat))
        components = list(dict.fromkeys(c.component for c in compat))
        # Rows of one component stay together, in the order they were first tried.
        self.rows = sorted(dict.fromkeys((c.component, c.option) for c in compat), key=lambda row: components.index(row[0]))
        # Records come oldest first, so a later result for the same cell replaces an earlier one.
        self.cells = {(c.component, c.option, c.target): c for c in compat}
        table = self.query_one("#matrix-table", DataTable)
        table.add_column("Component", width=22)
        table.add_column("Option", width=22)
        for target in self.targets:
            table.add_column(text.line(target, "bold"), width=max(12, min(len(target), 30)))
        for component, option in self.rows:
            cells: list[Text] = [text.line(component, "dim"), text.line(option, "bold")]
            for target in self.targets:
                found = self.cells.get((component, option, target))
                label, style = RESULT_CELL[found.status] if found else ("·", "dim")
                cells.append(Text(label, style=style))
            table.add_row(*cells)
        if not compat:
            self.query_one("#matrix-detail", Static).update(Text("No compatibility records in this session.", style="dim"))
        else:
            table.move_cursor(row=0, column=2)
            self._show()

    def selected(self) -> Compat | None:
        """The record in the cell under the cursor, if the cursor is on a result."""
        table = self.query_one("#matrix-table", DataTable)
        row, col = table.cursor_coordinate
        if not (0 <= row < len(self.rows)) or col < 2 or col - 2 >= len(self.targets):
            return None
        component, option = self.rows[row]
        return self.cells.get((component, option, self.targets[col - 2]))

    def _show(self) -> None:
        found = self.selected()
        detail = self.query_one("#matrix-detail", Static)
        if found is None:
            detail.update(Text("Move to a result cell to see its symptom and how to reproduce it.", style="dim"))
        else:
            detail.update(compat_detail(found))

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        self._show()

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        self.action_open_record()

    def action_open_record(self) -> None:
        found = self.selected()
        if found is not None:
            self.post_message(self.OpenRecord(found.id))

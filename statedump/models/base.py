"""The fields every record shares, and the typed links between records.

Models are pure data: no file, git or terminal access happens here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from statedump.models.ids import ID_MAX, id_problem

__all__ = ["ID_MAX", "RELATIONS", "Links", "Model", "RecordBase", "RecordId", "id_problem"]


def _check_id(value: str) -> str:
    problem = id_problem(value)
    if problem:
        raise ValueError(problem)
    return value


RecordId = Annotated[str, AfterValidator(_check_id)]
"""A readable slug, safe as a file name: lowercase, no '/', no '..', at most 64 characters."""


class Model(BaseModel):
    """Base for every statedump model: unknown fields are errors, assignment is checked."""

    # Field docstrings are read on demand by statedump.core.fielddocs, not here: collecting them
    # parses the source of every model on every start. Schemas are built at first use
    # (defer_build), so a command that reads records from the parse cache never builds them.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_absent(cls, value: Any, info: ValidationInfo) -> Any:
        # An optional text that holds only whitespace says nothing: store it as absent,
        # so files and documents never carry empty `source: ' '` lines.
        if isinstance(value, str) and not value.strip() and info.field_name:
            field = cls.model_fields.get(info.field_name)
            if field is not None and not field.is_required() and field.default is None:
                return None
        return value


RELATIONS = (
    "evidence",
    "prompted_by",
    "supersedes",
    "enforces",
    "produced_by",
    "relates_to",
    "blocks",
)
"""The typed links, in the order they are written."""


class Links(Model):
    """Typed links from this record to others in the same session, by id."""

    evidence: list[RecordId] = Field(default_factory=list)
    """Records that support this one: discoveries, benchmarks, compatibility cells."""
    prompted_by: list[RecordId] = Field(default_factory=list)
    """What caused this record, usually the user's instruction."""
    supersedes: list[RecordId] = Field(default_factory=list)
    """Records this one replaces."""
    enforces: list[RecordId] = Field(default_factory=list)
    """Commands this record is applied by (decisions say the exact flag in `enforces`)."""
    produced_by: list[RecordId] = Field(default_factory=list)
    """The command that produced this result."""
    relates_to: list[RecordId] = Field(default_factory=list)
    """Any other related record."""
    blocks: list[RecordId] = Field(default_factory=list)
    """Records that cannot go on until this one is done."""

    def pairs(self) -> list[tuple[str, str]]:
        """Every (relation, target id) pair, in a stable order."""
        return [(rel, target) for rel in RELATIONS for target in getattr(self, rel)]


class RecordBase(Model):
    """The fields every record has. Each kind adds its own and closes its status set."""

    KIND: ClassVar[str] = ""
    STATUSES: ClassVar[tuple[str, ...]] = ()

    id: RecordId
    """Readable slug, unique within the session, e.g. `bf16-kv-cache`."""
    kind: str
    """The record kind; fixed per model."""
    title: str = Field(min_length=1, max_length=300, pattern=r"\S")
    """One line that says what the record is."""
    status: str
    """Where the record stands; each kind has a closed set."""
    at: datetime | None = None
    """When it happened in the session (ISO 8601)."""
    source: str | None = None
    """Where it came from: `msg 6007`, a transcript uuid, a file, a URL."""
    tags: list[str] = Field(default_factory=list)
    """Free labels for filtering."""
    links: Links = Field(default_factory=Links)
    """Typed links to other records of the session."""
    body: str | None = None
    """Longer Markdown text."""

    @field_validator("title")
    @classmethod
    def _one_line(cls, value: str) -> str:
        # A title is one line (a row of `list`, a heading, a commit subject): line breaks typed
        # or pasted into it become spaces.
        return " ".join(value.split()) if "\n" in value or "\r" in value else value

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        # A hand-written `at: 2026-03-02 14:05` has no zone; statedump keeps UTC.
        return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value

    def link_pairs(self) -> list[tuple[str, str]]:
        """Every link of this record as (relation, target id), including kind-specific ones."""
        return self.links.pairs()

    def text_fields(self) -> list[str]:
        """Every free text of the record, for search and for secret redaction checks."""
        out = [self.title]
        if self.body:
            out.append(self.body)
        return out

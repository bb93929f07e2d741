"""Stream raw records out of fact-check files, whatever their layout, one record at a time.

The layout is told from the content, not the file name (desks name their exports freely):
- a JSON document: one ClaimReview, a JSON array of them, or an object holding them under
  `@graph` (our own /factchecks/feed.jsonld) or `itemListElement` (an ItemList);
- JSON lines: one object a line, ClaimReviews or the Snopes layout (`vclaim_id`, `vclaim`...);
- the LIAR TSV layout: no header, 14 tab-separated columns, the first `NNNN.json`.

A JSON document is read item by item with `raw_decode` over a bounded buffer, so a feed
of any length never sits in memory whole. Records come out as articles.readers.SourceRow:
fields, or an error with where the record was (its first line).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import BinaryIO

from factcheck.articles.readers import (
    BOM,
    MAX_JSON_DEPTH,
    ImportFileError,
    JsonRecordError,
    ReadPosition,
    SourceRow,
    json_container_end,
    json_record_check,
    physical_lines,
    read_jsonl,
    refuse_utf16,
)
from factcheck.factchecks.models import FactCheckImport

Layout = FactCheckImport.Layout

LIAR_COLUMNS = (
    "id", "label", "statement", "subjects", "speaker", "speaker_job", "state", "party",
    "barely_true_count", "false_count", "half_true_count", "mostly_true_count", "pants_on_fire_count", "context",
)
SNOPES_KEYS = frozenset({"vclaim_id", "vclaim"})
LIST_KEYS = ("@graph", "itemListElement")
HEAD_BYTES = 64 * 1024
READ_BYTES = 256 * 1024
UNKNOWN_LAYOUT = (
    "Unknown layout. Expected ClaimReview JSON-LD (one document, a JSON array, an object with @graph or "
    "itemListElement, or JSON lines), the LIAR TSV layout (14 tab-separated columns, the first NNNN.json), "
    "or the Snopes layout (JSON lines with vclaim_id and vclaim)."
)
_LIAR_ID = re.compile(r"\d+\.json")
_JSON_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def detect_layout(head: bytes) -> str:
    """The layout of a file from its first bytes (HEAD_BYTES of them are plenty)."""
    refuse_utf16(head)
    text = head.removeprefix(BOM).decode("utf-8", errors="replace").lstrip()
    if not text:
        raise ImportFileError("The file is empty.")
    if text[0] == "[":
        return Layout.CLAIMREVIEW
    if text[0] == "{":
        first_line = text.split("\n", 1)[0]
        try:
            value = json.loads(first_line)
        except ValueError:
            return Layout.CLAIMREVIEW  # one object over several lines: a document
        if not isinstance(value, dict):
            raise ImportFileError(UNKNOWN_LAYOUT)
        if value.keys() >= SNOPES_KEYS:
            return Layout.SNOPES
        if any(key in value for key in LIST_KEYS):
            return Layout.CLAIMREVIEW
        if "claimReviewed" in value or value.get("@type") in {"ClaimReview", "ListItem"}:
            return Layout.CLAIMREVIEW_LINES
        raise ImportFileError(f"{UNKNOWN_LAYOUT} The first line is a JSON object with the keys: {', '.join(sorted(value)[:12])}.")
    first = text.split("\n", 1)[0].rstrip("\r").split("\t")
    if len(first) == len(LIAR_COLUMNS) and _LIAR_ID.fullmatch(first[0].strip()):
        return Layout.LIAR
    raise ImportFileError(UNKNOWN_LAYOUT)


def read_liar(stream: BinaryIO, position: ReadPosition, *, line_limit: int) -> Iterator[SourceRow]:
    number = 0
    for line_number, line in enumerate(physical_lines(stream, position, line_limit), start=1):
        where = f"line {line_number}"
        if line is None:
            number += 1
            yield SourceRow(number, None, f"Line longer than {line_limit} bytes.", where)
            continue
        if line_number == 1:
            line = line.removeprefix(BOM)
        if not line.strip():
            continue
        number += 1
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            yield SourceRow(number, None, "Not valid UTF-8 text.", where)
            continue
        values = text.rstrip("\r\n").split("\t")
        if len(values) != len(LIAR_COLUMNS):
            yield SourceRow(number, None, f"{len(values)} tab-separated fields where the LIAR layout has {len(LIAR_COLUMNS)}.", where)
            continue
        yield SourceRow(number, dict(zip(LIAR_COLUMNS, values, strict=True)), "", where)


class _JsonStream:
    """A window on a UTF-8 JSON file: decoded text, with the line number of its first character."""

    def __init__(self, stream: BinaryIO, position: ReadPosition, limit: int) -> None:
        self.stream, self.position, self.limit = stream, position, limit
        # Bytes that are not UTF-8 become lone surrogates (surrogateescape): the record that
        # holds them is refused by its row checks, and the records around it are read as usual.
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="surrogateescape")
        self.text = ""
        self.offset = 0  # where the unread text starts
        self.line = 1  # the line of text[offset]
        self.eof = False

    def more(self) -> bool:
        """Read another block; False at the end of the file."""
        if self.eof:
            return False
        block = self.stream.read(READ_BYTES)
        self.position.bytes += len(block)
        if not block:
            self.eof = True
            tail = self.decoder.decode(b"", final=True)
            self.text += tail
            return bool(tail)
        if self.position.bytes <= len(block):
            refuse_utf16(block)
        decoded = self.decoder.decode(block)
        # Drop what was read: the window holds at most one record and a block.
        self.text = self.text[self.offset :] + decoded
        self.offset = 0
        return True

    def advance(self, to: int) -> None:
        self.line += self.text.count("\n", self.offset, to)
        self.offset = to

    def skip_space(self) -> str:
        """The next non-blank character (not consumed), or '' at the end of the file."""
        while True:
            stripped = len(self.text) - len(self.text[self.offset :].lstrip())
            self.advance(stripped)
            if self.offset < len(self.text):
                return self.text[self.offset]
            if not self.more():
                return ""

    def value(self) -> tuple[object, int]:
        """The next JSON value and the line it started on; ValueError when it is not JSON."""
        decoder = json.JSONDecoder()
        self.skip_space()  # raw_decode does not skip leading blanks
        start_line = self.line
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.offset)
            except RecursionError:
                self._step_over_value()
                raise JsonRecordError(f"Nested more than {MAX_JSON_DEPTH} levels deep.") from None
            except json.JSONDecodeError as exc:
                # Maybe only cut at the end of the window: read on, up to one record's limit.
                if len(self.text) - self.offset <= self.limit and self.more():
                    continue
                line = start_line + self.text.count("\n", self.offset, exc.pos)
                raise ValueError(f"Not valid JSON at line {line}: {exc.msg}") from None
            except ValueError as exc:
                # Well-formed JSON that Python refuses to read (an integer of 4,300+ digits).
                self._step_over_value()
                raise JsonRecordError(f"A value this product cannot read: {exc}"[:300]) from None
            if end == len(self.text) and not self.eof and isinstance(value, int | float):
                # A number may go on in the next block.
                self.more()
                continue
            self.advance(end)
            json_record_check(value)  # read whole: a refused record leaves the window past it
            return value, start_line

    def _step_over_value(self) -> None:
        """Move past a value that cannot be parsed (an array or object too deep, a number too
        long), reading on up to one record's limit; ValueError (not a JsonRecordError: nothing
        after it can be trusted) when it does not end."""
        while True:
            if self.text[self.offset : self.offset + 1] in {"[", "{"}:
                end = json_container_end(self.text, self.offset)
            else:
                number = _JSON_NUMBER.match(self.text, self.offset)
                end = number.end() if number and (number.end() < len(self.text) or self.eof) else None
            if end is not None:
                self.advance(end)
                return
            if len(self.text) - self.offset > self.limit or not self.more():
                raise ValueError(f"Not valid JSON at line {self.line}: a value nested too deep that does not end")


def read_json_document(stream: BinaryIO, position: ReadPosition, *, item_limit: int) -> Iterator[SourceRow]:
    """ClaimReviews from one JSON document: an array, an object with @graph/itemListElement
    (any other keys are read past), or a single ClaimReview object."""
    window = _JsonStream(stream, position, item_limit)
    first = window.skip_space()
    if first == "[":
        window.advance(window.offset + 1)
        yield from _array_items(window)
        return
    if first != "{":
        raise ImportFileError("Not a JSON document: it must start with [ or {.")
    window.advance(window.offset + 1)
    document: dict[str, object] = {}
    refused = ""  # a value of the document itself that was read past but cannot be used
    while True:
        char = window.skip_space()
        if char == "}":
            break
        if char == ",":
            window.advance(window.offset + 1)
            continue
        try:
            key, _ = window.value()
            if window.skip_space() != ":":
                raise ValueError(f"Expected ':' at line {window.line}")
            window.advance(window.offset + 1)
            if key in LIST_KEYS and window.skip_space() == "[":
                window.advance(window.offset + 1)
                yield from _array_items(window)
                return
            document[str(key)], _ = window.value()
        except JsonRecordError as exc:
            refused = refused or str(exc)
        except ValueError as exc:
            raise ImportFileError(str(exc)) from None
    if refused:
        yield SourceRow(1, None, refused, "line 1")
        return
    yield SourceRow(1, document, "", "line 1")


def _array_items(window: _JsonStream) -> Iterator[SourceRow]:
    number = 0
    while True:
        char = window.skip_space()
        if char in {"]", ""}:
            if char == "":
                number += 1
                yield SourceRow(number, None, "The JSON array does not end (a truncated file?).", f"line {window.line}")
            return
        if char == ",":
            window.advance(window.offset + 1)
            continue
        number += 1
        where = f"line {window.line}"
        try:
            value, _ = window.value()
        except JsonRecordError as exc:
            yield SourceRow(number, None, str(exc), where)
            continue
        except ValueError as exc:
            # JSON cannot be resynchronised after a syntax error: the rows before it are kept.
            yield SourceRow(number, None, f"{exc}. The rest of the file was not read.", where)
            return
        if not isinstance(value, dict):
            yield SourceRow(number, None, f"Expected a JSON object, got {type(value).__name__}.", where)
            continue
        yield SourceRow(number, value, "", where)


def read_factcheck_rows(stream: BinaryIO, position: ReadPosition, *, layout: str, line_limit: int) -> Iterator[SourceRow]:
    if layout == Layout.LIAR:
        return read_liar(stream, position, line_limit=line_limit)
    if layout in {Layout.SNOPES, Layout.CLAIMREVIEW_LINES}:
        return read_jsonl(stream, position, line_limit=line_limit)
    if layout == Layout.CLAIMREVIEW:
        return read_json_document(stream, position, item_limit=line_limit)
    raise ImportFileError(UNKNOWN_LAYOUT)

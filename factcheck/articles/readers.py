"""Stream raw rows out of import files without ever holding a whole file in memory.

CSV and JSON Lines are read one physical line at a time (capped in length, so one absurd
line cannot exhaust memory), ZIP members one member stream at a time. A reader yields every
record it finds, numbered in file order; a record it cannot decode or parse comes out with
an `error` instead of `fields`, so the importer reports it and goes on. Problems that make
the whole file unreadable (a truncated ZIP, a CSV without a `text` column) raise
ImportFileError.
"""

from __future__ import annotations

import csv
import json
import math
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO

from factcheck.articles.htmltext import HtmlRefused, declared_charset, html_to_document

DOCUMENT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".html", ".htm"})
BOM = b"\xef\xbb\xbf"


# Deeper than any record a desk exports; jsonb and Python's own recursion have limits of their
# own, and a row nested 100,000 deep once failed its whole file with a RecursionError.
MAX_JSON_DEPTH = 64
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JsonRecordError(ValueError):
    """One JSON record is unusable (too deep, a number out of range), though it was read whole."""


def json_record_check(value: object) -> None:
    """Refuse a parsed JSON value nested deeper than MAX_JSON_DEPTH or holding a number that is
    not finite (NaN, Infinity, 1e999): neither can be stored as jsonb nor used as a number."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise JsonRecordError(f"A number out of range ({item}): JSON numbers must be finite.")
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise JsonRecordError(f"Nested more than {MAX_JSON_DEPTH} levels deep.")
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))


def json_record(text: str) -> object:
    """One JSON value from a whole record's text: ValueError (with the reason) when it is not
    JSON, or JSON this product cannot store (json_record_check)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JsonRecordError(f"Nested more than {MAX_JSON_DEPTH} levels deep.") from None
    json_record_check(value)
    return value


def json_container_end(text: str, start: int) -> int | None:
    """Where the array or object starting at `start` ends (just past its bracket), found
    without parsing it: how a reader steps over a record too deep to parse. None when it does
    not end within `text`."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text, start):
        token = match.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            depth -= 1
            if depth == 0:
                return match.end()
    return None


class ImportFileError(Exception):
    """The file as a whole cannot be imported; nothing in it can be trusted row by row."""


@dataclass(frozen=True)
class SourceRow:
    number: int  # 1-based position among the records of the file
    fields: dict[str, object] | None
    error: str = ""
    where: str = ""  # "line 12" or a ZIP member's name: where a person finds the record


class ReadPosition:
    """How far into the file a reader is, in bytes, for progress reports."""

    def __init__(self) -> None:
        self.bytes = 0


def detect_format(name: str) -> str:
    suffix = PurePosixPath(name.lower()).suffix
    if suffix == ".csv":
        return "csv"
    if suffix in {".jsonl", ".ndjson", ".json"}:
        return "jsonl"
    if suffix == ".zip":
        return "zip"
    if suffix in DOCUMENT_SUFFIXES:
        return "text"
    raise ImportFileError(f"Unsupported file type {suffix or '(none)'!r}: use .csv, .jsonl, .zip, .txt, .md or .html.")


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
SAVE_AS_UTF8 = "The file is UTF-16 text; save it as UTF-8 (in Excel: \u201cCSV UTF-8\u201d) and import it again."


def is_utf16(start: bytes) -> bool:
    """A UTF-16 byte order mark, or the NUL bytes UTF-16 puts beside every ASCII character:
    in every other byte, the same parity throughout. A stray NUL in a UTF-8 file (even in a
    line as short as `{\x00`) is that row's problem, not the file's."""
    if start.startswith(UTF16_BOMS):
        return True
    sample = start[:200]
    if len(sample) < 4:
        return False
    even, odd = sample[0::2], sample[1::2]
    return any(side.count(0) * 2 >= len(side) and other.count(0) * 8 < len(other) for side, other in ((even, odd), (odd, even)))


def refuse_utf16(first_line: bytes) -> None:
    if is_utf16(first_line):
        raise ImportFileError(SAVE_AS_UTF8)


def max_line_bytes(max_text_chars: int) -> int:
    # Up to 4 UTF-8 bytes a character for the text, plus room for the other columns.
    return 4 * max_text_chars + 256 * 1024


def physical_lines(stream: BinaryIO, position: ReadPosition, limit: int) -> Iterator[bytes | None]:
    """Lines as bytes; None stands for a line longer than `limit`, which is skipped unread."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        position.bytes += len(line)
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(64 * 1024)
                position.bytes += len(line)
            yield None
            continue
        yield line


def read_csv(stream: BinaryIO, position: ReadPosition, *, line_limit: int) -> Iterator[SourceRow]:
    flags = {"bad_encoding": False, "too_long": False}

    def text_lines() -> Iterator[str]:
        first = True
        for line in physical_lines(stream, position, line_limit):
            if first and line is not None:
                refuse_utf16(line)
            if line is None:
                flags["too_long"] = True
                # A blank line ends the record if it was one line; inside a quoted field it
                # just joins it. Either way the flag lands on the record that held the line.
                yield "\n"
                continue
            if first and line.startswith(BOM):
                line = line[len(BOM):]
            first = False
            try:
                yield line.decode("utf-8")
            except UnicodeDecodeError:
                flags["bad_encoding"] = True
                yield line.decode("utf-8", errors="replace")

    csv.field_size_limit(max(csv.field_size_limit(), line_limit))
    # strict: a quoted field must close right before a comma or the end of a line. Otherwise a
    # stray opening quote silently swallows the rows after it into one field, up to the next
    # quote anywhere; strict makes that an error the import reports, with the lines it took.
    reader = csv.reader(text_lines(), strict=True)
    header = _csv_header(reader, flags)
    number = 0
    while True:
        start_line = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            number += 1
            end_line = max(reader.line_num, start_line)
            if end_line > start_line:
                yield SourceRow(
                    number, None,
                    f"Malformed CSV: {exc}. A quote opened on line {start_line} does not close where a field ends, so lines "
                    f"{start_line}-{end_line} were read as one row and none of them was imported; fix the quote and import them again.",
                    f"lines {start_line}-{end_line}",
                )
            else:
                yield SourceRow(number, None, f"Malformed CSV: {exc}", f"line {start_line}")
            flags["bad_encoding"] = flags["too_long"] = False
            continue
        too_long, bad_encoding = flags["too_long"], flags["bad_encoding"]
        flags["bad_encoding"] = flags["too_long"] = False
        if not record and not too_long:
            continue  # a blank line is not a record
        number += 1
        where = f"line {start_line}"
        if too_long:
            yield SourceRow(number, None, f"Row longer than {line_limit} bytes.", where)
        elif bad_encoding:
            yield SourceRow(number, None, "Not valid UTF-8 text.", where)
        elif len(record) != len(header):
            yield SourceRow(number, None, f"{len(record)} fields where the header has {len(header)}.", where)
        else:
            yield SourceRow(number, dict(zip(header, record, strict=True)), "", where)


def _csv_header(reader: Iterator[list[str]], flags: dict[str, bool]) -> list[str]:
    try:
        header = next(reader)
        while not header:
            header = next(reader)
    except StopIteration:
        raise ImportFileError("The file is empty.") from None
    except csv.Error as exc:
        raise ImportFileError(f"The header row is not valid CSV: {exc}") from None
    if flags["bad_encoding"] or flags["too_long"]:
        raise ImportFileError("The header row is not valid UTF-8 text of a sensible length.")
    names = [name.strip().lower() for name in header]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise ImportFileError(f"Columns named twice: {', '.join(duplicated)}.")
    if "text" not in names:
        raise ImportFileError(f"Missing column: text. Found: {', '.join(names) or 'none'}.")
    return names


def read_jsonl(stream: BinaryIO, position: ReadPosition, *, line_limit: int) -> Iterator[SourceRow]:
    number = 0
    for line_number, line in enumerate(physical_lines(stream, position, line_limit), start=1):
        where = f"line {line_number}"
        if line is None:
            number += 1
            yield SourceRow(number, None, f"Line longer than {line_limit} bytes.", where)
            continue
        if line_number == 1:
            refuse_utf16(line)
            if line.startswith(BOM):
                line = line[len(BOM):]
        if not line.strip():
            continue
        number += 1
        try:
            value = json_record(line.decode("utf-8"))
        except UnicodeDecodeError:
            yield SourceRow(number, None, "Not valid UTF-8 text.", where)
            continue
        except JsonRecordError as exc:
            yield SourceRow(number, None, str(exc), where)
            continue
        except ValueError as exc:
            yield SourceRow(number, None, f"Not valid JSON: {exc}", where)
            continue
        if not isinstance(value, dict):
            yield SourceRow(number, None, f"Expected a JSON object, got {type(value).__name__}.", where)
            continue
        yield SourceRow(number, value, "", where)


def read_zip(stream: BinaryIO, position: ReadPosition, *, max_text_chars: int) -> Iterator[SourceRow]:
    try:
        archive = zipfile.ZipFile(stream)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ImportFileError(f"Not a readable ZIP file (truncated or damaged?): {exc}") from None
    with archive:
        # Hidden files (.DS_Store, __MACOSX/) are the archiver's, not articles: left out. A
        # name that climbs out of the archive (..) or starts at the root is not left out in
        # silence: it is a rejected row, so the count of files adds up.
        members = [
            info for info in archive.infolist() if not info.is_dir() and (_is_unsafe(info.filename) or not _is_hidden(info.filename))
        ]
        if not members:
            raise ImportFileError("The ZIP file holds no files.")
        for number, info in enumerate(members, start=1):
            position.bytes += info.compress_size
            if _is_unsafe(info.filename):
                yield SourceRow(number, None, "Unsafe file name (.. or an absolute path): not read.", info.filename)
                continue
            yield _zip_member(archive, info, number, max_text_chars)


def _is_unsafe(name: str) -> bool:
    path = PurePosixPath(name.replace("\\", "/"))
    return path.is_absolute() or ".." in path.parts or (len(name) > 1 and name[1] == ":")


def _is_hidden(name: str) -> bool:
    return any(part.startswith(".") or part == "__MACOSX" for part in PurePosixPath(name).parts)


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, number: int, max_text_chars: int) -> SourceRow:
    name = info.filename
    suffix = PurePosixPath(name.lower()).suffix
    if suffix not in DOCUMENT_SUFFIXES:
        return SourceRow(number, None, f"Unsupported file type {suffix or '(none)'!r}: use .txt, .md or .html.", name)
    limit = max_line_bytes(max_text_chars)
    if info.file_size > limit:
        return SourceRow(number, None, f"File larger than {limit} bytes.", name)
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)  # the header's size may lie; never trust it alone
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError) as exc:
        return SourceRow(number, None, f"Cannot read this file from the ZIP: {exc}", name)
    if len(data) > limit:
        return SourceRow(number, None, f"File larger than {limit} bytes.", name)
    return document_row(data, name=name, number=number)


def document_row(data: bytes, *, name: str, number: int = 1) -> SourceRow:
    """One .txt/.md/.html document as one article."""
    suffix = PurePosixPath(name.lower()).suffix
    is_html = suffix in {".html", ".htm"}
    encoding = (declared_charset(data) if is_html else None) or "utf-8"
    if encoding in {"utf-8", "utf8"}:
        encoding = "utf-8-sig"
    if encoding == "utf-8-sig" and is_utf16(data[:200]):
        return SourceRow(number, None, SAVE_AS_UTF8, name)
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return SourceRow(number, None, f"Not valid {encoding.removesuffix('-sig')} text.", name)
    fields: dict[str, object] = {"file": name}
    if is_html:
        try:
            document = html_to_document(text)
        except HtmlRefused as refused:
            return SourceRow(number, None, str(refused), name)
        fields.update(text=document.text, title=document.title, url=document.url, author=document.author, published_at=document.published_at)
    elif suffix in {".md", ".markdown"}:
        first_line = text.lstrip().split("\n", 1)[0]
        fields.update(text=text, title=first_line.lstrip("#").strip() if first_line.startswith("# ") else "")
    else:
        fields.update(text=text)
    return SourceRow(number, fields, "", name)


def read_document(stream: BinaryIO, position: ReadPosition, *, name: str, max_text_chars: int) -> Iterator[SourceRow]:
    limit = max_line_bytes(max_text_chars)
    data = stream.read(limit + 1)
    position.bytes += len(data)
    if not data.strip():
        raise ImportFileError("The file is empty.")
    if len(data) > limit:
        yield SourceRow(1, None, f"File larger than {limit} bytes.", name)
        return
    yield document_row(data, name=name)


def read_rows(stream: BinaryIO, position: ReadPosition, *, file_format: str, name: str, max_text_chars: int) -> Iterator[SourceRow]:
    if file_format == "csv":
        return read_csv(stream, position, line_limit=max_line_bytes(max_text_chars))
    if file_format == "jsonl":
        return read_jsonl(stream, position, line_limit=max_line_bytes(max_text_chars))
    if file_format == "zip":
        return read_zip(stream, position, max_text_chars=max_text_chars)
    if file_format == "text":
        return read_document(stream, position, name=name, max_text_chars=max_text_chars)
    raise ImportFileError(f"Unknown import format {file_format!r}.")

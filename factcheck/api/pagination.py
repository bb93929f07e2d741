"""Keyset pagination: a page is `WHERE (key) < (cursor) ORDER BY key DESC LIMIT n + 1`, one
index range scan however deep it is (the 4,000th page of 200,000 claims costs what the first
does), and no page counts the whole result. The cursor is opaque; a page's `next` link carries
it with the request's filters."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any, Protocol

from django.conf import settings
from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from factcheck.claims.queue.filters import decode_cursor, encode_cursor

MAX_ID = 2**63 - 1


class Keyset(Protocol):
    """How one endpoint turns a row into a cursor (and, in its list view, a cursor back into
    a position)."""

    def cursor_for(self, row: Any) -> str: ...


INVALID_CURSOR = "Invalid cursor: pass the next_cursor of a previous page unchanged."


class QueueOrder:
    """Claims in queue order, (queue_rank, id) descending: the queue's own cursor."""

    def position(self, cursor: str | None) -> tuple[float, int] | None:
        """(total, id) from a cursor; None for the first page; a 400 when it is malformed."""
        if cursor is None:
            return None
        position = decode_cursor(cursor)
        if position is None or position.group is not None or not 0 < position.pk <= MAX_ID:
            raise ValidationError({"cursor": [INVALID_CURSOR]})
        return (position.rank, position.pk)

    def cursor_for(self, row: Any) -> str:
        return encode_cursor(row["total"], row["id"])


class NewestFirst:
    """Rows by id, descending (the primary key's index)."""

    def order_after(self, rows: QuerySet[Any], cursor: str | None) -> QuerySet[Any]:
        rows = rows.order_by("-id")
        if cursor is None:
            return rows
        try:
            pk = int(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii"))
        except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
            raise ValidationError({"cursor": [INVALID_CURSOR]}) from exc
        if not 0 < pk <= MAX_ID:
            raise ValidationError({"cursor": [INVALID_CURSOR]})
        return rows.filter(id__lt=pk)

    def cursor_for(self, row: Any) -> str:
        pk = row["id"] if isinstance(row, dict) else row.pk
        return base64.urlsafe_b64encode(str(pk).encode()).decode().rstrip("=")


class KeysetPagination(BasePagination):
    cursor_query_param = "cursor"
    page_size_query_param = "page_size"

    def __init__(self) -> None:
        self.next_cursor: str | None = None
        self.request: Request | None = None

    @property
    def default_page_size(self) -> int:
        return settings.FACTCHECK_API_PAGE_SIZE

    @property
    def max_page_size(self) -> int:
        return settings.FACTCHECK_API_MAX_PAGE_SIZE

    def page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.default_page_size
        try:
            size = int(raw)
        except ValueError:
            size = 0
        if not 1 <= size <= self.max_page_size:
            raise ValidationError({self.page_size_query_param: [f"A whole number from 1 to {self.max_page_size}."]})
        return size

    def paginate_queryset(self, queryset: QuerySet[Any], request: Request, view: Any = None) -> list[Any]:
        self.request = request
        size = self.page_size(request)
        cursor = request.query_params.get(self.cursor_query_param) or None
        # One row more than the page shows tells whether there is a next page.
        rows = view.page_rows(queryset, cursor, size + 1)
        self.next_cursor = view.keyset.cursor_for(rows[size - 1]) if len(rows) > size else None
        return rows[:size]

    def next_link(self) -> str | None:
        if self.next_cursor is None or self.request is None:
            return None
        url = self.request.build_absolute_uri()
        return replace_query_param(url, self.cursor_query_param, self.next_cursor)

    def get_paginated_response(self, data: Sequence[Any]) -> Response:
        return Response({"next": self.next_link(), "next_cursor": self.next_cursor, "results": data})

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["next", "next_cursor", "results"],
            "properties": {
                "next": {"type": "string", "nullable": True, "description": "The next page's URL (same filters), or null on the last page."},
                "next_cursor": {"type": "string", "nullable": True, "description": "Pass as `cursor` for the next page."},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "The next_cursor of the previous page; leave out for the first page.",
                "schema": {"type": "string"},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": f"Rows per page (default {self.default_page_size}, at most {self.max_page_size}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]



"""The read-only REST API (v1): claims, clusters, verdicts; GET, HEAD and OPTIONS only.

Lists take the triage queue's filters (see factcheck.claims.queue.filters) and are paginated by
keyset cursors. Access is the web UI's: reviewers, editors and admins read everything the
claim page shows; anonymous requests get 401, a logged-in account without a role 403 on lists
and 404 on objects.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.exceptions import AuthenticationFailed, MethodNotAllowed, NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from factcheck.api import selectors
from factcheck.api.filtering import ClusterFilterForm, VerdictFilterForm, form_parameters, queue_filter_parameters, queue_values, validated
from factcheck.api.pagination import Keyset, KeysetPagination, NewestFirst, QueueOrder
from factcheck.api.permissions import HasReviewerRole, IsLoggedIn
from factcheck.api.serializers import (
    FIELD_ERRORS_SCHEMA,
    ClaimDetailSerializer,
    ClaimSerializer,
    ClusterDetailSerializer,
    ClusterSerializer,
    ErrorSerializer,
    VerdictSerializer,
)

LIST_ERRORS: dict[int, Any] = {
    400: OpenApiResponse(FIELD_ERRORS_SCHEMA, description="Invalid parameters, each with its messages."),
    401: OpenApiResponse(ErrorSerializer, description="No credentials, or invalid ones."),
    403: OpenApiResponse(ErrorSerializer, description="Logged in without the reviewer role."),
    429: OpenApiResponse(ErrorSerializer, description="Too many requests: wait for the seconds in Retry-After."),
}
OBJECT_ERRORS: dict[int, Any] = {
    401: LIST_ERRORS[401],
    404: OpenApiResponse(ErrorSerializer, description="No such object, or no role to see it."),
    429: LIST_ERRORS[429],
}


def _as_dict(detail: Any) -> dict[str, Any]:
    """A ValidationError's detail keyed by field (a bare list is the whole request's)."""
    return detail if isinstance(detail, dict) else {api_settings.NON_FIELD_ERRORS_KEY: detail}


class ReadOnly(APIView):
    """405 for any method but GET/HEAD/OPTIONS, before authentication: otherwise a logged-in
    browser's POST would meet the session's CSRF check (403) first."""

    http_method_names = ["get", "head", "options"]

    def perform_authentication(self, request: Request) -> None:
        if request.method is None or request.method.lower() not in self.http_method_names:
            raise MethodNotAllowed(request.method or "")
        super().perform_authentication(request)


class ThrottledBeforeRefused(APIView):
    """Anonymous requests and bad tokens meet the rate limits before their 401: DRF checks
    throttles after permissions, so an anonymous flood would otherwise get a 401 (and a bad
    token a database lookup) on every request, never a 429."""

    def perform_authentication(self, request: Request) -> None:
        try:
            super().perform_authentication(request)
        except AuthenticationFailed:
            self.check_throttles(request)
            raise

    def check_permissions(self, request: Request) -> None:
        if not request.user.is_authenticated:
            self.check_throttles(request)
        super().check_permissions(request)

    def check_throttles(self, request: Request) -> None:
        # Once per request, however many of the steps above ask.
        if getattr(request, "_factcheck_throttles_checked", False):
            return
        request._factcheck_throttles_checked = True  # type: ignore[attr-defined]  # a per-request flag, no Request field
        super().check_throttles(request)


class ApiView(ReadOnly, ThrottledBeforeRefused, GenericAPIView):
    pass


class SchemaView(ReadOnly, ThrottledBeforeRefused, SpectacularAPIView):
    permission_classes = [HasReviewerRole]


class ListView(ApiView):
    """A filtered, keyset-paginated list."""

    permission_classes = [HasReviewerRole]
    pagination_class = KeysetPagination
    keyset: ClassVar[Keyset]
    own_filters: ClassVar[type[forms.Form] | None] = None
    values: dict[str, Any]
    own: dict[str, Any]

    def filter_values(self, request: Request) -> tuple[dict[str, Any], dict[str, Any]]:
        """(queue filter values, this endpoint's own) or one 400 listing every invalid parameter."""
        errors: dict[str, Any] = {}
        values: dict[str, Any] = {}
        own: dict[str, Any] = {}
        try:
            values = queue_values(request.query_params)
        except ValidationError as exc:
            errors.update(_as_dict(exc.detail))
        if self.own_filters is not None:
            try:
                own = validated(self.own_filters, request.query_params)
            except ValidationError as exc:
                errors.update(_as_dict(exc.detail))
        if errors:
            raise ValidationError(errors)
        return values, own

    def rows(self, values: dict[str, Any], own: dict[str, Any]) -> Any:
        raise NotImplementedError

    def get_queryset(self) -> Any:
        self.values, self.own = self.filter_values(self.request)
        return self.rows(self.values, self.own)

    def page_rows(self, rows: Any, cursor: str | None, limit: int) -> list[Any]:
        """The rows after `cursor`, at most `limit`, in the keyset's order."""
        raise NotImplementedError

    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(tags=["claims"], parameters=queue_filter_parameters(), responses={200: ClaimSerializer(many=True), **LIST_ERRORS})
class ClaimList(ListView):
    """Appearances, one item each (a claim as it appears in one article; the claim itself is
    its cluster, /clusters/), in queue order (priority with recency, then id, descending),
    filtered as the queue is."""

    serializer_class = ClaimSerializer
    keyset: ClassVar[QueueOrder] = QueueOrder()

    def rows(self, values: dict[str, Any], own: dict[str, Any]) -> Any:
        # The queue's page query reads the page itself (page_rows).
        return values

    def page_rows(self, rows: Any, cursor: str | None, limit: int) -> list[Any]:
        return selectors.api_claims_page(user=self.request.user, values=self.values, position=self.keyset.position(cursor), limit=limit)


class NewestFirstList(ListView):
    """A list in id order, newest first (the primary key's index)."""

    keyset: ClassVar[NewestFirst] = NewestFirst()

    def page_rows(self, rows: Any, cursor: str | None, limit: int) -> list[Any]:
        return list(self.keyset.order_after(rows, cursor)[:limit])


@extend_schema(tags=["claims"], responses={200: ClaimDetailSerializer, **OBJECT_ERRORS})
class ClaimDetail(ApiView):
    """One claim with its evidence and every verdict revision."""

    permission_classes = [IsLoggedIn]
    serializer_class = ClaimDetailSerializer

    def get(self, request: Request, pk: int) -> Response:
        claim = selectors.api_claim_get_for_user(user=request.user, pk=pk)
        claim["evidence"] = selectors.claim_evidence(claim_id=claim["id"])
        claim["verdicts"] = selectors.claim_verdicts(claim_id=claim["id"])
        return Response(self.get_serializer(claim).data)


@extend_schema(
    tags=["clusters"],
    parameters=[*queue_filter_parameters(), *form_parameters(ClusterFilterForm)],
    responses={200: ClusterSerializer(many=True), **LIST_ERRORS},
)
class ClusterList(NewestFirstList):
    """Clusters (the same claim across articles), newest first. The queue filters select the
    clusters with at least one matching appearance."""

    serializer_class = ClusterSerializer
    own_filters = ClusterFilterForm

    def rows(self, values: dict[str, Any], own: dict[str, Any]) -> Any:
        return selectors.api_clusters(user=self.request.user, values=values, own=own)


@extend_schema(tags=["clusters"], responses={200: ClusterDetailSerializer, **OBJECT_ERRORS})
class ClusterDetail(ApiView):
    """One cluster with every appearance (claims, first published first)."""

    permission_classes = [IsLoggedIn]
    serializer_class = ClusterDetailSerializer

    def get(self, request: Request, pk: int) -> Response:
        cluster = selectors.api_cluster_get_for_user(user=request.user, pk=pk)
        cluster["appearances"] = selectors.cluster_appearances(cluster_key=cluster["cluster_key"])
        return Response(self.get_serializer(cluster).data)


@extend_schema(
    tags=["verdicts"],
    parameters=[*queue_filter_parameters(), *form_parameters(VerdictFilterForm)],
    responses={200: VerdictSerializer(many=True), **LIST_ERRORS},
)
class VerdictList(NewestFirstList):
    """Verdict revisions, newest first: approved (published) ones, drafts awaiting approval and
    returned ones, as the claim page shows them to every role. verdict_status=approved gives the
    published ones only. The queue filters select verdicts by their claim."""

    serializer_class = VerdictSerializer
    own_filters = VerdictFilterForm

    def rows(self, values: dict[str, Any], own: dict[str, Any]) -> Any:
        return selectors.api_verdicts(user=self.request.user, values=values, own=own)


@extend_schema(tags=["verdicts"], responses={200: VerdictSerializer, **OBJECT_ERRORS})
class VerdictDetail(ApiView):
    """One verdict revision with the evidence it cites."""

    permission_classes = [IsLoggedIn]
    serializer_class = VerdictSerializer

    def get(self, request: Request, pk: int) -> Response:
        return Response(self.get_serializer(selectors.api_verdict_get_for_user(user=request.user, pk=pk)).data)


@extend_schema(
    tags=["index"],
    responses={
        200: {"type": "object", "additionalProperties": {"type": "string"}, "description": "Endpoint name to URL."},
        401: LIST_ERRORS[401],
        403: LIST_ERRORS[403],
        429: LIST_ERRORS[429],
    },
)
class ApiRoot(ApiView):
    """The endpoints of this API (and, in a browser, the browsable API's start page)."""

    permission_classes = [HasReviewerRole]

    def get(self, request: Request) -> Response:
        names = ["claims", "clusters", "verdicts", "schema"]
        return Response({name: reverse(f"api:{name}", request=request) for name in names})


@extend_schema(exclude=True)
class UnknownEndpoint(GenericAPIView):
    """Anything else under /api/v1/ (a malformed id included): a JSON 404 like the API's own,
    after authentication, rather than Django's HTML page."""

    permission_classes = [IsLoggedIn]

    def handle(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise NotFound("No such endpoint.")

    get = post = put = patch = delete = handle

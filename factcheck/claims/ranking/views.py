"""The ranking weights page (admins)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.claims.ranking import selectors, services
from factcheck.claims.ranking.forms import RankingWeightsForm
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS

# --- The queue's ranking weights (admins) ------------------------------------------------


def _ranking_page(request: HttpRequest, form: RankingWeightsForm, *, status: int = 200) -> HttpResponse:
    context = {
        "form": form,
        "current": selectors.ranking_weights_current(),
        "ranked_with": selectors.ranking_basis_version(),
        "defaults": DEFAULT_RANKING_WEIGHTS,
        "changes": selectors.ranking_weights_changes(),
    }
    return render(request, "claims/ranking.html", context, status=status)


@require_http_methods(["GET", "POST"])
@role_required(Role.ADMIN)
def ranking_weights(request: HttpRequest) -> HttpResponse:
    """The weights the queue is ranked with; saving them re-ranks the queue in the background."""
    if request.method == "GET":
        return _ranking_page(request, RankingWeightsForm(initial=selectors.ranking_weights_current().weights))
    form = RankingWeightsForm(request.POST)
    if not form.is_valid():
        return _ranking_page(request, form, status=400)
    before = selectors.ranking_weights_current().version
    try:
        saved = services.ranking_weights_set(actor=signed_in_user(request), weights=form.cleaned_data)
    except ValidationError as refused:
        form.add_error(None, " ".join(refused.messages))
        return _ranking_page(request, form, status=400)
    if saved.version == before:
        messages.info(request, "The weights are unchanged.")
    else:
        messages.success(request, f"Saved the weights as version {saved.version}; the queue is being re-ranked.")
    return redirect(reverse("claims:ranking"))

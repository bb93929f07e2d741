from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from factcheck.accounts.forms import ThrottledAdminAuthenticationForm, ThrottledAuthenticationForm, login_throttled
from factcheck.middleware import may_upload


class LoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        if login_throttled(self.request):
            response.status_code = 429
        return response


admin.site.login_form = ThrottledAdminAuthenticationForm


@login_not_required
def admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """The admin's own login page (throttled by the backend like every login), answering 429 when refused."""
    response = admin.site.login(request, extra_context)
    if login_throttled(request):
        response.status_code = 429
    return response


@login_not_required
@require_GET
def upload_allowed(request: HttpRequest) -> HttpResponse:
    """The front nginx asks this (auth_request, headers only) before it reads the body of a
    request to an upload page: 204 for those who may import, so only their bodies may be large;
    401 signed out, 403 otherwise (scripts/nginx.conf.template). Never a login redirect: nginx
    takes any answer but 2xx, 401 and 403 as its own error."""
    if not request.user.is_authenticated:
        return HttpResponse(status=401)
    return HttpResponse(status=204 if may_upload(request.user) else 403)

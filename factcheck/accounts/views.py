from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.http import HttpResponse

from factcheck.accounts.forms import ThrottledAuthenticationForm


class LoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form: ThrottledAuthenticationForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_invalid(form)
        if form.blocked:
            response.status_code = 429
        return response

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from factcheck.accounts.views import LoginView, admin_login, upload_allowed

# Refusals in the app's layout with the server's reason (factcheck/refusals.py).
handler403 = "factcheck.refusals.permission_denied"
handler404 = "factcheck.refusals.page_not_found"
handler500 = "factcheck.refusals.server_error"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="claims:list", permanent=False)),
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("upload-allowed/", upload_allowed, name="upload_allowed"),
    path("claims/", include("factcheck.claims.urls")),
    path("runs/", include("factcheck.runs.urls")),
    path("imports/", include("factcheck.articles.urls")),
    path("exports/", include("factcheck.reports.urls")),
    path("factchecks/", include("factcheck.reports.factcheck_urls")),
    path("library/", include("factcheck.factchecks.urls")),
    path("learning/", include("factcheck.learning.urls")),
    path("api/v1/", include("factcheck.api.urls")),
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
]

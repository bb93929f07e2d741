from django.urls import path

from factcheck.reports import views

app_name = "reports"

urlpatterns = [
    path("claims.csv", views.claims_csv, name="claims_csv"),
    path("report/", views.report_form, name="report"),
    path("report.pdf", views.report_pdf, name="report_pdf"),
]

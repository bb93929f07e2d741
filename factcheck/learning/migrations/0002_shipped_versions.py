from django.db import migrations
from django.utils import timezone


def shipped_versions(apps, schema_editor):
    """Each kind starts with the artifact shipped in the repository as its active version, so
    there is always one active version to score with and to roll back to."""
    ModelVersion = apps.get_model("learning", "ModelVersion")
    for kind in ("checkworthiness", "matching"):
        if not ModelVersion.objects.filter(kind=kind, state="active").exists():
            ModelVersion.objects.get_or_create(
                kind=kind, label="shipped",
                defaults={"state": "active", "artifact_dir": "", "promoted_at": timezone.now(), "notes": "The model shipped with this release."},
            )


class Migration(migrations.Migration):
    dependencies = [("learning", "0001_initial")]

    operations = [migrations.RunPython(shipped_versions, migrations.RunPython.noop)]

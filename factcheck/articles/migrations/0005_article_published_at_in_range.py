import datetime

from django.db import migrations, models

# Dates stored before the bounds (issue 31): moved into the article's metadata, so nothing is
# lost and the constraint can hold. In SQL: Python cannot even read a year-10000 value.
MOVE_OUT_OF_RANGE = """
UPDATE articles
SET metadata = metadata || jsonb_build_object('published_at_refused', published_at::text), published_at = NULL
WHERE published_at < '1700-01-01T00:00:00+00:00' OR published_at >= '2200-01-01T00:00:00+00:00'
"""


class Migration(migrations.Migration):

    dependencies = [
        ('articles', '0004_article_filter_indexes'),
    ]

    operations = [
        migrations.RunSQL(MOVE_OUT_OF_RANGE, migrations.RunSQL.noop),
        migrations.AddConstraint(
            model_name='article',
            constraint=models.CheckConstraint(
                condition=models.Q(('published_at__isnull', True), models.Q(('published_at__gte', datetime.datetime(1700, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)), ('published_at__lt', datetime.datetime(2200, 1, 1, 0, 0, tzinfo=datetime.timezone.utc))), _connector='OR'),
                name='article_published_at_in_range',
                violation_error_message='The publication date is outside the years an import accepts.',
            ),
        ),
    ]

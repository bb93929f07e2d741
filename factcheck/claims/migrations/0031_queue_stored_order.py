"""The queue on a stored order (issue 32): claims.queue_rank, the standing priority plus the
recency of the claim's day counted back from the order's day (claim_queue_order_basis), kept
by a trigger on every write and refreshed when the day turns (factcheck/claims/sql_functions/claim_queue_*.sql, claims_set_queue_rank.sql).

Its indexes order the queue, the default "work still to do" view and a status's claims; the
read-time machinery's indexes (the order by standing priority with seen_at, the days index)
go with the code that read them.
"""

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from factcheck.claims import sql_functions

OPEN_STATUSES = ["new", "check", "in_research", "drafted", "returned"]

QUEUE_FUNCTIONS = ["claim_queue_weights", "claim_queue_rank_at", "claim_queue_basis", "claims_set_queue_rank"]
TRIGGER = """
DROP TRIGGER IF EXISTS claims_queue_rank ON claims;
CREATE TRIGGER claims_queue_rank BEFORE INSERT OR UPDATE OF priority, seen_at ON claims
FOR EACH ROW EXECUTE FUNCTION claims_set_queue_rank();
"""
BACKFILL = """
INSERT INTO claim_queue_order_basis (id, day, weight, half_life_days)
SELECT 1, claim_seen_day(now()), recency, half_life_days FROM claim_queue_weights();
UPDATE claims c SET queue_rank = claim_queue_rank_at(c.priority, c.seen_at, b.day, b.weight, b.half_life_days)
FROM claim_queue_basis() b;
"""
BACKWARD = """
DROP TRIGGER IF EXISTS claims_queue_rank ON claims;
DROP FUNCTION IF EXISTS claims_set_queue_rank();
DROP FUNCTION IF EXISTS claim_queue_basis();
DROP FUNCTION IF EXISTS claim_queue_rank_at(double precision, timestamptz, integer, double precision, double precision);
DROP FUNCTION IF EXISTS claim_queue_weights();
"""


def forward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    sql_functions.apply(schema_editor, QUEUE_FUNCTIONS)
    schema_editor.execute(TRIGGER)
    schema_editor.execute(BACKFILL)


def backward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):

    dependencies = [
        ("claims", "0030_contestability_weight"),
    ]

    operations = [
        migrations.CreateModel(
            name="QueueOrderBasis",
            fields=[
                ("id", models.PositiveSmallIntegerField(primary_key=True, serialize=False, default=1)),
                ("day", models.IntegerField(help_text="The UTC day (days since 1970-01-01) recency counts back from.")),
                ("weight", models.FloatField()),
                ("half_life_days", models.FloatField()),
            ],
            options={"db_table": "claim_queue_order_basis"},
        ),
        migrations.AddConstraint(
            model_name="queueorderbasis",
            constraint=models.CheckConstraint(condition=models.Q(id=1), name="queue_order_basis_one_row"),
        ),
        migrations.AddField(
            model_name="claim",
            name="queue_rank",
            field=models.FloatField(default=0.0, db_default=0.0, editable=False, help_text="The queue's order: standing priority plus the recency of the claim's day."),
        ),
        migrations.AlterField(
            model_name="claim",
            name="priority",
            field=models.FloatField(default=0.0, help_text="Standing priority: the sum of priority_parts' points; queue_rank adds recency."),
        ),
        migrations.RemoveIndex(model_name="claim", name="claim_queue_order_idx"),
        migrations.RemoveIndex(model_name="claim", name="claim_queue_day_idx"),
        migrations.RemoveIndex(model_name="claim", name="claim_status_order_idx"),
        migrations.RunPython(forward, backward),
        migrations.AddIndex(
            model_name="claim",
            index=models.Index(fields=["-queue_rank", "-id"], name="claim_queue_rank_idx"),
        ),
        migrations.AddIndex(
            model_name="claim",
            index=models.Index(fields=["-queue_rank", "-id"], condition=models.Q(status__in=OPEN_STATUSES), name="claim_open_rank_idx"),
        ),
        migrations.AddIndex(
            model_name="claim",
            index=models.Index(fields=["status", "-queue_rank", "-id"], name="claim_status_rank_idx"),
        ),
    ]

"""The cluster owns the work (issue 32, item 2), second step: a claim's cluster_key becomes a
foreign key to its cluster's row (the same column and index; the constraint deferred to the
commit, as Django makes them, so the pipeline's merge may insert appearances before their
cluster's row in its transaction), and the copies of the reviewer state leave claims with
their indexes; claim_clusters gets the ones the queue's filters need. The check that no
cluster goes by '' moves to claim_clusters."""

from django.contrib.postgres.indexes import GinIndex
from django.db import migrations, models

ADD_FK = """
ALTER TABLE claims ADD CONSTRAINT claims_cluster_key_fk_claim_clusters_cluster_key
FOREIGN KEY (cluster_key) REFERENCES claim_clusters (cluster_key) DEFERRABLE INITIALLY DEFERRED
"""
DROP_FK = "ALTER TABLE claims DROP CONSTRAINT claims_cluster_key_fk_claim_clusters_cluster_key"


class Migration(migrations.Migration):
    dependencies = [("claims", "0034_cluster_state")]

    operations = [
        migrations.RemoveConstraint(model_name="claim", name="claim_cluster_key_set"),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(ADD_FK, DROP_FK)],
            state_operations=[
                migrations.RemoveIndex(model_name="claim", name="claim_cluster_key_idx"),
                migrations.RemoveField(model_name="claim", name="cluster_key"),
                migrations.AddField(
                    model_name="claim",
                    name="cluster",
                    field=models.ForeignKey(
                        db_column="cluster_key", db_index=False, on_delete=models.deletion.DO_NOTHING, related_name="appearances",
                        to="claims.claimcluster", to_field="cluster_key",
                    ),
                    preserve_default=False,
                ),
                migrations.AddIndex(model_name="claim", index=models.Index(fields=["cluster"], name="claim_cluster_key_idx")),
            ],
        ),
        migrations.RemoveIndex(model_name="claim", name="claim_tags_idx"),
        migrations.RemoveIndex(model_name="claim", name="claim_assignee_status_idx"),
        migrations.RemoveIndex(model_name="claim", name="claim_open_rank_idx"),
        migrations.RemoveIndex(model_name="claim", name="claim_status_rank_idx"),
        migrations.RemoveField(model_name="claim", name="assignee"),
        migrations.RemoveField(model_name="claim", name="dismiss_reason"),
        migrations.RemoveField(model_name="claim", name="status"),
        migrations.RemoveField(model_name="claim", name="tags"),
        migrations.RemoveField(model_name="claim", name="version"),
        migrations.AddIndex(model_name="claimcluster", index=models.Index(fields=["status"], name="cluster_status_idx")),
        migrations.AddIndex(model_name="claimcluster", index=models.Index(fields=["assignee", "status"], name="cluster_assignee_status_idx")),
        migrations.AddIndex(model_name="claimcluster", index=GinIndex(fields=["tags"], name="cluster_tags_idx")),
        migrations.AddConstraint(
            model_name="claimcluster",
            constraint=models.CheckConstraint(condition=models.Q(("cluster_key", ""), _negated=True), name="cluster_key_set"),
        ),
    ]

from django.db import migrations

# Executors stage a run's claims before the clustering has run; the clustering then writes
# the cluster key of each claim it joined to others here, and the merge reads it.
FORWARD = """
CREATE UNLOGGED TABLE claim_cluster_assignments (
    run_id bigint NOT NULL,
    claim_key varchar(40) NOT NULL,
    cluster_key varchar(40) NOT NULL
);
CREATE INDEX claim_cluster_assignments_run_idx ON claim_cluster_assignments (run_id, claim_key);
"""

BACKWARD = "DROP TABLE claim_cluster_assignments;"


class Migration(migrations.Migration):
    dependencies = [("claims", "0005_workspace")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]

from django.db import migrations

FORWARD = """
ALTER TABLE claim_staging
    ADD COLUMN claim_types text NOT NULL DEFAULT '',
    ADD COLUMN quantities jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN speaker_title varchar(300) NOT NULL DEFAULT '',
    ADD COLUMN attribution varchar(20) NOT NULL DEFAULT '',
    ADD COLUMN cluster_key varchar(40) NOT NULL DEFAULT '';
-- Clusters that a run merged into others: every claim under old_key moves to new_key.
CREATE UNLOGGED TABLE claim_cluster_remap (
    run_id bigint NOT NULL,
    old_key varchar(40) NOT NULL,
    new_key varchar(40) NOT NULL
);
CREATE INDEX claim_cluster_remap_run_idx ON claim_cluster_remap (run_id);
"""

BACKWARD = """
DROP TABLE claim_cluster_remap;
ALTER TABLE claim_staging
    DROP COLUMN claim_types, DROP COLUMN quantities, DROP COLUMN speaker_title,
    DROP COLUMN attribution, DROP COLUMN cluster_key;
"""


class Migration(migrations.Migration):
    dependencies = [("claims", "0003_pipeline_fields")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]

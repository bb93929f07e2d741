from django.db import migrations

# The Spark job COPYs each run's claims here, then merges them into `claims` with one
# INSERT ... ON CONFLICT. UNLOGGED: staging rows are disposable, so skip the WAL.
CREATE = """
CREATE UNLOGGED TABLE claim_staging (
    run_id bigint NOT NULL,
    claim_key varchar(40) NOT NULL,
    article_id bigint NOT NULL,
    sentence text NOT NULL,
    start_offset integer NOT NULL,
    end_offset integer NOT NULL,
    score double precision NOT NULL,
    claim_type varchar(20) NOT NULL,
    speaker varchar(300) NOT NULL DEFAULT ''
);
CREATE INDEX claim_staging_run_idx ON claim_staging (run_id);
"""


class Migration(migrations.Migration):
    dependencies = [("claims", "0001_initial")]

    operations = [migrations.RunSQL(CREATE, "DROP TABLE claim_staging;")]

import json

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

# What clustering compares, kept per claim so a run reads the stored claims' token sets and
# MinHash band keys instead of recomputing them from every stored sentence. Written by the
# pipeline's merge (pipeline.db); a claim without one (older rows, rows written by other
# means) is recomputed when read. No foreign key: Django's test flush truncates the claims
# table alone, and readers join on claims, so a row whose claim is gone is never used.
FORWARD = """
CREATE TABLE claim_signatures (
    claim_key varchar(40) PRIMARY KEY,
    tokens text[] NOT NULL,
    bands bigint[] NOT NULL
);
ALTER TABLE claim_staging
    ADD COLUMN tokens text[] NOT NULL DEFAULT '{}',
    ADD COLUMN bands bigint[] NOT NULL DEFAULT '{}';
"""

BACKWARD = """
ALTER TABLE claim_staging DROP COLUMN tokens, DROP COLUMN bands;
DROP TABLE claim_signatures;
"""

BATCH = 2000


def backfill(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from pipeline.nlp.clustering import signatures

    with schema_editor.connection.cursor() as cursor:
        last_id = 0
        while True:
            cursor.execute(
                "SELECT id, claim_key, sentence, quantities::text FROM claims WHERE id > %s ORDER BY id LIMIT %s", [last_id, BATCH]
            )
            rows = cursor.fetchall()
            if not rows:
                return
            computed = signatures((sentence, json.loads(quantities or "[]")) for _, _, sentence, quantities in rows)
            cursor.executemany(
                "INSERT INTO claim_signatures (claim_key, tokens, bands) VALUES (%s, %s, %s) ON CONFLICT (claim_key) DO NOTHING",
                [(key, tokens, bands) for (_, key, _, _), (tokens, bands) in zip(rows, computed, strict=True)],
            )
            last_id = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [("claims", "0007_trim_claim_indexes")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD), migrations.RunPython(backfill, migrations.RunPython.noop)]

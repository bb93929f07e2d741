"""A run looks up only the band keys its own claims produce.

claim_bands holds one row per stored claim and MinHash band key (pipeline.nlp.clustering):
the claim's node number (the first 60 bits of its key, as claim_node_idx computes it) and the
key. Its primary key is a b-tree led by the band, so a run joins its own band keys against it
and reads only the stored claims that share one; before, every run read every stored
signature. The merge (pipeline/sql/merge_claim_bands_*.sql) keeps it in step with
claim_signatures for the claims of each run; here it is filled from the stored signatures of
stored claims. No foreign key, as for claim_signatures: readers join on claims.

claim_staging loses cluster_key: the merge now runs after the clustering and takes each
claim's cluster from the clustering's assignments (claim_cluster_assignments), so the
staging rows are exactly the extracted claims (pipeline.staging.STAGING_COLUMNS).
"""

from django.db import migrations

FORWARD = """
CREATE TABLE claim_bands (
    band bigint NOT NULL,
    node bigint NOT NULL,
    PRIMARY KEY (band, node)
);
INSERT INTO claim_bands (band, node)
SELECT DISTINCT b.band, ('x' || left(s.claim_key, 15))::bit(60)::bigint
FROM claim_signatures s
JOIN claims c ON c.claim_key = s.claim_key
CROSS JOIN LATERAL unnest(s.bands) AS b(band)
WHERE s.claim_key ~ '^[0-9a-f]{15}';
ALTER TABLE claim_staging DROP COLUMN cluster_key;
"""

BACKWARD = """
ALTER TABLE claim_staging ADD COLUMN cluster_key varchar(40) NOT NULL DEFAULT '';
DROP TABLE claim_bands;
"""


class Migration(migrations.Migration):
    dependencies = [("claims", "0015_recency_at_read")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]

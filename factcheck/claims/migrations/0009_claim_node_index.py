from django.db import migrations

# The clustering's exact step looks stored claims up by node number (the first 60 bits of
# the claim key, pipeline.nlp.clustering.claim_node): candidate pairs come out of Spark's band
# shuffle as numbers. The expression must stay exactly the one in pipeline/sql/read_stored_candidates.sql for
# PostgreSQL to use this index; a key that does not start with 15 hex digits (a claim written
# by other means) gets NULL rather than an error. Not in the model's Meta: Django cannot
# express the cast.
FORWARD = (
    "CREATE INDEX claim_node_idx ON claims "
    "((CASE WHEN claim_key ~ '^[0-9a-f]{15}' THEN ('x' || left(claim_key, 15))::bit(60)::bigint END))"
)
BACKWARD = "DROP INDEX claim_node_idx"


class Migration(migrations.Migration):
    dependencies = [("claims", "0008_claim_signatures")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]

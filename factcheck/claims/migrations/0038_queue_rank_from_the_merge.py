"""The merge inserts each claim with its queue rank (issue 34: the serial tail).

The trigger claims_queue_rank ranked every inserted claim through a query of its own, one claim
after another inside the merge's one transaction: its executor started once a row (a
profile of the merge at ten times the BBC corpus put an eighth of merge_claims there). The
merge now computes the rank in its statement, with the same function over the same basis read
once (pipeline/sql/merge_claims.sql). So the insert trigger only ranks a claim inserted
without one (0.0, the column's default: the ORM, a fixture; a rank that is truly 0 is computed
again, to the same 0); every change of priority or seen_at is still ranked by the trigger, so
an update can never leave a rank stale.
"""

from django.db import migrations

FORWARD = """
DROP TRIGGER claims_queue_rank ON claims;
CREATE TRIGGER claims_queue_rank_insert BEFORE INSERT ON claims FOR EACH ROW
    WHEN (NEW.queue_rank = 0)
    EXECUTE FUNCTION claims_set_queue_rank();
CREATE TRIGGER claims_queue_rank_update BEFORE UPDATE OF priority, seen_at ON claims FOR EACH ROW
    EXECUTE FUNCTION claims_set_queue_rank();
"""

BACKWARD = """
DROP TRIGGER claims_queue_rank_update ON claims;
DROP TRIGGER claims_queue_rank_insert ON claims;
CREATE TRIGGER claims_queue_rank BEFORE INSERT OR UPDATE OF priority, seen_at ON claims
FOR EACH ROW EXECUTE FUNCTION claims_set_queue_rank();
"""


class Migration(migrations.Migration):
    dependencies = [("claims", "0037_search_vectors_from_staging")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]

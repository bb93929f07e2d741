"""A claim's search vector and phrase pairs are computed as the pipeline's tasks stage it, not in
the merge (issue 34: the serial tail).

As generated columns of `claims`, `search` and `phrase_pairs` were computed inside the merge's
one transaction, one claim after another: at ten times the BBC corpus, 8 of its 26 seconds of
inserting claims (bench/merge_bench.py). `claim_staging` now computes both, with the same
functions, as each Spark task's COPY arrives: in parallel, beside the extraction. The merge
inserts them with the rest of the claim.

`claims` keeps the two columns, no longer generated: the trigger claims_search_insert computes
them for an insert that does not supply them (any writer but the merge: the ORM, a fixture),
and claims_search_update on every change of the sentence, the speaker or the columns
themselves, so an update can never leave them stale. Django still sees generated fields: it
never writes them. The values stay as they are (DROP EXPRESSION keeps them; the function
computes what the generated expression did).
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

FORWARD = """
ALTER TABLE claims ALTER COLUMN phrase_pairs DROP EXPRESSION;
ALTER TABLE claims ALTER COLUMN search DROP EXPRESSION;
CREATE TRIGGER claims_search_insert BEFORE INSERT ON claims FOR EACH ROW
    WHEN (NEW.search IS NULL OR NEW.phrase_pairs IS NULL)
    EXECUTE FUNCTION claims_fill_search();
CREATE TRIGGER claims_search_update BEFORE UPDATE OF sentence, speaker, search, phrase_pairs ON claims FOR EACH ROW
    WHEN ((NEW.sentence, NEW.speaker, NEW.search, NEW.phrase_pairs) IS DISTINCT FROM (OLD.sentence, OLD.speaker, OLD.search, OLD.phrase_pairs))
    EXECUTE FUNCTION claims_fill_search();
ALTER TABLE claim_staging
    ADD COLUMN search tsvector GENERATED ALWAYS AS (claim_search_vector(sentence, speaker)) STORED,
    ADD COLUMN phrase_pairs text[] GENERATED ALWAYS AS (claim_word_pairs(claim_search_vector(sentence, speaker))) STORED;
"""

BACKWARD = """
ALTER TABLE claim_staging DROP COLUMN phrase_pairs, DROP COLUMN search;
DROP TRIGGER claims_search_update ON claims;
DROP TRIGGER claims_search_insert ON claims;
ALTER TABLE claims DROP COLUMN phrase_pairs, DROP COLUMN search;
ALTER TABLE claims ADD COLUMN search tsvector GENERATED ALWAYS AS
    (to_tsvector('english'::regconfig, (COALESCE(sentence, ''::text) || ' '::text) || COALESCE(speaker, ''::character varying)::text)) STORED;
ALTER TABLE claims ADD COLUMN phrase_pairs text[] GENERATED ALWAYS AS
    (claim_word_pairs(to_tsvector('english'::regconfig, (COALESCE(sentence, ''::text) || ' '::text) || COALESCE(speaker, ''::character varying)::text))) STORED;
CREATE INDEX claim_search_idx ON claims USING gin (search);
CREATE INDEX claim_phrase_pairs_idx ON claims USING gin (phrase_pairs);
DROP FUNCTION claims_fill_search();
DROP FUNCTION claim_search_vector(text, text);
"""


def functions(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions

    sql_functions.apply(schema_editor, ["claim_search_vector", "claims_fill_search"])


class Migration(migrations.Migration):
    dependencies = [("claims", "0036_stories")]

    operations = [
        migrations.RunPython(functions, migrations.RunPython.noop),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]

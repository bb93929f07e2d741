"""claim_text_has_words(words): whether any claim's own text has a search's words, asked of
the search index (selectors._any_sentence_matches, before a search "in the whole article").

Written as a plain EXISTS, PostgreSQL plans it as a sequential scan expected to stop at the
first match: for a word outside its statistics it estimates that one claim in 200 has it, and
a scan that stops after about 200 rows then looks cheaper than the index. For a word no claim
has, which is what "in the whole article" is mostly ticked for, that scan reads every claim.
The function plans its EXISTS with sequential scans off: the search index answers at once for
an absent word and with one posting list for a present one.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION claim_text_has_words(words tsquery) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
AS $fn$
SELECT EXISTS (SELECT FROM claims WHERE search @@ words)
$fn$;
"""
BACKWARD = "DROP FUNCTION claim_text_has_words(tsquery);"


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0022_queue_status_in_indexes'),
    ]

    operations = [
        migrations.RunSQL(FORWARD, BACKWARD),
    ]

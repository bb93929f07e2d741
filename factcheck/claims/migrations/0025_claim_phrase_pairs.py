"""A claim's adjacent word pairs, indexed: a phrase's matches found without reading every claim
that has its words.

The search index (GIN over `search`) holds each lexeme's claims but not their positions, so a
phrase query ('deport' <-> 'boston') is answered by reading every claim with both words and
checking the positions in its row: 5,715 rows for two common words, whether or not any has
them in order. `phrase_pairs` holds each pair of lexemes at adjacent positions of the same
vector ("deport boston"), as search engines index two-word shingles, so that a phrase's
adjacent pairs name its candidates through their own GIN index; the phrase itself is still
checked on each.

- claim_word_pairs(vector): the pairs of a search vector (the column's expression).
- claim_query_pairs(query): the pairs every match of a query must hold: its lexemes joined by
  <-> in a chain of ANDed phrases. None (an empty array) for a query with OR, NOT or grouping
  (a match need not hold them all), and none across <N> (words a stop word apart: "flood the
  zone" is 'flood' <2> 'zone', a pair of positions two apart, which no pair records).
  filters.search_shape asks for them once per text.
"""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

FUNCTIONS = r"""
CREATE FUNCTION claim_word_pairs(vector tsvector) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
SELECT coalesce(array_agg(DISTINCT first.lexeme || ' ' || second.lexeme), '{}')
FROM (SELECT lexeme, unnest(positions) AS position FROM unnest(vector)) first
JOIN (SELECT lexeme, unnest(positions) AS position FROM unnest(vector)) second ON second.position = first.position + 1
$fn$;

-- A query's text lists lexemes in quotes (a quote or backslash inside doubled) and operators
-- between them; <-> binds tighter than &, so without parentheses the text is a chain of
-- phrases joined by &, and every pair of lexemes joined by <-> must stand side by side in a match.
-- A lexeme with a suffix (a prefix match, 'deport':*, or weights) names no one lexeme: no pair.
CREATE FUNCTION claim_query_pairs(query tsquery) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    token text[];
    lexeme text;
    previous text;
    adjacent boolean := false;
    pairs text[] := '{}';
BEGIN
    IF regexp_replace(query::text, $re$'(?:[^'\\]|''|\\.)*'$re$, '', 'g') ~ '[|!(]' THEN
        RETURN '{}';
    END IF;
    FOR token IN SELECT regexp_matches(query::text, $re$('((?:[^'\\]|''|\\.)*)'(:[*A-D]+)?|<->|<[0-9]+>|&)$re$, 'g') LOOP
        IF token[2] IS NULL THEN
            adjacent := token[1] = '<->';
            CONTINUE;
        END IF;
        lexeme := CASE WHEN token[3] IS NULL THEN regexp_replace(token[2], $re$['\\](.)$re$, '\1', 'g') END;
        IF adjacent AND previous IS NOT NULL AND lexeme IS NOT NULL THEN
            pairs := pairs || (previous || ' ' || lexeme);
        END IF;
        previous := lexeme;
        adjacent := false;
    END LOOP;
    RETURN pairs;
END
$fn$;
"""
DROP_FUNCTIONS = "DROP FUNCTION claim_query_pairs(tsquery); DROP FUNCTION claim_word_pairs(tsvector);"


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0024_claim_speaker_trigrams'),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, DROP_FUNCTIONS),
        migrations.AddField(
            model_name='claim',
            name='phrase_pairs',
            field=models.GeneratedField(db_persist=True, expression=models.Func(django.contrib.postgres.search.SearchVector('sentence', 'speaker', config='english'), function='claim_word_pairs', output_field=django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), size=None)), output_field=django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), size=None)),
        ),
        migrations.AddIndex(
            model_name='claim',
            index=django.contrib.postgres.indexes.GinIndex(fields=['phrase_pairs'], name='claim_phrase_pairs_idx'),
        ),
        # The planner's estimate of how many claims hold a pair comes from ANALYZE.
        migrations.RunSQL("ANALYZE claims", migrations.RunSQL.noop),
    ]

-- The triggers claims_search_insert and claims_search_update (claims migration 0037) compute a
-- claim's search vector and phrase pairs when a writer did not supply them (an insert without
-- them) and whenever its sentence or speaker changes. The merge supplies them on insert, from
-- claim_staging, where PostgreSQL computed them as each Spark task's COPY arrived: in
-- parallel with the extraction, not in the merge's one transaction.
CREATE OR REPLACE FUNCTION claims_fill_search() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    NEW.search := claim_search_vector(NEW.sentence, NEW.speaker);
    NEW.phrase_pairs := claim_word_pairs(NEW.search);
    RETURN NEW;
END
$fn$;

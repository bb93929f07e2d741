-- The triggers claims_queue_rank_insert and claims_queue_rank_update (claims migration 0038)
-- rank each claim inserted without a rank (the merge supplies its own), and each changed
-- priority or seen_at, against the stored basis.
CREATE OR REPLACE FUNCTION claims_set_queue_rank() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    SELECT claim_queue_rank_at(NEW.priority, NEW.seen_at, b.day, b.weight, b.half_life_days)
      INTO NEW.queue_rank FROM claim_queue_basis() b;
    RETURN NEW;
END
$fn$;

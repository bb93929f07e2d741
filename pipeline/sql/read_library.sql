-- The fact-check library as the matching engine reads it (pipeline.nlp.matching: id, claim,
-- title, summary, rating, url, date, publisher), read once per run on the driver. own_claim_key:
-- for the desk's own approved verdicts, the claim it judges, which must never match itself.
-- Ordered by id: ties between equal scores go to library order, so a run's matches do not
-- depend on the physical row order.
SELECT f.id, f.claim, f.title, f.summary, f.rating_text, f.url, f.published_on, f.publisher, c.claim_key
FROM factchecks AS f
LEFT JOIN verdicts AS v ON v.id = f.verdict_id
LEFT JOIN claims AS c ON c.id = v.claim_id
ORDER BY f.id

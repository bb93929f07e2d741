-- The artifact directory of the active claim-matching model version (the learning app's
-- learning_model_versions: one active version per kind, a promotion swaps it): relative to
-- the model store, "" for the artifact shipped in the repository. The run matches with it,
-- as the web app's re-match does (factcheck.factchecks.refit.active_matching_artifact_dir).
SELECT artifact_dir FROM learning_model_versions WHERE kind = 'matching' AND state = 'active'

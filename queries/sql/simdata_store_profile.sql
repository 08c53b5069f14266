-- simdata_store_profile: add or replace one developer's profile of a kind.
INSERT OR REPLACE INTO profiles (developer, kind, model, prompt_version, request_key, text, stats)
VALUES (?, ?, nullif(?, ''), nullif(?, ''), nullif(?, ''), ?, CAST(nullif(?, '') AS JSON))

-- simdata_get_profile: one developer's profile of a kind. Parameters: developer, kind.
SELECT developer, kind, coalesce(model, ''), coalesce(prompt_version, ''), coalesce(request_key, ''),
       text, coalesce(CAST(stats AS VARCHAR), '')
FROM profiles
WHERE developer = ? AND kind = ?
ORDER BY developer, kind

SELECT id, request_key, key_parts, coalesce(error, '') FROM generations WHERE id = ?

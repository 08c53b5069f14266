DELETE FROM ep_attempts WHERE kept_id = ?

DELETE FROM temp.response_keys

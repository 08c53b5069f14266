DELETE FROM temp.generation_ids

-- gen_delete_ids: every stored generation whose id is in temp.generation_ids,
-- in one statement (what ReplaceGenerations replaces).
DELETE FROM generations WHERE id IN (SELECT id FROM temp.generation_ids)

-- study_cells: the generations at frozen points, one row each, as judge $1
-- scored them, with integer keys, in a temporary table: the one pass over
-- the generations and their labels that the report's aggregates
-- (study_scores, study_outcomes, study_length_words,
-- study_length_developers) all read, after study_cells_words,
-- study_cells_points and study_cells_settings.
--   setting, pt   the setting and point (ub_study_settings, ub_study_points)
--   failed        an error or no text
--   move          the judge's move; '' when unlabelled
--   words         the text's length in words (generations.words, or
--                 ub_study_words); NULL when failed
-- A setting has at most one generation at a point: a generation's id,
-- the primary key, is sim.GenerationID of its simulator, point, condition,
-- N and K. The texts are not read: generations.words is NULL exactly when
-- the text is (or ub_study_words has it).
CREATE OR REPLACE TEMP TABLE ub_study_cells AS
SELECT st.setting, sp.pt, g.failed, coalesce(l.move, '') AS move, g.words
FROM (SELECT g.id, g.point_id, g.simulator, g.condition, g.window_n, g.history_k,
             g.error IS NOT NULL OR coalesce(g.words, w.words) IS NULL AS failed,
             CASE WHEN g.error IS NULL THEN coalesce(g.words, w.words) END AS words
      FROM generations g
      LEFT JOIN ub_study_words w ON w.id = g.id) g
JOIN ub_study_settings st USING (simulator, condition, window_n, history_k)
JOIN ub_study_points sp ON sp.id = g.point_id
LEFT JOIN (SELECT target_id, move
           FROM labels
           WHERE target = 'generation' AND judge = $1) l ON l.target_id = g.id

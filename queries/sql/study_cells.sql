-- study_cells: the generations at frozen points, one row each, as judge $1
-- scored them, with integer keys, in a temporary table: the one pass over
-- the generations and their labels that the report's aggregates
-- (study_settings, study_scores, study_outcomes, study_length_words,
-- study_length_developers) all read, after study_cells_points and
-- study_cells_settings.
--   setting, pt   the setting and point (ub_study_settings, ub_study_points)
--   failed        an error or no text
--   move          the judge's move; '' when unlabelled
--   words         the text's length in words (generations.words; counted
--                 by ub_words for a row written without it); NULL when
--                 failed
--   tokens_out, cost
-- The labels are joined on the hash of the id as well as the id: the same
-- rows, about twice as fast as on the text alone at 2.3 million
-- generations.
CREATE OR REPLACE TEMP TABLE ub_study_cells AS
SELECT st.setting, sp.pt, g.failed, coalesce(l.move, '') AS move,
       CASE WHEN NOT g.failed THEN coalesce(g.words, ub_words(g.text)) END AS words,
       g.tokens_out, g.cost
FROM (SELECT id, hash(id) AS h, point_id, simulator, condition, window_n, history_k,
             error IS NOT NULL OR text IS NULL AS failed,
             words, CASE WHEN words IS NULL THEN text END AS text, tokens_out, cost
      FROM generations) g
JOIN ub_study_settings st USING (simulator, condition, window_n, history_k)
JOIN ub_study_points sp ON sp.id = g.point_id
LEFT JOIN (SELECT target_id, hash(target_id) AS h, move
           FROM labels
           WHERE target = 'generation' AND judge = $1) l ON l.h = g.h AND l.target_id = g.id
